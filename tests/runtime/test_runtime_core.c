/* The runtime of generated device code as both backends share it
 * (runtime/common), through a backend whose buffers are host memory and
 * whose kernels take a time that depends on their shape: matrices move only
 * when the other side is newer, released buffers are reused, an allocation
 * that fails frees the spares and tries again, launch shapes and grids
 * follow the device's and the kernel's limits, the search picks the fastest
 * shape and candidate kernel and remembers it in the session and on disk,
 * and every entry point reports an injected failure. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/common/runtime_core.h"
#include "test_util.h"

typedef struct fake_session {
    parac__rt_session rt;
    int allocs, frees, fail_allocs; /* the next fail_allocs allocations fail */
    int runs, timed;
    const char *ran;                /* the last launch's kernel */
    int ran_ndim;
    size_t groups[3], shape[3];
    int args[8];                    /* the last launch's first int arguments */
    int nargs;
} fake_session;

static fake_session *fake(parac__rt_session *s) { return (fake_session *)s; }

static parac_status find_kernel(parac__rt_session *s, const char *name, void **handle, size_t *max_items)
{
    (void)s;
    if (!strcmp(name, "missing")) return PARAC_ERR_INTERNAL;
    *handle = (void *)name;
    *max_items = strstr(name, "narrow") ? 64 : 1024;
    return PARAC_OK;
}

static parac_status fake_alloc(parac__rt_session *s, size_t bytes, void **buffer)
{
    if (fake(s)->fail_allocs > 0) {
        fake(s)->fail_allocs--;
        return PARAC_ERR_OUT_OF_MEMORY;
    }
    *buffer = malloc(bytes);
    memset(*buffer, 0x5a, bytes); /* what an allocation may hold */
    fake(s)->allocs++;
    return PARAC_OK;
}

static void fake_free(parac__rt_session *s, void *buffer)
{
    fake(s)->frees++;
    free(buffer);
}

static parac_status fake_clear_padding(parac__rt_session *s, void *buffer, size_t pitch, size_t row_bytes, size_t rows)
{
    (void)s;
    for (size_t r = 0; r < rows; r++) memset((char *)buffer + r * pitch + row_bytes, 0, pitch - row_bytes);
    return PARAC_OK;
}

static parac_status fake_fill_zeros(parac__rt_session *s, void *buffer, size_t bytes)
{
    (void)s;
    memset(buffer, 0, bytes);
    return PARAC_OK;
}

static parac_status fake_copy_rows(parac__rt_session *s, void *buffer, size_t device_pitch, void *host,
                                   size_t host_pitch, size_t width, size_t rows, int to_device)
{
    (void)s;
    for (size_t r = 0; r < rows; r++) {
        char *d = (char *)buffer + r * device_pitch, *h = (char *)host + r * host_pitch;
        if (to_device)
            memcpy(d, h, width);
        else
            memcpy(h, d, width);
    }
    return PARAC_OK;
}

static parac_status fake_run(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                             const size_t shape[3], const parac__rt_args *a)
{
    fake_session *f = fake(s);
    f->runs++;
    f->ran = k->name;
    f->ran_ndim = ndim;
    memcpy(f->groups, groups, sizeof f->groups);
    memcpy(f->shape, shape, sizeof f->shape);
    f->nargs = a->n;
    for (int i = 0; i < 8 && i < a->n; i++) f->args[i] = a->size[i] == sizeof(int) ? *(const int *)a->ptr[i] : -1;
    return PARAC_OK;
}

/* The model device: a shape of 64 x 4 is fastest, and a kernel named
 * "fast..." takes half the time of any other with the same shape. */
static double fake_time(parac__rt_session *s, parac__rt_kernel *k, int ndim, const size_t groups[3],
                        const size_t shape[3], const parac__rt_args *a)
{
    (void)ndim, (void)groups, (void)a;
    fake(s)->timed++;
    const double off = (double)(shape[0] > 64 ? shape[0] - 64 : 64 - shape[0]) +
                       10.0 * (double)(shape[1] > 4 ? shape[1] - 4 : 4 - shape[1]);
    return (1.0 + off) * 1e-6 * (strncmp(k->name, "fast", 4) ? 1.0 : 0.5);
}

static parac_status fake_wait(parac__rt_session *s)
{
    (void)s;
    return PARAC_OK;
}

