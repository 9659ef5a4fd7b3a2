/* The CUDA reconstruction against the CPU, bit for bit: random inputs of odd
 * sizes in every dtype, connectivity and mode (2D and 3D), long serpentines
 * that cross tile borders thousands of times (which also take the
 * stalled-wavefront path), images in strips under a memory cap (strips in
 * host memory) and split over two and three workers on one GPU (strips
 * resident on the workers' devices). Both CUDA methods. Skipped without a
 * GPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static void compare_method(parac_context *cpu, parac_context *gpu, parac_image *mk, parac_image *ms,
                           int conn, int erosion, const char *what, const char *method)
{
    parac_reconstruct_options oc = {erosion ? PARAC_RECON_EROSION : PARAC_RECON_DILATION, conn, 0, "hybrid"};
    parac_reconstruct_options og = oc;
    og.method = method;
    parac_image *a, *b, *bh;
    assert_ok(parac_reconstruct(cpu, mk, ms, &a, &oc));
    assert_ok(parac_reconstruct(gpu, mk, ms, &b, &og));
    assert_ok(parac_image_download(&bh, b, 0, NULL));
    const size_t row = parac_image_row_bytes(a);
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            if (memcmp(parac_image_at(a, 0, y, z), parac_image_at(bh, 0, y, z), row) != 0)
                fail_msg("%s %s: %s conn %d erosion %d differs in row %lld slice %lld", what,
                         method, parac_dtype_name(a->dtype), conn, erosion, (long long)y,
                         (long long)z);
    parac_image_destroy(a);
    parac_image_destroy(b);
    parac_image_destroy(bh);
}

static void compare(parac_context *cpu, parac_context *gpu, parac_image *mk, parac_image *ms,
                    int conn, int erosion, const char *what)
{
    compare_method(cpu, gpu, mk, ms, conn, erosion, what, "wavefront");
    compare_method(cpu, gpu, mk, ms, conn, erosion, what, "heap");
}

static void fill_case(parac_image *mk, parac_image *ms, uint64_t *seed, int erosion)
{
    for (int64_t z = 0; z < ms->depth; z++)
        for (int64_t y = 0; y < ms->height; y++)
            for (int64_t x = 0; x < ms->width; x++) {
                /* blocky plateaus so values travel across tiles */
                uint64_t s = ((uint64_t)(x / 7) * 73856093u) ^ ((uint64_t)(y / 5) * 19349663u) ^
                             ((uint64_t)(z / 3) * 83492791u) ^ *seed;
                int m = (int)(s % 200);
                int r = (int)(test_rand(seed) % 20);
                int k = erosion ? (r == 0 ? m : 250) : (r == 0 ? m : 0);
                void *pm = parac_image_at(ms, x, y, z), *pk = parac_image_at(mk, x, y, z);
                switch (ms->dtype) {
                case PARAC_U8: *(uint8_t *)pm = (uint8_t)m, *(uint8_t *)pk = (uint8_t)k; break;
                case PARAC_U16: *(uint16_t *)pm = (uint16_t)(m * 260), *(uint16_t *)pk = (uint16_t)(k * 260); break;
                default: *(float *)pm = m * 0.37f, *(float *)pk = k * 0.37f; break;
                }
            }
}

/* Random cases in every dtype, both modes and every connectivity of
 * `sizes`, each compared on gpus[(dtype + size + connectivity) % n_gpus]
 * with each of `methods` against the CPU. */
static void random_cases(parac_context *cpu, parac_context *const *gpus, int n_gpus, const int64_t (*sizes)[3],
                         int n_sizes, uint64_t seed, const char *const *methods, int n_methods, const char *what)
{
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16, PARAC_F32};
    for (int di = 0; di < 3; di++)
        for (int si = 0; si < n_sizes; si++)
            for (int erosion = 0; erosion <= 1; erosion++) {
                parac_image *mk, *ms;
                const int64_t *sz = sizes[si];
                assert_ok(parac_image_create(&mk, sz[0], sz[1], sz[2], 1, dts[di], PARAC_MEMORY_HOST, -1));
                assert_ok(parac_image_create(&ms, sz[0], sz[1], sz[2], 1, dts[di], PARAC_MEMORY_HOST, -1));
                fill_case(mk, ms, &seed, erosion);
                const int c2[] = {4, 8}, c3[] = {6, 18, 26};
                for (int ci = 0; ci < (sz[2] > 1 ? 3 : 2); ci++)
                    for (int mi = 0; mi < n_methods; mi++)
                        compare_method(cpu, gpus[(di + si + ci) % n_gpus], mk, ms, sz[2] > 1 ? c3[ci] : c2[ci],
                                       erosion, what, methods[mi]);
                parac_image_destroy(mk);
                parac_image_destroy(ms);
            }
}

