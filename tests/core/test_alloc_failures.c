/* Every host allocation of every operation's CPU methods made to fail in
 * turn (SQLite's discipline): with the k-th allocation failing, for k = 1,
 * 2, ... until a run makes fewer than k, each run either reports
 * PARAC_ERR_OUT_OF_MEMORY with a message or, where a method has a way
 * around the failure, returns the same result bit for bit as a run without
 * one. Nothing crashes, and the sanitizer build (CI) sees no leak on any of
 * these paths. The same again with every allocation from the k-th on
 * failing. Reading and writing every format likewise: a write that fails
 * leaves no file behind (not even its temporary).
 *
 * Built with PARAC_ALLOC_FAILURES_CUDA (test_alloc_failures_gpu), the same
 * for every CUDA method on a GPU: device, page-locked and host allocations
 * share the countdown; compute-sanitizer's leak check on it shows that no
 * failure path leaves device memory behind. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/alloc_internal.h"
#include "core/device_internal.h"
#include "label/label.h"
#include "parac/io.h"
#include "test_util.h"

#ifdef PARAC_ALLOC_FAILURES_CUDA
#define TEST_DEVICE "cuda:0"
#define TEST_BACKEND PARAC_BACKEND_CUDA
#else
#define TEST_DEVICE "cpu"
#define TEST_BACKEND PARAC_BACKEND_CPU
#endif

static parac_context *cpu; /* the context of the methods under test */

static int setup(void **state)
{
    (void)state;
    return parac_context_create(&cpu, TEST_DEVICE) == PARAC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    parac_context_destroy(cpu);
#ifdef PARAC_ALLOC_FAILURES_CUDA
    parac_cuda_pool_trim(); /* what is left on the device now was lost by a failure path */
#endif
    return 0;
}

/* A host copy of a device image (NULL for a host one). */
static parac_image *on_host(const parac_image *a)
{
    if (a->memory == PARAC_MEMORY_HOST) return NULL;
    parac_image *h = NULL;
    assert_int_equal(parac_image_create(&h, a->width, a->height, a->depth, a->channels, a->dtype, PARAC_MEMORY_HOST, -1),
                     PARAC_OK);
    assert_int_equal(parac_image_copy(h, a, NULL), PARAC_OK);
    return h;
}

static int same_host_pixels(const parac_image *a, const parac_image *b);

/* Bytes of an image's pixels equal, row by row. */
static int same_pixels(const parac_image *a, const parac_image *b)
{
    parac_image *ha = on_host(a), *hb = on_host(b);
    const int same = same_host_pixels(ha ? ha : a, hb ? hb : b);
    parac_image_destroy(ha);
    parac_image_destroy(hb);
    return same;
}

static int same_host_pixels(const parac_image *a, const parac_image *b)
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
        const long blocks = parac__cuda_blocks_out();
        parac__alloc_fail_after(k, sticky);
        const parac_status st = parac_op_run(cpu, o->name, inputs, o->n_inputs, got, o->n_outputs, args, NULL, 0);
        const long failed = parac__alloc_failures();
        parac__alloc_fail_after(0, 0);
        /* device memory: what the run holds now is its outputs' */
        long held = 0;
        for (int i = 0; i < o->n_outputs; i++) held += got[i] && got[i]->memory == PARAC_MEMORY_CUDA;
        if (parac__cuda_blocks_out() != blocks + held)
            fail_msg("%s method=%s: allocation %ld failed%s: %ld device blocks kept, %ld of them outputs", o->name,
                     m->name, k, sticky ? " with all after it" : "", parac__cuda_blocks_out() - blocks, held);
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

/* Every method of op o on this backend; adds the allocations tried to
 * *total and the methods to *methods. */
static void fail_methods(const parac_op *o, int sticky, const char *what, long *total, int *methods)
{
    for (int j = 0; j < o->n_methods; j++) {
        if (o->methods[j].backend != TEST_BACKEND) continue;
        const long n = fail_each_allocation(o, &o->methods[j], sticky);
        print_message("%-22s %-14s %4ld allocations%s%s\n", o->name, o->methods[j].name, n, what,
                      sticky ? ", each failing with all after it" : "");
        *total += n;
        ++*methods;
    }
}

