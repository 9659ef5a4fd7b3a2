// Pieces shared by the CUDA filter methods: a plain image view for kernels,
// element loads/stores with the CPU's rounding (rint, ties to even, then
// saturation), the border index rules of parac/filter.h, and the inner loops
// that slide a register window over a row or column held in shared memory.
#ifndef PARAC_FILTER_CUDA_COMMON_CUH
#define PARAC_FILTER_CUDA_COMMON_CUH

#include <stdint.h>

#include <cuda_runtime.h>

#include <type_traits>

#include "filter/filter_border.h"
#include "filter/filter_internal.h"

// An image as kernels see it (strides in bytes).
struct pc_img {
    char *p;
    int dtype, ch, esize;
    int64_t ps, rp, sp;
    int w, h, d;
};

static inline pc_img pc_view(const parac_image *im)
{
    pc_img v;
    v.p = (char *)im->data;
    v.dtype = (int)im->dtype;
    v.ch = im->channels;
    v.esize = (int)parac_dtype_size(im->dtype);
    v.ps = im->pixel_stride;
    v.rp = im->row_pitch;
    v.sp = im->slice_pitch;
    v.w = (int)im->width;
    v.h = (int)im->height;
    v.d = (int)im->depth;
    return v;
}

// A packed float image of the same geometry (intermediate results).
static inline pc_img pc_float_like(const pc_img &like, float *buf)
{
    pc_img v = like;
    v.p = (char *)buf;
    v.dtype = PARAC_F32;
    v.esize = 4;
    v.ps = 4LL * like.ch;
    v.rp = v.ps * like.w;
    v.sp = v.rp * like.h;
    return v;
}

__device__ __forceinline__ float pc_load(const char *p, int dtype)
{
    if (dtype == PARAC_F32) return *(const float *)p;
    if (dtype == PARAC_U8) return (float)*(const unsigned char *)p;
    return (float)*(const unsigned short *)p;
}

__device__ __forceinline__ void pc_store(char *p, int dtype, float v)
{
    if (dtype == PARAC_F32) {
        *(float *)p = v;
    } else if (dtype == PARAC_U8) {
        float r = fminf(fmaxf(rintf(v), 0.0f), 255.0f); // NaN -> 0
        *(unsigned char *)p = (unsigned char)r;
    } else {
        float r = fminf(fmaxf(rintf(v), 0.0f), 65535.0f);
        *(unsigned short *)p = (unsigned short)r;
    }
}

// Compile-time element types (u8, u16, f32): no dtype switch in hot loops.
template <typename T> __device__ __forceinline__ float pc_ld(const char *p) { return (float)*(const T *)p; }
template <typename T> __device__ __forceinline__ void pc_st(char *p, float v);
template <> __device__ __forceinline__ void pc_st<float>(char *p, float v) { *(float *)p = v; }
template <> __device__ __forceinline__ void pc_st<unsigned char>(char *p, float v)
{
    *(unsigned char *)p = (unsigned char)fminf(fmaxf(rintf(v), 0.0f), 255.0f);
}
template <> __device__ __forceinline__ void pc_st<unsigned short>(char *p, float v)
{
    *(unsigned short *)p = (unsigned short)fminf(fmaxf(rintf(v), 0.0f), 65535.0f);
}

// Calls f(TI(), TO()) with the element types of dtypes din and dout.
template <typename F> static inline parac_status pc_dispatch_io(int din, int dout, F f)
{
    auto g = [&](auto ti) -> parac_status {
        if (dout == PARAC_U8) return f(ti, (unsigned char)0);
        if (dout == PARAC_U16) return f(ti, (unsigned short)0);
        return f(ti, 0.0f);
    };
    if (din == PARAC_U8) return g((unsigned char)0);
    if (din == PARAC_U16) return g((unsigned short)0);
    return g(0.0f);
}

__device__ __forceinline__ const char *pc_addr(const pc_img &im, int x, int y, int z, int c)
{
    return im.p + z * im.sp + y * im.rp + x * im.ps + (int64_t)c * im.esize;
}

// Index i on an axis of n samples -> 0..n-1, or -1 (constant border): the
// rule every backend shares (filter_border.h).
__host__ __device__ __forceinline__ int pc_map(int i, int n, int mode)
{
    return parac__border_index32(i, n, mode);
}