static parac__rt_stats stats = PARAC__RT_STATS_INIT;

static const parac__rt_backend backend = {
    .name = "fake",
    .knob_prefix = "PARAC_FAKE",
    .api_prefix = "parac_fake",
    .fail_code = PARAC_ERR_OPENCL,
    .search_tag = "fake ",
    .max_groups = {2147483647u, 65535u, 65535u},
    .items_in_int = 0,
    .stats = &stats,
    .find_kernel = find_kernel,
    .alloc = fake_alloc,
    .free = fake_free,
    .clear_padding = fake_clear_padding,
    .fill_zeros = fake_fill_zeros,
    .copy_rows = fake_copy_rows,
    .run = fake_run,
    .time = fake_time,
    .wait = fake_wait,
};

static char cache_dir[600];

static void open_fake(fake_session *f)
{
    memset(f, 0, sizeof *f);
    parac__rt_session_init(&f->rt, &backend);
    snprintf(f->rt.label, sizeof f->rt.label, "fake device");
    f->rt.program_key = 0x1234;
    f->rt.max_dims[0] = 1024;
    f->rt.max_dims[1] = 1024;
    f->rt.max_dims[2] = 64;
    f->rt.units = 1;
}

static void close_fake(fake_session *f)
{
    parac__rt_session_free(&f->rt);
    assert_int_equal(f->allocs, f->frees); /* every buffer freed, the spares too */
}

static void test_transfers_follow_the_newer_copy(void **state)
{
    (void)state;
    fake_session f;
    open_fake(&f);
    float host[3][5];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 5; c++) host[r][c] = (float)(10 * r + c);
    parac_device_transfers t0, t1;
    parac__rt_transfer_counts(&backend, &t0);
    parac_device_matrix m;
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &m, host, sizeof(float), 2, 3, 5, 1, sizeof host[0]), PARAC_OK);
    assert_int_equal(m.device_pitch, 64); /* rows padded to 64 bytes */
    assert_int_equal(parac__rt_to_device(&m), PARAC_OK);
    const char *dev = m.buffer;
    assert_memory_equal(dev + 64, host[1], sizeof host[1]);
    for (size_t i = sizeof host[0]; i < 64; i++) assert_int_equal(dev[64 + i], 0); /* padding cleared */
    assert_int_equal(parac__rt_to_device(&m), PARAC_OK); /* the same on both sides: no copy */
    parac__rt_transfer_counts(&backend, &t1);
    assert_int_equal(t1.uploads - t0.uploads, 1);
    assert_int_equal(t1.upload_bytes - t0.upload_bytes, (long long)sizeof host);
    ((float *)(void *)m.buffer)[16 + 2] = -1.0f; /* a kernel writes row 1, column 2 */
    m.state = PARAC_DEVICE_NEWER;
    assert_int_equal(parac__rt_to_host(&m), PARAC_OK);
    assert_true(host[1][2] == -1.0f);
    assert_int_equal(parac__rt_to_host(&m), PARAC_OK);
    parac__rt_transfer_counts(&backend, &t1);
    assert_int_equal(t1.downloads - t0.downloads, 1);
    parac__rt_matrix_release(&m);
    /* a zeroed matrix is filled on the device, not copied */
    float zeros[4][4] = {{0}};
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &m, zeros, sizeof(float), 2, 4, 4, 1, sizeof zeros[0]), PARAC_OK);
    m.state = PARAC_DEVICE_ZEROS;
    assert_int_equal(parac__rt_to_device(&m), PARAC_OK);
    parac__rt_transfer_counts(&backend, &t1);
    assert_int_equal(t1.fills - t0.fills, 1);
    assert_int_equal(t1.uploads - t0.uploads, 1);
    assert_int_equal(((float *)(void *)m.buffer)[5], 0.0f);
    parac__rt_matrix_release(&m);
    close_fake(&f);
}

