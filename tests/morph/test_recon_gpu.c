/* The CUDA reconstruction against the CPU, bit for bit: random inputs of odd
 * sizes in every dtype, connectivity and mode (2D and 3D), long serpentines
 * that cross tile borders thousands of times (which also take the
 * stalled-wavefront path), images in strips under a memory cap and over two
 * workers. Both CUDA methods. Skipped without a GPU. */
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

static void test_random(void **state)
{
    (void)state;
    parac_context *cpu, *gpu;
    assert_ok(parac_context_create(&cpu, "cpu"));
    assert_ok(parac_context_create(&gpu, "cuda"));
    const parac_dtype dts[] = {PARAC_U8, PARAC_U16, PARAC_F32};
    const int64_t sizes[][3] = {{37, 53, 1}, {300, 517, 1}, {1, 700, 1}, {700, 1, 1}, {33, 40, 9}, {70, 17, 20}};
    uint64_t seed = 5;
    for (int di = 0; di < 3; di++)
        for (int si = 0; si < 6; si++)
            for (int erosion = 0; erosion <= 1; erosion++) {
                parac_image *mk, *ms;
                const int64_t *sz = sizes[si];
                assert_ok(parac_image_create(&mk, sz[0], sz[1], sz[2], 1, dts[di], PARAC_MEMORY_HOST, -1));
                assert_ok(parac_image_create(&ms, sz[0], sz[1], sz[2], 1, dts[di], PARAC_MEMORY_HOST, -1));
                fill_case(mk, ms, &seed, erosion);
                const int c2[] = {4, 8}, c3[] = {6, 18, 26};
                for (int ci = 0; ci < (sz[2] > 1 ? 3 : 2); ci++)
                    compare(cpu, gpu, mk, ms, sz[2] > 1 ? c3[ci] : c2[ci], erosion, "random");
                parac_image_destroy(mk);
                parac_image_destroy(ms);
            }
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

int main(void)
{
    if (!test_have_gpu()) return PARAC_TEST_SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_serpentine),
        cmocka_unit_test(test_strips),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
