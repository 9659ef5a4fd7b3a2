/* Split reconstruction across two GPUs with the inputs in memory of each
 * kind the other GPU may or may not reach: cudaMalloc's (reached over the
 * peer link by the worker's own kernels), a pool's without access granted
 * (staged by copies instead: a kernel reading it would fault), and the same
 * pool once access is granted. Each result bit for bit against the CPU.
 * Skipped without two GPUs with peer access. */
#include <cuda_runtime.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

extern "C" {
#include <cmocka.h>
}

#include "morph/recon_devices.h"
#include "test_util.h"

enum { W = 301, H = 257 };

static int have_two_peers(void)
{
    int n = 0, can = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n < 2) return 0;
    return cudaDeviceCanAccessPeer(&can, 1, 0) == cudaSuccess && can;
}

/* A serpentine mask (corridors crossing the split) and its one seed. */
static void fill(parac_image *mk, parac_image *ms)
{
    for (int64_t y = 0; y < H; y++)
        for (int64_t x = 0; x < W; x++) {
            const int wall = x % 2 == 1 && (x / 2 % 2 ? y != 1 : y != H - 2);
            *(uint8_t *)parac_image_at(ms, x, y, 0) = wall || y == 0 || y == H - 1 ? 0 : (uint8_t)(100 + x % 50);
            *(uint8_t *)parac_image_at(mk, x, y, 0) = 0;
        }
    *(uint8_t *)parac_image_at(mk, 0, 1, 0) = 100;
}

/* Wrap device memory `p` on GPU 0 as a u8 image holding `host`'s pixels,
 * its rows packed (an odd pitch). */
static parac_image *on_gpu0(void *p, const parac_image *host)
{
    parac_image *im;
    static uint8_t packed[W * H];
    assert_int_equal(cudaSetDevice(0), cudaSuccess); /* the library leaves another current */
    for (int64_t y = 0; y < H; y++) memcpy(packed + y * W, parac_image_at(host, 0, y, 0), W);
    assert_int_equal(cudaMemcpy(p, packed, sizeof packed, cudaMemcpyHostToDevice), cudaSuccess);
    assert_ok(parac_image_wrap(&im, p, W, H, 1, 1, PARAC_U8, 1, W, (int64_t)W * H, PARAC_MEMORY_CUDA, 0));
    return im;
}

static void check(parac_context *cpu, parac_context *two, parac_image *mk, parac_image *ms, parac_image *dmk,
                  parac_image *dms, const char *what)
{
    parac_reconstruct_options oc = {PARAC_RECON_DILATION, 8, 0, "hybrid"}, o = oc;
    o.method = "wavefront";
    parac_image *a, *b, *bh;
    assert_ok(parac_reconstruct(cpu, mk, ms, &a, &oc));
    assert_ok(parac_reconstruct(two, dmk, dms, &b, &o));
    assert_ok(parac_image_download(&bh, b, 0, NULL));
    for (int64_t y = 0; y < H; y++)
        if (memcmp(parac_image_at(a, 0, y, 0), parac_image_at(bh, 0, y, 0), W) != 0)
            fail_msg("%s: row %lld differs from the CPU's", what, (long long)y);
    parac_image_destroy(a);
    parac_image_destroy(b);
    parac_image_destroy(bh);
}

static void test_memory_kinds(void **state)
{
    (void)state;
    setenv("PARAC_CUDA_SPLIT", "always", 1);
    parac_context *cpu, *two;
    assert_ok(parac_context_create(&cpu, "cpu"));
    assert_ok(parac_context_create(&two, "cuda:0,cuda:1"));
    parac_image *mk, *ms;
    assert_ok(parac_image_create(&mk, W, H, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    assert_ok(parac_image_create(&ms, W, H, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    fill(mk, ms);
    assert_int_equal(cudaSetDevice(0), cudaSuccess);

    /* cudaMalloc's memory: GPU 1's kernels read it over the link */
    void *p[2];
    for (int k = 0; k < 2; k++) assert_int_equal(cudaMalloc(&p[k], (size_t)W * H), cudaSuccess);
    parac_image *dmk = on_gpu0(p[0], mk), *dms = on_gpu0(p[1], ms);
    check(cpu, two, mk, ms, dmk, dms, "cudaMalloc's memory"); /* enables peer access */
    assert_true(parac__dev_strip_direct(1, dms, 0));
    assert_true(parac__dev_strip_direct(1, dms, 1));
    assert_false(parac__dev_strip_direct(0, dms, 0)); /* on its own device: no link */
    parac_image_destroy(dmk);
    parac_image_destroy(dms);

    /* a pool that grants GPU 1 nothing: staged by copies */
    assert_int_equal(cudaSetDevice(0), cudaSuccess);
    cudaMemPool_t pool;
    cudaMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    assert_int_equal(cudaMemPoolCreate(&pool, &props), cudaSuccess);
    void *q[2];
    for (int k = 0; k < 2; k++) assert_int_equal(cudaMallocFromPoolAsync(&q[k], (size_t)W * H, pool, 0), cudaSuccess);
    assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
    dmk = on_gpu0(q[0], mk);
    dms = on_gpu0(q[1], ms);
    assert_false(parac__dev_strip_direct(1, dms, 0));
    check(cpu, two, mk, ms, dmk, dms, "a pool's memory without access");

    /* the same pool with read and write access granted to GPU 1 */
    cudaMemAccessDesc d;
    d.location.type = cudaMemLocationTypeDevice;
    d.location.id = 1;
    d.flags = cudaMemAccessFlagsProtReadWrite;
    assert_int_equal(cudaMemPoolSetAccess(pool, &d, 1), cudaSuccess);
    assert_true(parac__dev_strip_direct(1, dms, 1));
    check(cpu, two, mk, ms, dmk, dms, "a pool's memory with access");
    parac_image_destroy(dmk);
    parac_image_destroy(dms);

    for (int k = 0; k < 2; k++) {
        assert_int_equal(cudaFree(p[k]), cudaSuccess);
        assert_int_equal(cudaFreeAsync(q[k], 0), cudaSuccess);
    }
    assert_int_equal(cudaStreamSynchronize(0), cudaSuccess);
    assert_int_equal(cudaMemPoolDestroy(pool), cudaSuccess);
    parac_image_destroy(mk);
    parac_image_destroy(ms);
    parac_context_destroy(cpu);
    parac_context_destroy(two);
    unsetenv("PARAC_CUDA_SPLIT");
}

int main(void)
{
    if (!test_have_gpu() || !have_two_peers()) return PARAC_TEST_SKIP;
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_memory_kinds)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