static void test_released_buffers_are_reused(void **state)
{
    (void)state;
    fake_session f;
    open_fake(&f);
    static float a[64][64], b[64][64], c[32][32];
    parac_device_matrix ma, mb, mc;
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &ma, a, 4, 2, 64, 64, 1, sizeof a[0]), PARAC_OK);
    assert_int_equal(parac__rt_to_device(&ma), PARAC_OK);
    void *first = ma.buffer;
    parac__rt_matrix_release(&ma);
    assert_int_equal(f.frees, 0); /* kept as a spare */
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &mb, b, 4, 2, 64, 64, 1, sizeof b[0]), PARAC_OK);
    assert_int_equal(parac__rt_to_device(&mb), PARAC_OK);
    assert_ptr_equal(mb.buffer, first); /* the same size: the same buffer */
    assert_int_equal(f.allocs, 1);
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &mc, c, 4, 2, 32, 32, 1, sizeof c[0]), PARAC_OK);
    assert_int_equal(parac__rt_to_device(&mc), PARAC_OK);
    assert_int_equal(f.allocs, 2); /* another size: a new one */
    parac__rt_matrix_release(&mb);
    parac__rt_matrix_release(&mc);
    /* out of memory with spares held: they are freed and the allocation tried again */
    static float d[16][16];
    parac_device_matrix md;
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &md, d, 4, 2, 16, 16, 1, sizeof d[0]), PARAC_OK);
    f.fail_allocs = 1;
    assert_int_equal(parac__rt_to_device(&md), PARAC_OK);
    assert_int_equal(f.frees, 2);
    assert_int_equal(f.rt.nspare, 0);
    parac__rt_matrix_release(&md);
    /* and without spares the failure is the caller's */
    parac__rt_free_spares(&f.rt);
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &md, d, 4, 2, 16, 16, 1, sizeof d[0]), PARAC_OK);
    f.fail_allocs = 1;
    assert_int_equal(parac__rt_to_device(&md), PARAC_ERR_OUT_OF_MEMORY);
    assert_null(md.buffer);
    close_fake(&f);
}

static void test_no_spares_knob_frees_at_once(void **state)
{
    (void)state;
    setenv("PARAC_FAKE_NO_SPARES", "1", 1);
    fake_session f;
    open_fake(&f);
    unsetenv("PARAC_FAKE_NO_SPARES");
    static float a[8][8];
    parac_device_matrix m;
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &m, a, 4, 2, 8, 8, 1, sizeof a[0]), PARAC_OK);
    assert_int_equal(parac__rt_to_device(&m), PARAC_OK);
    parac__rt_matrix_release(&m);
    assert_int_equal(f.frees, 1);
    close_fake(&f);
}

static void test_launch_shape_and_arguments(void **state)
{
    (void)state;
    fake_session f;
    open_fake(&f);
    static float a[100][300];
    parac_device_matrix m;
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &m, a, 4, 2, 100, 300, 1, sizeof a[0]), PARAC_OK);
    assert_int_equal(parac__rt_to_device(&m), PARAC_OK);
    const parac_device_arg arg = {PARAC_DEVICE_ARG_MATRIX, 0, NULL, &m};
    const long lo[2] = {1, 2}, hi[2] = {99, 299}; /* rows, columns: x runs along the columns */
    const int wg[2] = {32, 8};
    assert_int_equal(parac__rt_launch_items(&f.rt, "k", 2, lo, hi, wg, NULL, 1, &arg, 0), PARAC_OK);
    assert_int_equal(f.runs, 1);
    assert_string_equal(f.ran, "k");
    assert_int_equal(f.shape[0], 32);
    assert_int_equal(f.shape[1], 8);
    assert_int_equal(f.groups[0], (297 + 31) / 32);
    assert_int_equal(f.groups[1], (98 + 7) / 8);
    /* the counter box, then the matrix: buffer, pitch in elements, d0, d1, d2 */
    assert_int_equal(f.nargs, 4 + 5);
    assert_int_equal(f.args[0], 1);
    assert_int_equal(f.args[1], 99);
    assert_int_equal(f.args[2], 2);
    assert_int_equal(f.args[3], 299);
    assert_int_equal(f.args[5], (int)(m.device_pitch / 4));
    assert_int_equal(f.args[6], 100);
    assert_int_equal(f.args[7], 300);
    /* a kernel that allows 64 work-items: the longest axis halved until it fits */
    const int big[2] = {64, 16};
    assert_int_equal(parac__rt_launch_items(&f.rt, "narrow", 2, lo, hi, big, NULL, 1, &arg, 0), PARAC_OK);
    assert_int_equal(f.shape[0], 8); /* 64x16, 32x16, 16x16, 8x16, 8x8 */
    assert_int_equal(f.shape[1], 8);
    /* no work: no launch; too many groups: an overflow, not a launch */
    const long none[2] = {5, 5};
    assert_int_equal(parac__rt_launch_items(&f.rt, "k", 2, none, none, wg, NULL, 1, &arg, 0), PARAC_OK);
    assert_int_equal(f.runs, 2);
    const long far_lo[2] = {0, 0}, far_hi[2] = {2000000, 64};
    const int tall[2] = {1, 1};
    assert_int_equal(parac__rt_launch_items(&f.rt, "k", 2, far_lo, far_hi, tall, NULL, 0, NULL, 0), PARAC_ERR_OVERFLOW);
    assert_int_equal(f.runs, 2);
    /* a missing kernel is the backend's error */
    assert_int_equal(parac__rt_launch_items(&f.rt, "missing", 2, lo, hi, wg, NULL, 1, &arg, 0), PARAC_ERR_INTERNAL);
    parac__rt_matrix_release(&m);
    close_fake(&f);
}

