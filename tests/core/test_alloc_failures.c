/* Every host allocation of every operation's CPU methods made to fail in
 * turn (SQLite's discipline): with the k-th allocation failing, for k = 1,
 * 2, ... until a run makes fewer than k, each run either reports
 * PARAC_ERR_OUT_OF_MEMORY with a message or, where a method has a way
 * around the failure, returns the same result bit for bit as a run without
 * one. Nothing crashes, and the sanitizer build (CI) sees no leak on any of
 * these paths. The same again with every allocation from the k-th on
 * failing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc_internal.h"
#include "test_util.h"

static parac_context *cpu;

static int setup(void **state)
{
    (void)state;
    return parac_context_create(&cpu, "cpu") == PARAC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    parac_context_destroy(cpu);
    return 0;
}

/* Bytes of an image's pixels equal, row by row (host images). */
static int same_pixels(const parac_image *a, const parac_image *b)
{
    if (a->width != b->width || a->height != b->height || a->depth != b->depth || a->channels != b->channels ||
        a->dtype != b->dtype)
        return 0;
    const size_t row = (size_t)a->width * a->pixel_stride;
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++) {
            const char *pa = (const char *)a->data + z * a->slice_pitch + y * a->row_pitch;
            const char *pb = (const char *)b->data + z * b->slice_pitch + y * b->row_pitch;
            if (memcmp(pa, pb, row) != 0) return 0;
        }
    return 1;
}

static void destroy_all(parac_image **images, int n)
{
    for (int i = 0; i < n; i++) {
        parac_image_destroy(images[i]);
        images[i] = NULL;
    }
}

enum { MAX_ALLOCATIONS = 20000 };

/* Methods that the demo's parameters do not suit: the parameters they run with. */
static const struct {
    const char *op, *method, *args;
} other_args[] = {
    {"convolve", "separable", "kernel-x=1,2,1 kernel-y=1,-2,1 dtype=f32"},
};

static parac_args *args_for(const parac_op *o, const parac_method *m, parac_args *demo_args)
{
    for (size_t i = 0; i < sizeof other_args / sizeof other_args[0]; i++)
        if (!strcmp(other_args[i].op, o->name) && !strcmp(other_args[i].method, m->name)) {
            parac_args *a = NULL;
            assert_int_equal(parac_args_create(&a), PARAC_OK);
            assert_int_equal(parac_args_parse(a, other_args[i].args), PARAC_OK);
            parac_args_destroy(demo_args);
            return a;
        }
    return demo_args;
}

/* One CPU method of op o on its demo's inputs; returns the allocations
 * tried (the first k that no run reached). */
static long fail_each_allocation(const parac_op *o, const parac_method *m, int sticky)
{
    parac_image *inputs[8] = {0}, *want[8] = {0};
    parac_args *args = NULL;
    assert_int_equal(parac_args_create(&args), PARAC_OK);
    assert_int_equal(o->demo(cpu, inputs, args), PARAC_OK);
    args = args_for(o, m, args);
    assert_int_equal(parac_args_set(args, "method", m->name), PARAC_OK);
    if (parac_op_run(cpu, o->name, inputs, o->n_inputs, want, o->n_outputs, args, NULL, 0) != PARAC_OK)
        fail_msg("%s method=%s: %s", o->name, m->name, parac_error_message());
    long k = 1;
    for (;; k++) {
        if (k > MAX_ALLOCATIONS) fail_msg("%s method=%s: more than %d allocations", o->name, m->name, MAX_ALLOCATIONS);
        parac_image *got[8] = {0};
        parac__alloc_fail_after(k, sticky);
        const parac_status st = parac_op_run(cpu, o->name, inputs, o->n_inputs, got, o->n_outputs, args, NULL, 0);
        const long failed = parac__alloc_failures();
        parac__alloc_fail_after(0, 0);
        if (failed == 0) { /* the run made fewer than k allocations: all were tried */
            assert_int_equal(st, PARAC_OK);
            destroy_all(got, o->n_outputs);
            break;
        }
        if (st == PARAC_OK) {
            for (int i = 0; i < o->n_outputs; i++)
                if (!got[i] || !same_pixels(got[i], want[i]))
                    fail_msg("%s method=%s: allocation %ld failed, the run succeeded with another result", o->name,
                             m->name, k);
        } else {
            if (st != PARAC_ERR_OUT_OF_MEMORY)
                fail_msg("%s method=%s: allocation %ld failed, the run reported %s (%s) instead of out of memory",
                         o->name, m->name, k, parac_status_string(st), parac_error_message());
            assert_true(strlen(parac_error_message()) > 0);
            for (int i = 0; i < o->n_outputs; i++) assert_null(got[i]); /* no output on failure */
        }
        destroy_all(got, o->n_outputs);
    }
    destroy_all(want, o->n_outputs);
    destroy_all(inputs, o->n_inputs);
    parac_args_destroy(args);
    return k - 1;
}

static void run_all(int sticky)
{
    long total = 0;
    int methods = 0;
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *o = parac_op_at(i);
        for (int j = 0; j < o->n_methods; j++) {
            if (o->methods[j].backend != PARAC_BACKEND_CPU) continue;
            const long n = fail_each_allocation(o, &o->methods[j], sticky);
            print_message("%-22s %-14s %4ld allocations%s\n", o->name, o->methods[j].name, n,
                          sticky ? ", each failing with all after it" : "");
            total += n;
            methods++;
        }
    }
    print_message("%d CPU methods, %ld allocations made to fail\n", methods, total);
}

static void test_each_allocation_fails_alone(void **state)
{
    (void)state;
    run_all(0);
}

static void test_each_allocation_fails_with_all_after_it(void **state)
{
    (void)state;
    run_all(1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_allocation_fails_alone),
        cmocka_unit_test(test_each_allocation_fails_with_all_after_it),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
