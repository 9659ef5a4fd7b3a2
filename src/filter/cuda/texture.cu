// Method "texture" on CUDA: the separable filter reading its source through
// texture objects instead of shared-memory tiles. Pass 1 (x) reads the input
// image, pass 2 (y) reads the float result of pass 1 through a second
// texture. The texture unit forms the border where it can:
//   replicate          -> cudaAddressModeClamp
//   constant, value 0  -> cudaAddressModeBorder
//   reflect            -> cudaAddressModeMirror (normalised coordinates)
//   wrap               -> cudaAddressModeWrap   (normalised coordinates)
// reflect101 (no hardware mode) and constant with another value map indices
// explicitly (parac__border_index32) before fetching. Along x of a
// multi-channel image the texture holds elements, not pixels, so x indices
// are mapped explicitly there too. 3D volumes: per-slice textures, then the
// shared-memory z pass.
#include <pthread.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

enum { T_N = 4, T_BX = 32, T_BY = 8 };

struct tex_line {
    int explicit_map; // 1: indices are mapped in software (coordinates always in range)
    int normalised;   // hardware mirror/wrap need normalised coordinates
    float inv_w, inv_h;
};

// Fetch element (ex, y) of the texture: ex = element column, y = row; both
// may lie outside when the hardware forms the border.
template <typename T>
__device__ __forceinline__ float tfetch(cudaTextureObject_t t, int ex, int y, const tex_line &m)
{
    if (m.normalised) return (float)tex2D<T>(t, (ex + 0.5f) * m.inv_w, (y + 0.5f) * m.inv_h);
    return (float)tex2D<T>(t, ex + 0.5f, y + 0.5f);
}

// Pass along x (axis 0) or y (axis 1): each thread computes T_N outputs
// along the axis with a register window of fetched samples.
template <typename T, int AXIS>
__global__ void __launch_bounds__(T_BX *T_BY)
    tex_pass_kernel(cudaTextureObject_t tex, tex_line m, pc_img dst, int z,
                    const __grid_constant__ pc_taps<PC_TAPS_LARGE> tp, int mode, float cval, int ch,
                    int w, int h)
{
    __shared__ float4 wsh4[PC_TAPS_LARGE / 4];
    float *wsh = (float *)wsh4;
    for (int i = threadIdx.y * T_BX + threadIdx.x; i < tp.n; i += T_BX * T_BY) wsh[i] = tp.w[i];
    __syncthreads();
    const int r = tp.r, nt = tp.n;
    // x: thread = (element column block of T_N pixels, row); y: (element column, T_N rows)
    int e, a0;
    if (AXIS == 0) {
        e = blockIdx.y * T_BY + threadIdx.y;                        // row
        a0 = (blockIdx.x * T_BX + threadIdx.x) * T_N;              // first pixel x
        if (e >= h || a0 >= w) return;
    } else {
        e = blockIdx.x * T_BX + threadIdx.x;                        // element column
        a0 = (blockIdx.y * T_BY + threadIdx.y) * T_N;              // first row
        if (e >= w * ch || a0 >= h) return;
    }
    const int n = AXIS == 0 ? w : h;
    for (int c = 0; c < (AXIS == 0 ? ch : 1); c++) {
        auto fetch = [&](int a) -> float {
            // sample a of the line (axis coordinate, may be outside 0..n-1)
            if (m.explicit_map) {
                const int ma = pc_map(a, n, mode);
                if (ma < 0) return cval;
                return AXIS == 0 ? tfetch<T>(tex, ma * ch + c, e, m) : tfetch<T>(tex, e, ma, m);
            }
            return AXIS == 0 ? tfetch<T>(tex, a * ch + c, e, m) : tfetch<T>(tex, e, a, m);
        };
        float acc[T_N], v[T_N + 4];
#pragma unroll
        for (int j = 0; j < T_N; j++) {
            acc[j] = 0.0f;
            v[j] = fetch(a0 - r + j);
        }
        for (int k0 = 0; k0 < nt; k0 += 4) {
#pragma unroll
            for (int q = 0; q < 4; q++)
                v[T_N + q] = (k0 + T_N + q <= 2 * r + T_N - 1) ? fetch(a0 - r + k0 + T_N + q) : 0.0f;
            const float4 wq = *(const float4 *)(wsh + k0);
            const float wk[4] = {wq.x, wq.y, wq.z, wq.w};
#pragma unroll
            for (int q = 0; q < 4; q++)
#pragma unroll
                for (int j = 0; j < T_N; j++) acc[j] = fmaf(wk[q], v[j + q], acc[j]);
#pragma unroll
            for (int j = 0; j < T_N; j++) v[j] = v[j + 4];
        }
#pragma unroll
        for (int j = 0; j < T_N; j++) {
            const int a = a0 + j;
            if (a < n) {
                char *p = AXIS == 0 ? (char *)pc_addr(dst, a, e, z, c)
                                    : (char *)pc_addr(dst, e / ch, a, z, e % ch);
                pc_store(p, dst.dtype, acc[j]);
            }
        }
    }
}