static void test_search_picks_the_fastest_and_remembers(void **state)
{
    (void)state;
    setenv("PARAC_FAKE_SEARCH", "1", 1);
    fake_session f;
    open_fake(&f);
    const long lo[2] = {0, 0}, hi[2] = {2048, 1024};
    const int wg[2] = {32, 8};
    const long searched = stats.searched, reused = stats.reused;
    assert_int_equal(parac__rt_launch_items(&f.rt, "tuned", 2, lo, hi, wg, NULL, 0, NULL, 1), PARAC_OK);
    assert_true(f.timed > 3);
    assert_int_equal(f.shape[0], 64); /* the model device's fastest */
    assert_int_equal(f.shape[1], 4);
    assert_int_equal(stats.searched, searched + 1);
    const int timed = f.timed;
    assert_int_equal(parac__rt_launch_items(&f.rt, "tuned", 2, lo, hi, wg, NULL, 0, NULL, 1), PARAC_OK);
    assert_int_equal(f.timed, timed); /* the session's choice */
    assert_int_equal(f.shape[0], 64);
    /* a new session reads the choice from the disk cache */
    close_fake(&f);
    open_fake(&f);
    assert_int_equal(parac__rt_launch_items(&f.rt, "tuned", 2, lo, hi, wg, NULL, 0, NULL, 1), PARAC_OK);
    assert_int_equal(f.timed, 0);
    assert_int_equal(f.shape[0], 64);
    assert_int_equal(f.shape[1], 4);
    assert_int_equal(stats.reused, reused + 1);
    /* an untuned launch keeps the model's shape */
    assert_int_equal(parac__rt_launch_items(&f.rt, "tuned", 2, lo, hi, wg, NULL, 0, NULL, 0), PARAC_OK);
    assert_int_equal(f.shape[0], 32);
    close_fake(&f);
    unsetenv("PARAC_FAKE_SEARCH");
}

static void test_variants_searched_or_forced(void **state)
{
    (void)state;
    const parac_kernel_variant v[2] = {{"model_all", {32, 8, 1}, {1, 1, 1}, 0}, {"fast_all", {64, 4, 1}, {1, 1, 1}, 1}};
    const long lo[2] = {1, 1}, hi[2] = {255, 511};
    const long boxes[6] = {0, 0, 0, 1, 512, 1}; /* one border row */
    fake_session f;
    /* without the search: the model's kernel, one launch over interior and border */
    open_fake(&f);
    assert_int_equal(parac__rt_launch_variants(&f.rt, 2, v, 2, lo, hi, 1, boxes, 0, NULL, 1), PARAC_OK);
    assert_string_equal(f.ran, "model_all");
    assert_int_equal(f.ran_ndim, 2);
    assert_int_equal(f.groups[0], (510 + 31) / 32);
    const int interior_rows = (254 + 7) / 8;
    assert_int_equal(f.groups[1], interior_rows + 1); /* a row of groups covers the 512 border items */
    assert_int_equal(f.args[4 + 1], interior_rows); /* after the counter box and the boxes */
    close_fake(&f);
    /* the VARIANT knob forces a candidate */
    setenv("PARAC_FAKE_VARIANT", "1", 1);
    open_fake(&f);
    unsetenv("PARAC_FAKE_VARIANT");
    assert_int_equal(parac__rt_launch_variants(&f.rt, 2, v, 2, lo, hi, 1, boxes, 0, NULL, 1), PARAC_OK);
    assert_string_equal(f.ran, "fast_all");
    close_fake(&f);
    /* the search times both, the model's over the search's shapes too: the
     * fast one, with its fixed shape, is still the faster */
    setenv("PARAC_FAKE_SEARCH", "1", 1);
    open_fake(&f);
    unsetenv("PARAC_FAKE_SEARCH");
    assert_int_equal(parac__rt_launch_variants(&f.rt, 2, v, 2, lo, hi, 1, boxes, 0, NULL, 1), PARAC_OK);
    assert_string_equal(f.ran, "fast_all");
    assert_int_equal(f.shape[0], 64);
    assert_int_equal(f.shape[1], 4);
    assert_true(f.timed > 2);
    close_fake(&f);
}