static void test_random(void **state)
{
    (void)state;
    parac_context *cpu, *gpu;
    assert_ok(parac_context_create(&cpu, "cpu"));
    assert_ok(parac_context_create(&gpu, "cuda"));
    const int64_t sizes[][3] = {{37, 53, 1}, {300, 517, 1}, {1, 700, 1}, {700, 1, 1}, {33, 40, 9}, {70, 17, 20}};
    const char *const methods[] = {"wavefront", "heap"};
    random_cases(cpu, &gpu, 1, sizes, 6, 5, methods, 2, "random");
    parac_context_destroy(cpu);
    parac_context_destroy(gpu);
}

/* Vertical 1-pixel corridors joined alternately at the top and bottom: the
 * path crosses every tile row many times. */
static void test_serpentine(void **state)
{
    (void)state;
    parac_context *cpu, *gpu;
    assert_ok(parac_context_create(&cpu, "cpu"));
    assert_ok(parac_context_create(&gpu, "cuda"));
    const int64_t n = 515;
    parac_image *mk, *ms;
    assert_ok(parac_image_create_zeroed(&mk, n, n, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&ms, n, n, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t x = 0; x < n; x += 2) {
        for (int64_t y = 1; y < n - 1; y++) *(uint8_t *)parac_image_at(ms, x, y, 0) = 200;
        if (x + 2 < n) {
            int64_t y = (x / 2) % 2 ? 1 : n - 2;
            *(uint8_t *)parac_image_at(ms, x + 1, y, 0) = 200;
        }
    }
    *(uint8_t *)parac_image_at(mk, 0, 1, 0) = 200;
    compare(cpu, gpu, mk, ms, 4, 0, "serpentine");
    compare(cpu, gpu, mk, ms, 8, 0, "serpentine");
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    parac_context_destroy(cpu);
    parac_context_destroy(gpu);
}

/* Strips: a memory cap that forces an image into strips of rows, and two
 * workers on one GPU; the same bits as the CPU, on a serpentine whose
 * corridors cross every strip border many times. */
static void test_strips(void **state)
{
    (void)state;
    parac_context *cpu, *gpu, *two;
    assert_ok(parac_context_create(&cpu, "cpu"));
    assert_ok(parac_context_create(&two, "cuda:0,cuda:0"));
    int w[16];
    assert_int_equal(parac_context_cuda_workers(two, w, 16), 2);
    const int64_t n = 301;
    parac_image *mk, *ms;
    assert_ok(parac_image_create_zeroed(&mk, n, n, 1, 1, PARAC_U16, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&ms, n, n, 1, 1, PARAC_U16, PARAC_MEMORY_HOST, -1));
    for (int64_t x = 0; x < n; x += 2) {
        for (int64_t y = 1; y < n - 1; y++) *(uint16_t *)parac_image_at(ms, x, y, 0) = 900;
        if (x + 2 < n) *(uint16_t *)parac_image_at(ms, x + 1, (x / 2) % 2 ? 1 : n - 2, 0) = 900;
    }
    *(uint16_t *)parac_image_at(mk, 0, 1, 0) = 900;
    compare_method(cpu, two, mk, ms, 8, 0, "serpentine, two workers", "wavefront");
    setenv("PARAC_CUDA_MEMORY_CAP", "40000", 1); /* about 30 rows a strip */
    assert_ok(parac_context_create(&gpu, "cuda"));
    compare_method(cpu, gpu, mk, ms, 4, 0, "serpentine, strips", "wavefront");
    compare_method(cpu, two, mk, ms, 8, 0, "serpentine, strips, two workers", "wavefront");
    /* the heap method needs the whole image on one device: a clear error */
    parac_reconstruct_options oh = {PARAC_RECON_DILATION, 8, 0, "heap"};
    parac_image *o = NULL;
    assert_int_equal(parac_reconstruct(gpu, mk, ms, &o, &oh), PARAC_ERR_UNSUPPORTED);
    unsetenv("PARAC_CUDA_MEMORY_CAP");
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    uint64_t seed = 9;
    assert_ok(parac_image_create(&mk, 70, 45, 23, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&ms, 70, 45, 23, 1, PARAC_F32, PARAC_MEMORY_HOST, -1));
    fill_case(mk, ms, &seed, 1);
    compare_method(cpu, two, mk, ms, 26, 1, "volume, two workers", "wavefront");
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    parac_context_destroy(cpu);
    parac_context_destroy(gpu);
    parac_context_destroy(two);
}

/* Split over workers (strips resident on their devices): every dtype, mode
 * and connectivity in 2D and 3D with 2, 3 and 5 workers on one GPU (and all
 * GPUs, where there are several, which also copies strips between them),
 * inputs on the host and on the device; a serpentine whose corridors cross
 * every strip border; strips of one row; a marker above the mask in a later
 * strip named by its image coordinates. */
static void test_split(void **state)
{
    (void)state;
    setenv("PARAC_CUDA_SPLIT", "always", 1); /* small images split too */
    parac_context *cpu, *w[4];
    const char *devs[4] = {"cuda:0,cuda:0", "cuda:0,cuda:0,cuda:0", "cuda:0,cuda:0,cuda:0,cuda:0,cuda:0", "cuda:all"};
    assert_ok(parac_context_create(&cpu, "cpu"));
    for (int k = 0; k < 4; k++) assert_ok(parac_context_create(&w[k], devs[k]));
    int ids[16];
    const int nw = parac_context_cuda_workers(w[3], ids, 16) > 1 ? 4 : 3; /* contexts in use */
    const int64_t sizes[][3] = {{37, 53, 1}, {300, 517, 1}, {700, 5, 1}, {33, 40, 9}};
    const char *const wavefront[] = {"wavefront"};
    random_cases(cpu, w, nw, sizes, 4, 11, wavefront, 1, "random, split");
    /* the serpentine, inputs already on the device */
    const int64_t n = 257;
    parac_image *mk, *ms, *dmk, *dms;
    assert_ok(parac_image_create_zeroed(&mk, n, n, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create_zeroed(&ms, n, n, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t x = 0; x < n; x += 2) {
        for (int64_t y = 1; y < n - 1; y++) *(uint8_t *)parac_image_at(ms, x, y, 0) = 200;
        if (x + 2 < n) *(uint8_t *)parac_image_at(ms, x + 1, (x / 2) % 2 ? 1 : n - 2, 0) = 200;
    }
    *(uint8_t *)parac_image_at(mk, 0, 1, 0) = 200;
    assert_ok(parac_image_upload(&dmk, mk, 0, NULL));
    assert_ok(parac_image_upload(&dms, ms, 0, NULL));
    for (int k = 0; k < nw; k++) {
        compare_method(cpu, w[k], mk, ms, 4, 0, "serpentine, split", "wavefront");
        compare_method(cpu, w[k], dmk, dms, 8, 0, "serpentine on the device, split", "wavefront");
    }
    /* a marker above the mask in the last strip: named by image coordinates */
    *(uint8_t *)parac_image_at(mk, 6, n - 3, 0) = 201;
    parac_reconstruct_options o = {PARAC_RECON_DILATION, 8, 0, "wavefront"};
    parac_image *out = NULL;
    assert_int_equal(parac_reconstruct(w[1], mk, ms, &out, &o), PARAC_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(parac_error_message(), "x=6 y=254 z=0 (marker 201, mask 200)"));
    assert_null(out);
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    parac_image_destroy(dmk);
    parac_image_destroy(dms);
    /* strips of one row */
    assert_ok(parac_image_create(&mk, 40, 5, 1, 1, PARAC_U16, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&ms, 40, 5, 1, 1, PARAC_U16, PARAC_MEMORY_HOST, -1));
    uint64_t seed = 13;
    fill_case(mk, ms, &seed, 0);
    compare_method(cpu, w[2], mk, ms, 8, 0, "one row a strip", "wavefront");
    if (nw == 4) compare_method(cpu, w[3], mk, ms, 4, 0, "all GPUs, few rows", "wavefront");
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    parac_context_destroy(cpu);
    for (int k = 0; k < 4; k++) parac_context_destroy(w[k]);
    unsetenv("PARAC_CUDA_SPLIT");
}

int main(void)
{
    if (!test_have_gpu()) return PARAC_TEST_SKIP;
    /* TEST_FILTER=test_split: one test (under compute-sanitizer) */
    if (getenv("TEST_FILTER")) cmocka_set_test_filter(getenv("TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_serpentine),
        cmocka_unit_test(test_strips),
        cmocka_unit_test(test_split),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
