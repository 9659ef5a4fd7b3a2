// Method "fft" on CUDA: 2D correlation with any kernel by cuFFT. Each channel
// plane is extended by the border rule into a padded plane of a size whose
// factors are 2, 3, 5 and 7 (fast cuFFT sizes; at least image + kernel - 1 on
// each axis, so the circular product never wraps into the kept region),
// transformed R2C, multiplied by the conjugate spectrum of the kernel (a
// correlation), transformed back C2R and cropped. Plans are cached per size,
// batch, device and stream; the kernel spectrum of the last kernels used is
// cached too. 3D volumes: slice by slice, then the shared-memory z pass.
#include <cufft.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

static parac_status cufft_status(cufftResult r, const char *call, int line)
{
    if (r == CUFFT_SUCCESS) return PARAC_OK;
    return parac__fail(r == CUFFT_ALLOC_FAILED ? PARAC_ERR_OUT_OF_MEMORY : PARAC_ERR_CUDA,
                       "%s failed (cufftResult %d) at %s:%d", call, (int)r, __FILE__, line);
}
#define CUFFT_TRY(call) PARAC_TRY(cufft_status((call), #call, __LINE__))

// Smallest n' >= n whose only prime factors are 2, 3, 5, 7 (even when asked).
static int fast_size(int n, int even)
{
    for (int m = n > 1 ? n : 1;; m++) {
        if (even && (m & 1)) continue;
        int t = m;
        const int pr[4] = {2, 3, 5, 7};
        for (int i = 0; i < 4; i++)
            while (t % pr[i] == 0) t /= pr[i];
        if (t == 1) return m;
    }
}

// ---- caches ---------------------------------------------------------------
struct plan_entry {
    int pw, ph, batch, device;
    cudaStream_t stream;
    cufftHandle fwd, inv;
    unsigned long long used;
};
struct spec_entry {
    int pw, ph, rx, ry, device;
    int separable;   // keyed by the two 1D kernels instead of the 2D one
    unsigned long long hash;
    float *key_copy; // host copy of the key for an exact match
    size_t key_n;
    cufftComplex *spec;
    unsigned long long used;
};
enum { PLAN_CACHE = 16, SPEC_CACHE = 4 };
static plan_entry g_plans[PLAN_CACHE];
static spec_entry g_specs[SPEC_CACHE];
static int g_nplans, g_nspecs;
static unsigned long long g_clock;
static pthread_mutex_t g_fft_lock = PTHREAD_MUTEX_INITIALIZER;

static parac_status get_plan(int pw, int ph, int batch, int device, cudaStream_t stream,
                             plan_entry **out)
{
    for (int i = 0; i < g_nplans; i++) {
        plan_entry *e = &g_plans[i];
        if (e->pw == pw && e->ph == ph && e->batch == batch && e->device == device &&
            e->stream == stream) {
            e->used = ++g_clock;
            *out = e;
            return PARAC_OK;
        }
    }
    int slot = g_nplans;
    if (g_nplans == PLAN_CACHE) {
        slot = 0;
        for (int i = 1; i < PLAN_CACHE; i++)
            if (g_plans[i].used < g_plans[slot].used) slot = i;
        PARAC_CUDA_TRY(cudaDeviceSynchronize());
        cufftDestroy(g_plans[slot].fwd);
        cufftDestroy(g_plans[slot].inv);
        g_plans[slot].pw = 0;
    }
    plan_entry e;
    memset(&e, 0, sizeof e);
    int n[2] = {ph, pw};
    CUFFT_TRY(cufftPlanMany(&e.fwd, 2, n, NULL, 1, 0, NULL, 1, 0, CUFFT_R2C, batch));
    parac_status st = cufft_status(
        cufftPlanMany(&e.inv, 2, n, NULL, 1, 0, NULL, 1, 0, CUFFT_C2R, batch), "cufftPlanMany", __LINE__);
    if (st) {
        cufftDestroy(e.fwd);
        return st;
    }
    e.pw = pw;
    e.ph = ph;
    e.batch = batch;
    e.device = device;
    e.stream = stream;
    e.used = ++g_clock;
    g_plans[slot] = e;
    if (slot == g_nplans) g_nplans++;
    *out = &g_plans[slot];
    return PARAC_OK;
}