// ---- texture objects ----------------------------------------------------
// Objects are cached (creation is cheap, but destroying one needs the work
// that reads it to have finished): an evicted object is destroyed after a
// device synchronisation.
struct tex_key {
    const void *ptr;
    int w, h, dtype;
    size_t pitch;
    int addr, normalised, device;
};
struct tex_entry {
    tex_key key;
    cudaTextureObject_t obj;
    unsigned long long used;
};
enum { TEX_CACHE = 32 };
static tex_entry g_tex[TEX_CACHE];
static int g_tex_count;
static unsigned long long g_tex_clock;
static pthread_mutex_t g_tex_lock = PTHREAD_MUTEX_INITIALIZER;

static parac_status tex_get(const tex_key &k, cudaTextureObject_t *out)
{
    pthread_mutex_lock(&g_tex_lock);
    for (int i = 0; i < g_tex_count; i++)
        if (!memcmp(&g_tex[i].key, &k, sizeof k)) {
            g_tex[i].used = ++g_tex_clock;
            *out = g_tex[i].obj;
            pthread_mutex_unlock(&g_tex_lock);
            return PARAC_OK;
        }
    cudaResourceDesc rd;
    memset(&rd, 0, sizeof rd);
    rd.resType = cudaResourceTypePitch2D;
    rd.res.pitch2D.devPtr = (void *)k.ptr;
    rd.res.pitch2D.desc = k.dtype == PARAC_U8    ? cudaCreateChannelDesc<unsigned char>()
                          : k.dtype == PARAC_U16 ? cudaCreateChannelDesc<unsigned short>()
                                                 : cudaCreateChannelDesc<float>();
    rd.res.pitch2D.width = k.w;
    rd.res.pitch2D.height = k.h;
    rd.res.pitch2D.pitchInBytes = k.pitch;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = (cudaTextureAddressMode)k.addr;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = k.normalised;
    cudaTextureObject_t obj = 0;
    parac_status st = PARAC_CUDA_CHECK(cudaCreateTextureObject(&obj, &rd, &td, NULL));
    if (!st) {
        int slot = g_tex_count;
        if (g_tex_count == TEX_CACHE) {
            slot = 0;
            for (int i = 1; i < TEX_CACHE; i++)
                if (g_tex[i].used < g_tex[slot].used) slot = i;
            int cur = 0;
            (void)cudaGetDevice(&cur);
            (void)cudaSetDevice(g_tex[slot].key.device);
            st = PARAC_CUDA_CHECK(cudaDeviceSynchronize());
            if (!st) st = PARAC_CUDA_CHECK(cudaDestroyTextureObject(g_tex[slot].obj));
            (void)cudaSetDevice(cur);
        } else {
            g_tex_count++;
        }
        g_tex[slot].key = k;
        g_tex[slot].obj = obj;
        g_tex[slot].used = ++g_tex_clock;
        *out = obj;
    }
    pthread_mutex_unlock(&g_tex_lock);
    return st;
}