// Taps in kernel parameter space (constant bank), padded with zeros to a
// multiple of 4 so the inner loops can take them four at a time.
template <int MAXT> struct pc_taps {
    int n; // padded count
    int r; // radius
    float w[MAXT];
};
enum { PC_TAPS_SMALL = 260, PC_TAPS_LARGE = 7800 };

template <int MAXT> static inline int pc_taps_fill(pc_taps<MAXT> *t, const parac__fir1d *k)
{
    int count = 2 * k->radius + 1;
    int n = (count + 3) & ~3;
    if (n > MAXT) return 0;
    t->n = n;
    t->r = k->radius;
    for (int i = 0; i < n; i++) t->w[i] = (i < count && k->taps) ? k->taps[i] : 0.0f;
    if (k->radius == 0 && !k->taps) t->w[0] = 1.0f;
    return 1;
}

static inline int pc_pad4(int taps) { return (taps + 3) & ~3; }

// One output group: N consecutive outputs along a line whose samples are
// `stride` floats apart in shared memory, src[0] = first sample of the
// support of output 0. w: nt taps (nt % 4 == 0). Values beyond the support
// are multiplied by zero taps, so they must be finite (callers zero them).
template <int N, bool VEC>
__device__ __forceinline__ void pc_window(const float *__restrict__ src, int stride,
                                          const float *__restrict__ w, int nt, float acc[N])
{
    float v[N + 4];
#pragma unroll
    for (int j = 0; j < N; j++) acc[j] = 0.0f;
    if (VEC) {
#pragma unroll
        for (int i = 0; i < N; i += 4) {
            float4 q = *(const float4 *)(src + i);
            v[i] = q.x; v[i + 1] = q.y; v[i + 2] = q.z; v[i + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = src[i * stride];
    }
    for (int k0 = 0; k0 < nt; k0 += 4) {
        if (VEC) {
            float4 q = *(const float4 *)(src + N + k0);
            v[N] = q.x; v[N + 1] = q.y; v[N + 2] = q.z; v[N + 3] = q.w;
        } else {
#pragma unroll
            for (int m = 0; m < 4; m++) v[N + m] = src[(N + k0 + m) * stride];
        }
        float4 wq = *(const float4 *)(w + k0);
        float wk[4] = {wq.x, wq.y, wq.z, wq.w};
#pragma unroll
        for (int m = 0; m < 4; m++)
#pragma unroll
            for (int j = 0; j < N; j++) acc[j] = fmaf(wk[m], v[j + m], acc[j]);
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = v[i + 4];
    }
}

// Same, accumulating into acc (several kernel rows: the direct 2D filter).
template <int N>
__device__ __forceinline__ void pc_window_acc(const float *__restrict__ src,
                                              const float *__restrict__ w, int nt, float acc[N])
{
    float v[N + 4];
#pragma unroll
    for (int i = 0; i < N; i += 4) {
        float4 q = *(const float4 *)(src + i);
        v[i] = q.x; v[i + 1] = q.y; v[i + 2] = q.z; v[i + 3] = q.w;
    }
    for (int k0 = 0; k0 < nt; k0 += 4) {
        float4 q = *(const float4 *)(src + N + k0);
        v[N] = q.x; v[N + 1] = q.y; v[N + 2] = q.z; v[N + 3] = q.w;
        float4 wq = *(const float4 *)(w + k0);
        float wk[4] = {wq.x, wq.y, wq.z, wq.w};
#pragma unroll
        for (int m = 0; m < 4; m++)
#pragma unroll
            for (int j = 0; j < N; j++) acc[j] = fmaf(wk[m], v[j + m], acc[j]);
#pragma unroll
        for (int i = 0; i < N; i++) v[i] = v[i + 4];
    }
}

// Load one channel of the tile [x0, x0+lw) x [y0, y0+lh) (image coordinates,
// may lie outside) into s (pitch lw). Samples at local x >= vw or y >= vh are
// zero (beyond the support: they only meet zero taps). Each warp loads whole
// rows; a thread issues RB x CB independent loads before storing any, so
// many loads are in flight (a load-store loop would wait on every load).
template <int NT, int RB, int CB, typename TI = void>
__device__ __forceinline__ void pc_load_tile(float *s, int lw, int lh, int vw, int vh, const pc_img &im,
                                          int x0, int y0, int z, int c, int mode, float cval)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const bool inside = x0 >= 0 && y0 >= 0 && x0 + vw <= im.w && y0 + vh <= im.h;
    const char *plane = im.p + (int64_t)z * im.sp + (int64_t)c * im.esize;
    if constexpr (std::is_same<TI, float>::value || std::is_same<TI, unsigned char>::value) {
        // interior tile of a packed one-channel float (u8) image, aligned:
        // one 16-byte (4-byte) load per 4 samples, 4 rows in flight per thread
        constexpr int VB = 4 * (int)sizeof(TI);
        if (inside && im.ps == (int)sizeof(TI) && im.ch == 1 && (x0 & 3) == 0 && (lw & 3) == 0 &&
            x0 + lw <= im.w && ((uintptr_t)plane & (VB - 1)) == 0 && (im.rp & (VB - 1)) == 0) {
            const int q4 = lw >> 2;
            for (int ly0 = warp; ly0 < lh; ly0 += (NT / 32) * 4)
                for (int q = lane; q < q4; q += 32) {
                    float4 v[4];
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        const int ly = ly0 + u * (NT / 32);
                        v[u] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
                        if (ly < vh) {
                            const char *a = plane + (int64_t)(y0 + ly) * im.rp + (int64_t)(x0 + 4 * q) * sizeof(TI);
                            if constexpr (std::is_same<TI, float>::value) {
                                v[u] = *(const float4 *)a;
                            } else {
                                const uchar4 b = *(const uchar4 *)a;
                                v[u] = make_float4(b.x, b.y, b.z, b.w);
                            }
                        }
                    }
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        const int ly = ly0 + u * (NT / 32);
                        if (ly < lh) {
                            float4 w = v[u];
                            const int lx = 4 * q;
                            if (lx + 0 >= vw) w.x = 0.0f;
                            if (lx + 1 >= vw) w.y = 0.0f;
                            if (lx + 2 >= vw) w.z = 0.0f;
                            if (lx + 3 >= vw) w.w = 0.0f;
                            *(float4 *)(s + ly * lw + lx) = w;
                        }
                    }
                }
            return;
        }
    }
    for (int ly0 = warp; ly0 < lh; ly0 += (NT / 32) * RB)
        for (int lx0 = lane; lx0 < lw; lx0 += 32 * CB) {
            float v[RB][CB];
#pragma unroll
            for (int rb = 0; rb < RB; rb++) {
                const int ly = ly0 + rb * (NT / 32);
                const int my = inside ? y0 + ly : pc_map(y0 + ly, im.h, mode);
                const char *row = plane + (int64_t)(my < 0 ? 0 : my) * im.rp;
#pragma unroll
                for (int cb = 0; cb < CB; cb++) {
                    const int lx = lx0 + cb * 32;
                    float val = 0.0f;
                    if (lx < vw && ly < vh) {
                        const int mx = inside ? x0 + lx : pc_map(x0 + lx, im.w, mode);
                        if (mx < 0 || my < 0) val = cval;
                        else if constexpr (std::is_same<TI, void>::value) val = pc_load(row + (int64_t)mx * im.ps, im.dtype);
                        else val = pc_ld<TI>(row + (int64_t)mx * im.ps);
                    }
                    v[rb][cb] = val;
                }
            }
#pragma unroll
            for (int rb = 0; rb < RB; rb++)
#pragma unroll
                for (int cb = 0; cb < CB; cb++) {
                    const int ly = ly0 + rb * (NT / 32), lx = lx0 + cb * 32;
                    if (ly < lh && lx < lw) s[ly * lw + lx] = v[rb][cb];
                }
        }
}

// Host helpers shared by the method files (filter_cuda_passes.cu).
// Separable passes over an arbitrary view: x pass, and a pass along y or z
// (axis 1 or 2). `tmp` buffers are float images; all queue on `stream`.
parac_status pc_pass_x(const pc_img &src, const pc_img &dst, const parac__fir1d *k,
                       parac__border_rule border, cudaStream_t stream);
parac_status pc_pass_axis(const pc_img &src, const pc_img &dst, int axis, const parac__fir1d *k,
                          parac__border_rule border, cudaStream_t stream);
// Fused x+y pass in one kernel (returns 0 in *done when the radii do not fit).
parac_status pc_pass_xy_fused(const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                              const parac__fir1d *ky, parac__border_rule border,
                              cudaStream_t stream, int *done);
// Float temporaries, stream ordered.
parac_status pc_alloc_float(float **buf, size_t count, cudaStream_t stream);
void pc_free(void *buf, cudaStream_t stream);

#endif