// Content hash of a kernel (four independent lanes: large kernels hash fast).
static unsigned long long hash_floats(const float *p, size_t n)
{
    unsigned long long h[4] = {1469598103934665603ULL, 7809847782465536322ULL, 3ULL, 11ULL};
    const uint32_t *w = (const uint32_t *)p;
    size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int l = 0; l < 4; l++) h[l] = (h[l] ^ w[i + l]) * 1099511628211ULL;
    for (; i < n; i++) h[0] = (h[0] ^ w[i]) * 1099511628211ULL;
    return h[0] ^ (h[1] * 31) ^ (h[2] * 131) ^ (h[3] * 1313) ^ n;
}

// Kernel placed at the origin of a pw x ph plane (correlation: no flip).
__global__ void place_kernel(float *plane, const float *k, int kw, int kh, int pw, int ph)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= pw || y >= ph) return;
    plane[(size_t)y * pw + x] = (x < kw && y < kh) ? k[y * kw + x] : 0.0f;
}

// The 2D kernel of a separable key (kx taps then ky taps): their outer product.
static float *outer_product(const float *key, int rx, int ry)
{
    const int kw = 2 * rx + 1, kh = 2 * ry + 1;
    float *k2d = (float *)parac__malloc((size_t)kw * kh * sizeof(float));
    if (!k2d) return NULL;
    for (int y = 0; y < kh; y++)
        for (int x = 0; x < kw; x++) k2d[(size_t)y * kw + x] = key[kw + y] * key[x];
    return k2d;
}

// The kernel spectrum for a padded plane, from the cache when the same key
// was seen. key = the 2D kernel (separable = 0) or the 1D kernels along x
// then y (separable = 1, so repeated calls cost O(kw + kh) host work).
static parac_status get_spectrum(const float *key, int separable, int rx, int ry, int pw, int ph,
                                 int device, cudaStream_t stream, cufftComplex **out)
{
    const int kw = 2 * rx + 1, kh = 2 * ry + 1;
    const size_t kn = (size_t)kw * kh;
    const size_t key_n = separable ? (size_t)kw + kh : kn;
    const unsigned long long h = hash_floats(key, key_n);
    for (int i = 0; i < g_nspecs; i++) {
        spec_entry *e = &g_specs[i];
        if (e->pw == pw && e->ph == ph && e->rx == rx && e->ry == ry && e->device == device &&
            e->separable == separable && e->hash == h && e->key_n == key_n &&
            !memcmp(e->key_copy, key, key_n * sizeof(float))) {
            e->used = ++g_clock;
            *out = e->spec;
            return PARAC_OK;
        }
    }
    float *built = separable ? outer_product(key, rx, ry) : NULL;
    if (separable && !built) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fft filter: kernel of %dx%d", kw, kh);
    const float *k2d = separable ? built : key;
    int slot = g_nspecs;
    if (g_nspecs == SPEC_CACHE) {
        slot = 0;
        for (int i = 1; i < SPEC_CACHE; i++)
            if (g_specs[i].used < g_specs[slot].used) slot = i;
        parac_status sync = PARAC_CUDA_CHECK(cudaDeviceSynchronize()); // the spectrum may still be read
        if (!sync) sync = PARAC_CUDA_CHECK(cudaFree(g_specs[slot].spec));
        if (sync) {
            free(built);
            return sync;
        }
        free(g_specs[slot].key_copy);
        memset(&g_specs[slot], 0, sizeof g_specs[slot]);
    } else {
        g_nspecs++;
    }
    spec_entry *e = &g_specs[slot];
    memset(e, 0, sizeof *e);
    float *kdev = NULL, *plane = NULL;
    cufftHandle plan = 0;
    const size_t cw = (size_t)pw / 2 + 1;
    parac_status st = PARAC_CUDA_MALLOC(&e->spec, cw * ph * sizeof(cufftComplex));
    if (!st) st = PARAC_CUDA_MALLOC(&kdev, kn * sizeof(float));
    if (!st) st = PARAC_CUDA_MALLOC(&plane, (size_t)pw * ph * sizeof(float));
    if (!st) st = PARAC_CUDA_CHECK(cudaMemcpy(kdev, k2d, kn * sizeof(float), cudaMemcpyHostToDevice));
    if (!st) {
        dim3 b(32, 8), g((pw + 31) / 32, (ph + 7) / 8);
        place_kernel<<<g, b, 0, stream>>>(plane, kdev, kw, kh, pw, ph);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (!st) st = cufft_status(cufftPlan2d(&plan, ph, pw, CUFFT_R2C), "cufftPlan2d", __LINE__);
    if (!st) st = cufft_status(cufftSetStream(plan, stream), "cufftSetStream", __LINE__);
    if (!st) st = cufft_status(cufftExecR2C(plan, plane, e->spec), "cufftExecR2C", __LINE__);
    if (!st) st = PARAC_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (plan) cufftDestroy(plan);
    cudaFree(kdev);
    cudaFree(plane);
    if (!st) {
        e->key_copy = (float *)parac__malloc(key_n * sizeof(float));
        if (!e->key_copy) st = parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fft filter: kernel copy");
        else memcpy(e->key_copy, key, key_n * sizeof(float));
    }
    free(built);
    if (st) {
        cudaFree(e->spec);
        memset(e, 0, sizeof *e);
        g_nspecs--;
        if (slot != g_nspecs) g_specs[slot] = g_specs[g_nspecs];
        return st;
    }
    e->pw = pw;
    e->ph = ph;
    e->rx = rx;
    e->ry = ry;
    e->device = device;
    e->separable = separable;
    e->key_n = key_n;
    e->hash = h;
    e->used = ++g_clock;
    *out = e->spec;
    return PARAC_OK;
}

// ---- kernels ---------------------------------------------------------------
// Padded planes (one per channel): plane(x, y) = image(x - rx, y - ry) by the border rule.
__global__ void pad_kernel(float *planes, pc_img src, int z, int rx, int ry, int pw, int ph,
                           int mode, float cval)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= pw || y >= ph) return;
    const int mx = pc_map(x - rx, src.w, mode), my = pc_map(y - ry, src.h, mode);
    for (int c = 0; c < src.ch; c++) {
        const float v = (mx < 0 || my < 0) ? cval : pc_load(pc_addr(src, mx, my, z, c), src.dtype);
        planes[((size_t)c * ph + y) * pw + x] = v;
    }
}