static void test_fusion_choice_forced_and_searched(void **state)
{
    (void)state;
    setenv("PARAC_FAKE_FUSION", "2", 1);
    fake_session f;
    open_fake(&f);
    unsetenv("PARAC_FAKE_FUSION");
    parac_fusion_choice c;
    const long sizes[2] = {640, 480};
    assert_int_equal(parac__rt_fusion_begin(&f.rt, "choice", 3, 2, sizes, &c), PARAC_OK);
    int runs = 0, alt = -1;
    while (parac__rt_fusion_next(&f.rt, &c)) {
        alt = c.alt;
        runs++;
    }
    assert_int_equal(runs, 1);
    assert_int_equal(alt, 2);
    close_fake(&f);
    setenv("PARAC_FAKE_SEARCH", "1", 1);
    open_fake(&f);
    unsetenv("PARAC_FAKE_SEARCH");
    const long searched = stats.searched;
    const long other[2] = {641, 480};
    assert_int_equal(parac__rt_fusion_begin(&f.rt, "choice", 3, 2, other, &c), PARAC_OK);
    runs = 0;
    while (parac__rt_fusion_next(&f.rt, &c)) runs++;
    assert_true(runs > 3); /* every alternative timed, the pick run last */
    assert_int_equal(stats.searched, searched + 1);
    assert_int_equal(parac__rt_fusion_begin(&f.rt, "choice", 3, 2, other, &c), PARAC_OK);
    runs = 0;
    while (parac__rt_fusion_next(&f.rt, &c)) runs++;
    assert_int_equal(runs, 1); /* remembered by the session */
    close_fake(&f);
}

static void test_injected_failures(void **state)
{
    (void)state;
    fake_session f;
    open_fake(&f);
    static float a[8][8];
    parac_device_matrix m;
    parac__countdown_set(1);
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &m, a, 4, 2, 8, 8, 1, sizeof a[0]), PARAC_ERR_OPENCL);
    assert_non_null(strstr(parac_error_message(), "parac_fake_matrix_bind: injected failure"));
    assert_int_equal(parac__rt_matrix_bind(&f.rt, &m, a, 4, 2, 8, 8, 1, sizeof a[0]), PARAC_OK);
    parac__countdown_set(1);
    assert_int_equal(parac__rt_to_device(&m), PARAC_ERR_OPENCL);
    assert_null(m.buffer);
    const long lo[2] = {0, 0}, hi[2] = {8, 8};
    parac__countdown_set(1);
    assert_int_equal(parac__rt_launch_items(&f.rt, "k", 2, lo, hi, NULL, NULL, 0, NULL, 0), PARAC_ERR_OPENCL);
    assert_int_equal(f.runs, 0);
    parac__countdown_set(0);
    close_fake(&f);
}

int main(void)
{
    char name[64];
    snprintf(name, sizeof name, "runtime-cache-%ld", (long)getpid());
    test_path(cache_dir, sizeof cache_dir, name);
    setenv("PARAC_CACHE_DIR", cache_dir, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfers_follow_the_newer_copy),
        cmocka_unit_test(test_released_buffers_are_reused),
        cmocka_unit_test(test_no_spares_knob_frees_at_once),
        cmocka_unit_test(test_launch_shape_and_arguments),
        cmocka_unit_test(test_search_picks_the_fastest_and_remembers),
        cmocka_unit_test(test_variants_searched_or_forced),
        cmocka_unit_test(test_fusion_choice_forced_and_searched),
        cmocka_unit_test(test_injected_failures),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    if (system(cmd) != 0) return 1;
    return failed;
}