// Texture + addressing for an element plane (w elements x h rows).
static parac_status tex_for(const void *ptr, int w, int h, int dtype, size_t pitch, int hw_x,
                            parac__border_rule b, cudaTextureObject_t *t, tex_line *m)
{
    int dev = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    tex_key k;
    memset(&k, 0, sizeof k);
    k.ptr = ptr;
    k.w = w;
    k.h = h;
    k.dtype = dtype;
    k.pitch = pitch;
    k.device = dev;
    m->explicit_map = 0;
    m->normalised = 0;
    switch (b.mode) {
    case PARAC_BORDER_REPLICATE: k.addr = cudaAddressModeClamp; break;
    case PARAC_BORDER_CONSTANT:
        k.addr = cudaAddressModeBorder;
        m->explicit_map = b.value != 0.0f;
        break;
    case PARAC_BORDER_REFLECT:
        k.addr = cudaAddressModeMirror;
        m->normalised = 1;
        break;
    case PARAC_BORDER_WRAP:
        k.addr = cudaAddressModeWrap;
        m->normalised = 1;
        break;
    default: m->explicit_map = 1; k.addr = cudaAddressModeClamp; break;
    }
    if (!hw_x) m->explicit_map = 1; // element textures of multi-channel rows
    if (m->explicit_map) {
        m->normalised = 0;
        k.addr = cudaAddressModeClamp;
    }
    k.normalised = m->normalised;
    m->inv_w = 1.0f / (float)w;
    m->inv_h = 1.0f / (float)h;
    return tex_get(k, t);
}

static parac_status check_tex_geometry(const void *ptr, size_t pitch, int w, int h)
{
    int dev = 0, align = 0, palign = 0, maxw = 0, maxh = 0, maxp = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&align, cudaDevAttrTextureAlignment, dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&palign, cudaDevAttrTexturePitchAlignment, dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&maxw, cudaDevAttrMaxTexture2DLinearWidth, dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&maxh, cudaDevAttrMaxTexture2DLinearHeight, dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&maxp, cudaDevAttrMaxTexture2DLinearPitch, dev));
    if (w > maxw || h > maxh || pitch > (size_t)maxp)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "texture filter: a %d x %d element plane exceeds the texture limits "
                           "(%d x %d, pitch %d); use method separable",
                           w, h, maxw, maxh, maxp);
    if (((uintptr_t)ptr % (uintptr_t)align) || (pitch % (size_t)palign)) return PARAC_ERR_INTERNAL;
    return PARAC_OK;
}

template <typename T>
static parac_status tex_pass(int axis, cudaTextureObject_t t, const tex_line &m, const pc_img &dst,
                             int z, const parac__fir1d *k, parac__border_rule b, int ch, int w, int h,
                             cudaStream_t stream)
{
    pc_taps<PC_TAPS_LARGE> tp;
    if (!pc_taps_fill(&tp, k))
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "texture filter: radius %d is longer than %d taps; use method fft",
                           k->radius, (int)PC_TAPS_LARGE);
    dim3 block(T_BX, T_BY);
    if (axis == 0) {
        dim3 grid((unsigned)((w + T_BX * T_N - 1) / (T_BX * T_N)), (unsigned)((h + T_BY - 1) / T_BY));
        tex_pass_kernel<T, 0><<<grid, block, 0, stream>>>(t, m, dst, z, tp, (int)b.mode, b.value, ch,
                                                          w, h);
    } else {
        dim3 grid((unsigned)((w * ch + T_BX - 1) / T_BX), (unsigned)((h + T_BY * T_N - 1) / (T_BY * T_N)));
        tex_pass_kernel<T, 1><<<grid, block, 0, stream>>>(t, m, dst, z, tp, (int)b.mode, b.value, ch,
                                                          w, h);
    }
    return PARAC_CUDA_LAUNCH_CHECK();
}

static parac_status tex_pass_any(int dtype, int axis, cudaTextureObject_t t, const tex_line &m,
                                 const pc_img &dst, int z, const parac__fir1d *k,
                                 parac__border_rule b, int ch, int w, int h, cudaStream_t stream)
{
    if (dtype == PARAC_U8) return tex_pass<unsigned char>(axis, t, m, dst, z, k, b, ch, w, h, stream);
    if (dtype == PARAC_U16) return tex_pass<unsigned short>(axis, t, m, dst, z, k, b, ch, w, h, stream);
    return tex_pass<float>(axis, t, m, dst, z, k, b, ch, w, h, stream);
}