__global__ void multiply_kernel(cufftComplex *f, const cufftComplex *__restrict__ k, size_t n,
                                int batch, float scale)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const cufftComplex b = k[i];
        for (int c = 0; c < batch; c++) {
            cufftComplex a = f[c * n + i];
            // a * conj(b)
            f[c * n + i] = make_float2((a.x * b.x + a.y * b.y) * scale, (a.y * b.x - a.x * b.y) * scale);
        }
    }
}

__global__ void crop_kernel(pc_img dst, const float *planes, int z, int pw, int ph)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst.w || y >= dst.h) return;
    for (int c = 0; c < dst.ch; c++)
        pc_store((char *)pc_addr(dst, x, y, z, c), dst.dtype, planes[((size_t)c * ph + y) * pw + x]);
}

static parac_status fft2d_run(const parac_image *in, parac_image *out, const float *key,
                              int separable, int rx, int ry, const parac__fir1d *kz,
                              parac__border_rule border, void *stream_)
{
    cudaStream_t stream = (cudaStream_t)stream_;
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    const pc_img s = pc_view(in), d = pc_view(out);
    const int64_t pw64 = s.w + 2LL * rx, ph64 = s.h + 2LL * ry;
    if (pw64 > (1 << 28) || ph64 > (1 << 28))
        return parac__fail(PARAC_ERR_UNSUPPORTED, "fft filter: padded plane too large");
    const int pw = fast_size((int)pw64, 1), ph = fast_size((int)ph64, 0);
    const size_t cw = (size_t)pw / 2 + 1;
    const bool zpass = s.d > 1 && kz && kz->radius > 0;
    float *planes = NULL, *ztmp = NULL;
    cufftComplex *freq = NULL;
    parac_status st = PARAC_OK;
    plan_entry *plan = NULL;
    cufftComplex *spec = NULL;
    pc_img mid = d;
    st = PARAC_CUDA_MALLOC_ASYNC(&planes, (size_t)pw * ph * s.ch * sizeof(float), stream);
    if (!st) st = PARAC_CUDA_MALLOC_ASYNC(&freq, cw * ph * s.ch * sizeof(cufftComplex), stream);
    if (!st && zpass) {
        st = pc_alloc_float(&ztmp, (size_t)s.w * s.h * s.d * s.ch, stream);
        mid = pc_float_like(s, ztmp);
    }
    pthread_mutex_lock(&g_fft_lock);
    if (!st) st = get_plan(pw, ph, s.ch, in->device, stream, &plan);
    if (!st) st = get_spectrum(key, separable, rx, ry, pw, ph, in->device, stream, &spec);
    if (!st) st = cufft_status(cufftSetStream(plan->fwd, stream), "cufftSetStream", __LINE__);
    if (!st) st = cufft_status(cufftSetStream(plan->inv, stream), "cufftSetStream", __LINE__);
    for (int z = 0; z < s.d && !st; z++) {
        dim3 b(32, 8), g((pw + 31) / 32, (ph + 7) / 8);
        pad_kernel<<<g, b, 0, stream>>>(planes, s, z, rx, ry, pw, ph, (int)border.mode, border.value);
        st = PARAC_CUDA_LAUNCH_CHECK();
        if (!st) st = cufft_status(cufftExecR2C(plan->fwd, planes, freq), "cufftExecR2C", __LINE__);
        if (!st) {
            const size_t n = cw * ph;
            multiply_kernel<<<(unsigned)((n + 255) / 256 > 65535 * 4 ? 65535 * 4 : (n + 255) / 256), 256, 0,
                              stream>>>(freq, spec, n, s.ch, 1.0f / ((float)pw * (float)ph));
            st = PARAC_CUDA_LAUNCH_CHECK();
        }
        if (!st) st = cufft_status(cufftExecC2R(plan->inv, freq, planes), "cufftExecC2R", __LINE__);
        if (!st) {
            dim3 g2((s.w + 31) / 32, (s.h + 7) / 8);
            crop_kernel<<<g2, b, 0, stream>>>(mid, planes, z, pw, ph);
            st = PARAC_CUDA_LAUNCH_CHECK();
        }
    }
    pthread_mutex_unlock(&g_fft_lock);
    if (!st && zpass) st = pc_pass_axis(mid, d, 2, kz, border, stream);
    pc_free(planes, stream);
    pc_free(freq, stream);
    pc_free(ztmp, stream);
    return st;
}