static void run_all(int sticky)
{
    long total = 0;
    int methods = 0;
    for (int i = 0; i < parac_op_count(); i++) fail_methods(parac_op_at(i), sticky, "", &total, &methods);
    /* label's widening (its count past the i32 limit, lowered here): the i64
     * output made once the count is known, between the method's own
     * allocations */
    int widened = 0;
    parac__label_set_i32_max(10);
    fail_methods(parac_op_find("label"), sticky, ", widened to i64", &total, &widened);
    parac__label_set_i32_max(0);
    print_message("%d %s methods (and label's widening), %ld allocations made to fail\n", methods, TEST_DEVICE,
                  total);
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

#ifndef PARAC_ALLOC_FAILURES_CUDA /* the file formats: host code, tested once */
/* The files in dir (. and .. aside). */
static int files_in(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

static const struct {
    const char *name;
    int width, height, depth, channels;
    parac_dtype dtype;
    parac_write_options options;
} files[] = {
    {"rgb.png", 37, 21, 1, 3, PARAC_U8, {.png_compression = -1}},
    {"gray16.png", 29, 17, 1, 1, PARAC_U16, {.png_compression = 9}},
    {"gray.jpg", 33, 19, 1, 1, PARAC_U8, {.jpeg_quality = 90, .png_compression = -1}},
    {"volume.tif", 23, 15, 3, 1, PARAC_F32, {.tiff_compress = 1, .png_compression = -1}},
    {"rgba.tif", 19, 13, 1, 4, PARAC_U16, {.png_compression = -1}},
    {"ascii.ppm", 17, 11, 1, 3, PARAC_U8, {.pnm_ascii = 1, .png_compression = -1}},
    {"gray16.pgm", 17, 11, 1, 1, PARAC_U16, {.png_compression = -1}},
    {"fortran.npy", 21, 9, 4, 2, PARAC_I32, {.npy_fortran_order = 1, .png_compression = -1}},
    {"gzip.nrrd", 15, 13, 5, 1, PARAC_F32, {.nrrd_gzip = 1, .png_compression = -1}},
};

static void test_every_format_reads_and_writes_through_failures(void **state)
{
    (void)state;
    char base[1024], dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s", test_path(base, sizeof base, "alloc_failures_XXXXXX"));
    assert_non_null(mkdtemp(dir));
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        parac_image *img = NULL, *want = NULL;
        assert_int_equal(parac_image_create(&img, files[f].width, files[f].height, files[f].depth, files[f].channels,
                                            files[f].dtype, PARAC_MEMORY_HOST, -1),
                         PARAC_OK);
        test_fill_random(img, 7 + f);
        snprintf(path, sizeof path, "%s/%s", dir, files[f].name);
        long writes = 0, reads = 0;
        for (long k = 1;; k++) { /* writing */
            assert_true(k <= MAX_ALLOCATIONS);
            parac__alloc_fail_after(k, k % 2 == 0); /* alone and with all after it, in turn */
            const parac_status st = parac_image_write(path, img, &files[f].options);
            const long failed = parac__alloc_failures();
            parac__alloc_fail_after(0, 0);
            if (!failed) {
                assert_int_equal(st, PARAC_OK);
                writes = k - 1;
                break;
            }
            if (st != PARAC_OK) {
                if (st != PARAC_ERR_OUT_OF_MEMORY)
                    fail_msg("writing %s, allocation %ld failing: %s (%s)", files[f].name, k, parac_status_string(st),
                             parac_error_message());
                if (files_in(dir) != 0) fail_msg("writing %s, allocation %ld failing: a file was left", files[f].name, k);
            }
            remove(path);
        }
        assert_int_equal(parac_image_read(path, NULL, &want), PARAC_OK);
        for (long k = 1;; k++) { /* reading */
            assert_true(k <= MAX_ALLOCATIONS);
            parac_image *got = NULL;
            parac__alloc_fail_after(k, k % 2 == 0);
            const parac_status st = parac_image_read(path, NULL, &got);
            const long failed = parac__alloc_failures();
            parac__alloc_fail_after(0, 0);
            if (!failed) {
                assert_int_equal(st, PARAC_OK);
                parac_image_destroy(got);
                reads = k - 1;
                break;
            }
            if (st == PARAC_OK) {
                if (!same_pixels(got, want)) fail_msg("reading %s, allocation %ld failed: another image", files[f].name, k);
            } else {
                if (st != PARAC_ERR_OUT_OF_MEMORY)
                    fail_msg("reading %s, allocation %ld failing: %s (%s)", files[f].name, k, parac_status_string(st),
                             parac_error_message());
                assert_null(got);
            }
            parac_image_destroy(got);
        }
        print_message("%-12s %3ld allocations writing, %3ld reading\n", files[f].name, writes, reads);
        remove(path);
        parac_image_destroy(want);
        parac_image_destroy(img);
    }
    assert_int_equal(rmdir(dir), 0);
}
#endif

int main(void)
{
#ifdef PARAC_ALLOC_FAILURES_CUDA
    if (!test_have_gpu()) return PARAC_TEST_SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_allocation_fails_alone),
        cmocka_unit_test(test_each_allocation_fails_with_all_after_it),
    };
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_allocation_fails_alone),
        cmocka_unit_test(test_each_allocation_fails_with_all_after_it),
        cmocka_unit_test(test_every_format_reads_and_writes_through_failures),
    };
#endif
    return cmocka_run_group_tests(tests, setup, teardown);
}