extern "C" parac_status parac__cuda_separable_texture(const parac_image *in, parac_image *out,
                                                      const parac__fir1d k[3],
                                                      parac__border_rule border, void *stream_)
{
    cudaStream_t stream = (cudaStream_t)stream_;
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    const pc_img s = pc_view(in), d = pc_view(out);
    const int ch = s.ch, W = s.w * ch;
    const bool zpass = s.d > 1 && k[2].radius > 0;
    // the pass-1 result: float, rows padded to 512 bytes for the texture unit
    const size_t fpitch = ((size_t)W * 4 + 511) & ~(size_t)511;
    float *mid = NULL, *src_copy = NULL, *zbuf = NULL;
    parac_status st = PARAC_OK;
    const char *src_base = s.p;
    size_t src_pitch = (size_t)s.rp;
    int64_t src_slice = s.sp;
    if (s.ps != (int64_t)ch * s.esize)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "texture filter: pixels with gaps (pixel_stride %lld) are not supported; "
                           "use method separable",
                           (long long)s.ps);
    // the source must have aligned rows; otherwise pass 1 reads an aligned copy
    bool packed = s.ps == (int64_t)ch * s.esize;
    for (int z = 0; z < s.d && packed; z++)
        if (check_tex_geometry(s.p + z * s.sp, (size_t)s.rp, W, s.h) != PARAC_OK) packed = false;
    if (!packed) {
        size_t rowb = ((size_t)W * s.esize + 511) & ~(size_t)511;
        st = PARAC_CUDA_MALLOC_ASYNC(&src_copy, rowb * s.h * s.d, stream);
        if (st) goto done;
        for (int z = 0; z < s.d && !st; z++)
            st = PARAC_CUDA_CHECK(cudaMemcpy2DAsync((char *)src_copy + rowb * s.h * z, rowb,
                                                    s.p + z * s.sp, (size_t)s.rp,
                                                    (size_t)W * s.esize, s.h,
                                                    cudaMemcpyDeviceToDevice, stream));
        if (st) goto done;
        src_base = (const char *)src_copy;
        src_pitch = rowb;
        src_slice = (int64_t)(rowb * s.h);
    }
    st = PARAC_CUDA_MALLOC_ASYNC(&mid, fpitch * s.h, stream);
    if (st) goto done;
    if (zpass) {
        st = pc_alloc_float(&zbuf, (size_t)W * s.h * s.d, stream);
        if (st) goto done;
    }
    {
        pc_img mview = s;
        mview.p = (char *)mid;
        mview.dtype = PARAC_F32;
        mview.esize = 4;
        mview.ps = 4LL * ch;
        mview.rp = (int64_t)fpitch;
        mview.sp = 0;
        mview.d = 1;
        const pc_img final_dst = zpass ? pc_float_like(s, zbuf) : d;
        for (int z = 0; z < s.d && !st; z++) {
            const char *plane = src_base + z * src_slice;
            st = check_tex_geometry(plane, src_pitch, W, s.h);
            if (st) break;
            cudaTextureObject_t t1, t2;
            tex_line m1, m2;
            st = tex_for(plane, W, s.h, s.dtype, src_pitch, ch == 1, border, &t1, &m1);
            if (!st) st = tex_pass_any(s.dtype, 0, t1, m1, mview, 0, &k[0], border, ch, s.w, s.h, stream);
            if (!st) st = tex_for(mid, W, s.h, PARAC_F32, fpitch, 1, border, &t2, &m2);
            if (!st) st = tex_pass_any(PARAC_F32, 1, t2, m2, final_dst, z, &k[1], border, ch, s.w, s.h,
                                       stream);
        }
        if (!st && zpass) st = pc_pass_axis(final_dst, d, 2, &k[2], border, stream);
    }
done:
    pc_free(mid, stream);
    pc_free(src_copy, stream);
    pc_free(zbuf, stream);
    return st;
}