extern "C" void parac__cuda_fft_cache_clear(void)
{
    pthread_mutex_lock(&g_fft_lock);
    int current = 0;
    cudaGetDevice(&current);
    for (int i = 0; i < g_nplans; i++) {
        cudaSetDevice(g_plans[i].device);
        cudaDeviceSynchronize(); // a plan may still be running
        cufftDestroy(g_plans[i].fwd);
        cufftDestroy(g_plans[i].inv);
    }
    for (int i = 0; i < g_nspecs; i++) {
        cudaSetDevice(g_specs[i].device);
        cudaFree(g_specs[i].spec); // waits for the kernels that read it
        free(g_specs[i].key_copy);
    }
    memset(g_plans, 0, sizeof g_plans);
    memset(g_specs, 0, sizeof g_specs);
    g_nplans = g_nspecs = 0;
    cudaSetDevice(current);
    pthread_mutex_unlock(&g_fft_lock);
}

extern "C" parac_status parac__cuda_fft2d(const parac_image *in, parac_image *out, const float *k2d,
                                          int rx, int ry, const parac__fir1d *kz,
                                          parac__border_rule border, void *stream)
{
    return fft2d_run(in, out, k2d, 0, rx, ry, kz, border, stream);
}

extern "C" parac_status parac__cuda_fft2d_separable(const parac_image *in, parac_image *out,
                                                    const parac__fir1d *kx, const parac__fir1d *ky,
                                                    const parac__fir1d *kz,
                                                    parac__border_rule border, void *stream)
{
    const int kw = 2 * kx->radius + 1, kh = 2 * ky->radius + 1;
    float *key = (float *)parac__malloc((size_t)(kw + kh) * sizeof(float));
    if (!key) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "fft filter: kernel key");
    for (int i = 0; i < kw; i++) key[i] = kx->radius ? kx->taps[i] : 1.0f; // radius 0: identity
    for (int i = 0; i < kh; i++) key[kw + i] = ky->radius ? ky->taps[i] : 1.0f;
    parac_status st = fft2d_run(in, out, key, 1, kx->radius, ky->radius, kz, border, stream);
    free(key);
    return st;
}
