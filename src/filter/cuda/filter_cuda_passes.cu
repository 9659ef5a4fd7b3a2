// Separable FIR passes on the GPU, shared by the separable, texture (z pass)
// and fft (z pass) methods:
//   - fused x+y kernel: a tile plus its apron is loaded once into shared
//     memory (every thread loads), the x pass writes its result to a second
//     shared buffer, the y pass reads it and writes the output: the image is
//     read once and written once through device memory;
//   - fused x+y rolling strip kernel (radius <= 24): a block walks down a
//     column strip, the x pass once per row into a ring of rows that the y
//     pass reads; picked over the tile kernel by measurement (launch_fused);
//   - x pass and y/z pass kernels for radii too long for the fused tile.
// Each thread computes 8 outputs with a register window fed by 16-byte
// shared loads (x) or conflict-free column loads (y, z).
#include <atomic>

#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

enum { PC_THREADS = 256, PC_N = 8 };
enum { FUSED_TW = 64, FUSED_TH = 64, FUSED_MAX_R = 32 };
enum { ROW_TW = 256, ROW_TH = 8 };
enum { AX_TW = 32 };

parac_status pc_alloc_float(float **buf, size_t count, cudaStream_t stream)
{
    *buf = NULL;
    PARAC_TRY(PARAC_CUDA_MALLOC_ASYNC(buf, count * sizeof(float) + 16, stream));
    return PARAC_OK;
}

void pc_free(void *buf, cudaStream_t stream)
{
    if (buf) (void)cudaFreeAsync(buf, stream);
}

__device__ __forceinline__ void copy_taps(float *dst, const float *src, int n)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) dst[i] = src[i];
}

// ---- fused x+y ---------------------------------------------------------
struct fused_params {
    pc_taps<2 * FUSED_MAX_R + 4> x, y;
};

template <typename TI, typename TO>
__global__ void __launch_bounds__(PC_THREADS)
    fused_xy_kernel(pc_img src, pc_img dst, const __grid_constant__ fused_params tp, int mode,
                    float cval)
{
    extern __shared__ float4 smem4[];
    float *sm = (float *)smem4;
    const int ntx = tp.x.n, nty = tp.y.n, rx = tp.x.r, ry = tp.y.r;
    float *wx = sm, *wy = sm + ntx;
    const int pin = FUSED_TW + ntx, rows = FUSED_TH + nty;
    float *s_in = wy + nty;
    float *s_mid = s_in + rows * pin;
    copy_taps(wx, tp.x.w, ntx);
    copy_taps(wy, tp.y.w, nty);
    const int x0 = blockIdx.x * FUSED_TW, y0 = blockIdx.y * FUSED_TH, z = blockIdx.z;
    for (int c = 0; c < src.ch; c++) {
        pc_load_tile<PC_THREADS, 2, 5, TI>(s_in, pin, rows, FUSED_TW + 2 * rx, FUSED_TH + 2 * ry, src, x0 - rx, y0 - ry, z, c,
                  mode, cval);
        __syncthreads();
        for (int item = threadIdx.x; item < rows * (FUSED_TW / PC_N); item += PC_THREADS) {
            const int row = item / (FUSED_TW / PC_N), g = item % (FUSED_TW / PC_N);
            float acc[PC_N];
            pc_window<PC_N, true>(s_in + row * pin + g * PC_N, 1, wx, ntx, acc);
            float4 *o = (float4 *)(s_mid + row * FUSED_TW + g * PC_N);
            o[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
            o[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
        }
        __syncthreads();
        for (int item = threadIdx.x; item < FUSED_TW * (FUSED_TH / PC_N); item += PC_THREADS) {
            const int col = item % FUSED_TW, g = item / FUSED_TW;
            float acc[PC_N];
            pc_window<PC_N, false>(s_mid + g * PC_N * FUSED_TW + col, FUSED_TW, wy, nty, acc);
            const int x = x0 + col;
            if (x < dst.w) {
                char *o = (char *)pc_addr(dst, x, y0 + g * PC_N, z, c);
#pragma unroll
                for (int j = 0; j < PC_N; j++)
                    if (y0 + g * PC_N + j < dst.h) pc_st<TO>(o + j * dst.rp, acc[j]);
            }
        }
        __syncthreads();
    }
}

// ---- fused x+y with the radius known at compile time ----------------------
// Every loop is unrolled: the taps are constant-bank operands of the FMAs and
// each thread's window (8 outputs + 2R samples) sits in registers, loaded
// with 16-byte shared loads along x. Used for same-type in/out and radii up
// to the largest instance (the generic kernel above takes the rest).
template <int R> struct fixed_taps {
    float x[2 * R + 1], y[2 * R + 1];
};

template <int R, typename T, int TW, int TH>
__global__ void __launch_bounds__(PC_THREADS)
    fused_fixed_kernel(pc_img src, pc_img dst, const __grid_constant__ fixed_taps<R> tp, int mode,
                       float cval)
{
    constexpr int NV = (PC_N + 2 * R + 3) & ~3; // window, rounded to whole float4
    constexpr int PIN = TW + NV - PC_N;   // row pitch: every window load stays inside
    constexpr int ROWS = TH + 2 * R;
    extern __shared__ float4 smem4[];
    float *s_in = (float *)smem4;
    float *s_mid = s_in + ROWS * PIN;
    const int x0 = blockIdx.x * TW, y0 = blockIdx.y * TH, z = blockIdx.z;
    for (int c = 0; c < src.ch; c++) {
        pc_load_tile<PC_THREADS, 2, 5, T>(s_in, PIN, ROWS, TW + 2 * R, ROWS, src, x0 - R, y0 - R, z, c,
                                          mode, cval);
        __syncthreads();
        for (int item = threadIdx.x; item < ROWS * (TW / PC_N); item += PC_THREADS) {
            const int row = item / (TW / PC_N), g = item % (TW / PC_N);
            const float4 *p = (const float4 *)(s_in + row * PIN + g * PC_N);
            float v[NV];
#pragma unroll
            for (int i = 0; i < NV / 4; i++) {
                const float4 q = p[i];
                v[4 * i] = q.x;
                v[4 * i + 1] = q.y;
                v[4 * i + 2] = q.z;
                v[4 * i + 3] = q.w;
            }
            float acc[PC_N];
#pragma unroll
            for (int j = 0; j < PC_N; j++) {
                float a = 0.0f;
#pragma unroll
                for (int k = 0; k <= 2 * R; k++) a = fmaf(tp.x[k], v[j + k], a);
                acc[j] = a;
            }
            float4 *o = (float4 *)(s_mid + row * TW + g * PC_N);
            o[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
            o[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
        }
        __syncthreads();
        for (int item = threadIdx.x; item < TW * (TH / PC_N); item += PC_THREADS) {
            const int col = item % TW, g = item / TW;
            const float *p = s_mid + g * PC_N * TW + col;
            float v[PC_N + 2 * R];
#pragma unroll
            for (int i = 0; i < PC_N + 2 * R; i++) v[i] = p[i * TW];
            const int x = x0 + col;
            if (x < dst.w) {
                char *o = (char *)pc_addr(dst, x, y0 + g * PC_N, z, c);
#pragma unroll
                for (int j = 0; j < PC_N; j++) {
                    float a = 0.0f;
#pragma unroll
                    for (int k = 0; k <= 2 * R; k++) a = fmaf(tp.y[k], v[j + k], a);
                    if (y0 + g * PC_N + j < dst.h) pc_st<T>(o + j * dst.rp, a);
                }
            }
        }
        __syncthreads();
    }
}

// Taps of both axes centred in 2R+1 slots (a shorter kernel gets zero ends).
template <int R>
static fixed_taps<R> fill_fixed_taps(const parac__fir1d *kx, const parac__fir1d *ky)
{
    fixed_taps<R> tp;
    for (int k = 0; k <= 2 * R; k++) {
        const int ix = k - (R - kx->radius), iy = k - (R - ky->radius);
        tp.x[k] = (ix >= 0 && ix <= 2 * kx->radius) ? (kx->taps ? kx->taps[ix] : 1.0f) : 0.0f;
        tp.y[k] = (iy >= 0 && iy <= 2 * ky->radius) ? (ky->taps ? ky->taps[iy] : 1.0f) : 0.0f;
    }
    return tp;
}

template <int R, typename T, int TW, int TH>
static parac_status launch_fixed_tile(const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                                 const parac__fir1d *ky, parac__border_rule border, cudaStream_t stream)
{
    const fixed_taps<R> tp = fill_fixed_taps<R>(kx, ky);
    constexpr int NV = (PC_N + 2 * R + 3) & ~3, PIN = TW + NV - PC_N, ROWS = TH + 2 * R;
    const size_t shmem = sizeof(float) * ((size_t)ROWS * PIN + (size_t)ROWS * TW);
    PARAC_CUDA_TRY(cudaFuncSetAttribute(fused_fixed_kernel<R, T, TW, TH>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
    dim3 grid((src.w + TW - 1) / TW, (src.h + TH - 1) / TH, src.d);
    fused_fixed_kernel<R, T, TW, TH><<<grid, PC_THREADS, shmem, stream>>>(src, dst, tp, (int)border.mode,
                                                                  border.value);
    return PARAC_CUDA_LAUNCH_CHECK();
}

// 64x64 tiles for every radius: tall narrow tiles (32x128, fewer apron rows
// in the x pass) measured slower on an H200 (4096^2 f32: 94 vs 86 us at
// sigma 3, 136 vs 132 us at sigma 5).
template <int R, typename T>
static parac_status launch_fixed(const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                                 const parac__fir1d *ky, parac__border_rule border, cudaStream_t stream)
{
    return launch_fixed_tile<R, T, FUSED_TW, FUSED_TH>(src, dst, kx, ky, border, stream);
}

// ---- fused x+y, rolling down a column strip ------------------------------
// A block owns a strip of ROLL_TW output columns and a chunk of rows, and
// walks down it ROLL_S rows at a time: the next rows (+ horizontal apron) are
// fetched into registers while the current ones are filtered along x into a
// ring of the last 2R + ROLL_S x-pass rows, from which the y pass makes
// ROLL_S output rows. The x pass runs once per row plus 2R warm-up rows per
// chunk, instead of once per tile row plus apron. x pass: 8 outputs per item,
// 16-byte window loads consumed as they arrive; y pass: 4 columns x ROLL_YN
// rows per thread, each 16-byte ring load feeding up to 4 x ROLL_YN FMAs.
// Small batches keep registers and shared memory low: 5 blocks per SM at
// radius 20.
enum { ROLL_NT = 128, ROLL_TW = 128, ROLL_S = 16, ROLL_YN = ROLL_S / 4, ROLL_MINB = 5 };

template <int R> struct roll_geom {
    static constexpr int RX = (R + 3) & ~3;                    // staged columns left of the strip (16-byte aligned)
    static constexpr int D = RX - R;                           // window index of tap 0 of output 0
    static constexpr int NV = (PC_N + D + 2 * R + 3) & ~3;     // x window, whole float4
    static constexpr int PIN = ROLL_TW - PC_N + NV;            // staged columns per row
    static constexpr int Q = PIN / 4;                          // float4 per staged row
    static constexpr int SP = PIN % 8 ? PIN : PIN + 4;         // pitch = 4 mod 8: two rows per phase, no conflicts
    static constexpr int M = (ROLL_S * Q + ROLL_NT - 1) / ROLL_NT; // staged float4 per thread and batch
    static constexpr int RING = (2 * R + ROLL_S + 7) & ~7;     // x-pass rows kept, whole groups of 8
    static constexpr int RB = RING / 8;
    static constexpr int RP = ROLL_TW + 4;                     // ring pitch = 4 mod 8 (x-pass stores)
    static constexpr int NW = (2 * R + ROLL_S - 1) / ROLL_S;   // warm-up batches
    static constexpr size_t SHMEM = sizeof(float) * ((size_t)ROLL_S * SP + (size_t)RING * RP) + sizeof(int) * PIN;
};

// Fetch staged rows [0, n) of a batch (image rows iy0..) into registers.
// Quads inside the image of a packed one-channel image: one 16-byte (f32),
// 8-byte (u16) or 4-byte (u8) load; others element by element through
// colmap (image column of each staged column, -1: constant border).
template <int R, typename T>
__device__ __forceinline__ void roll_fetch(float4 (&buf)[roll_geom<R>::M], const pc_img &im, const char *plane,
                                           const int *colmap, int sx0, int iy0, int n, bool vec, int mode,
                                           float cval)
{
    using G = roll_geom<R>;
    const bool yin = iy0 >= 0 && iy0 + n <= im.h;
#pragma unroll
    for (int i = 0; i < G::M; i++) {
        const int e = threadIdx.x + ROLL_NT * i, row = e / G::Q, cq = e - row * G::Q;
        if (row < n) {
            const int iy = iy0 + row;
            const int my = yin ? iy : pc_map(iy, im.h, mode);
            const char *rowp = plane + (int64_t)(my < 0 ? 0 : my) * im.rp;
            const int ix = sx0 + 4 * cq;
            if (vec && ix >= 0 && ix + 4 <= im.w) {
                const char *a = rowp + (int64_t)ix * sizeof(T);
                if (my < 0) {
                    buf[i] = make_float4(cval, cval, cval, cval);
                } else if constexpr (std::is_same<T, float>::value) {
                    buf[i] = *(const float4 *)a;
                } else if constexpr (std::is_same<T, unsigned char>::value) {
                    const uchar4 b = *(const uchar4 *)a;
                    buf[i] = make_float4(b.x, b.y, b.z, b.w);
                } else {
                    const ushort4 b = *(const ushort4 *)a;
                    buf[i] = make_float4(b.x, b.y, b.z, b.w);
                }
            } else {
                float v[4];
#pragma unroll
                for (int u = 0; u < 4; u++) {
                    const int mx = colmap[4 * cq + u];
                    v[u] = (mx < 0 || my < 0) ? cval : pc_ld<T>(rowp + (int64_t)mx * im.ps);
                }
                buf[i] = make_float4(v[0], v[1], v[2], v[3]);
            }
        }
    }
}

template <int R>
__device__ __forceinline__ void roll_put(float *stage, const float4 (&buf)[roll_geom<R>::M], int n)
{
    using G = roll_geom<R>;
#pragma unroll
    for (int i = 0; i < G::M; i++) {
        const int e = threadIdx.x + ROLL_NT * i, row = e / G::Q, cq = e - row * G::Q;
        if (row < n) *(float4 *)(stage + row * G::SP + 4 * cq) = buf[i];
    }
}

// x pass of staged rows [0, n) into ring rows (a + r) mod RING.
template <int R>
__device__ __forceinline__ void roll_xpass(const float *stage, float *ring, const fixed_taps<R> &tp, int a, int n)
{
    using G = roll_geom<R>;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // 4 groups of 8 columns x 2 rows per quarter warp
    const int g = (lane & 3) | ((lane >> 3) << 2), xr = (lane >> 2) & 1;
    const int pa = a % G::RING;
#pragma unroll 1
    for (int m = 0; m < ROLL_S / 8; m++) {
        const int r = 2 * (warp + 4 * m) + xr;
        if (r >= n) continue;
        const float4 *p = (const float4 *)(stage + r * G::SP + g * PC_N);
        float acc[PC_N];
#pragma unroll
        for (int j = 0; j < PC_N; j++) acc[j] = 0.0f;
#pragma unroll
        for (int i = 0; i < G::NV / 4; i++) {
            const float4 q = p[i];
            const float v[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
                for (int j = 0; j < PC_N; j++) {
                    const int k = 4 * i + u - G::D - j; // taps in ascending order per output
                    if (k >= 0 && k <= 2 * R) acc[j] = fmaf(tp.x[k], v[u], acc[j]);
                }
        }
        int pos = pa + r;
        if (pos >= G::RING) pos -= G::RING;
        float4 *o = (float4 *)(ring + pos * G::RP + g * PC_N);
        o[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
        o[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
    }
}

// y pass: output rows o0 .. o0+YN-1 (o0 = PH mod 8) of columns 4*lane.. from
// x-pass rows o0 .. o0+YN-1+2R, read from the ring in groups of 8 rows.
template <int R, int PH>
__device__ __forceinline__ void roll_ypass(const float *ring, const fixed_taps<R> &tp, int o0,
                                           float (&acc)[ROLL_YN][4])
{
    using G = roll_geom<R>;
    constexpr int NI = ROLL_YN + 2 * R;
#pragma unroll
    for (int j = 0; j < ROLL_YN; j++) acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;
    const int q0 = ((o0 - PH) / 8) % G::RB;
    const float *col = ring + 4 * (threadIdx.x & 31);
#pragma unroll
    for (int b = 0; b < (PH + NI + 7) / 8; b++) {
        int qb = q0 + b;
        if (qb >= G::RB) qb -= G::RB;
        const float *p = col + qb * 8 * G::RP;
#pragma unroll
        for (int jj = 0; jj < 8; jj++) {
            const int i = 8 * b + jj - PH;
            if (i >= 0 && i < NI) {
                const float4 q = *(const float4 *)(p + jj * G::RP);
#pragma unroll
                for (int j = 0; j < ROLL_YN; j++) {
                    const int k = i - j;
                    if (k >= 0 && k <= 2 * R) {
                        acc[j][0] = fmaf(tp.y[k], q.x, acc[j][0]);
                        acc[j][1] = fmaf(tp.y[k], q.y, acc[j][1]);
                        acc[j][2] = fmaf(tp.y[k], q.z, acc[j][2]);
                        acc[j][3] = fmaf(tp.y[k], q.w, acc[j][3]);
                    }
                }
            }
        }
    }
}

template <int R, typename T>
__global__ void __launch_bounds__(ROLL_NT, ROLL_MINB)
    roll_kernel(pc_img src, pc_img dst, const __grid_constant__ fixed_taps<R> tp, int mode, float cval,
                int chunk)
{
    using G = roll_geom<R>;
    static_assert(ROLL_S % 16 == 0 && ROLL_TW == 4 * 32 && ROLL_NT == 128, "thread layout");
    static_assert(ROLL_YN == 4 || ROLL_YN % 8 == 0, "y pass ring groups");
    extern __shared__ float4 smem4[];
    float *stage = (float *)smem4;
    float *ring = stage + ROLL_S * G::SP;
    int *colmap = (int *)(ring + G::RING * G::RP);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int x0 = blockIdx.x * ROLL_TW, y0 = blockIdx.y * chunk, z = blockIdx.z;
    const int rows = min(chunk, src.h - y0);
    const int sx0 = x0 - G::RX;
    const bool xin = sx0 >= 0 && sx0 + G::PIN <= src.w;
    for (int i = tid; i < G::PIN; i += ROLL_NT) colmap[i] = xin ? sx0 + i : pc_map(sx0 + i, src.w, mode);
    // never-produced ring rows only meet outputs that are not stored: keep them finite
    for (int i = tid; i < G::RING * G::RP / 4; i += ROLL_NT) smem4[ROLL_S * G::SP / 4 + i] = make_float4(0, 0, 0, 0);
    constexpr int VB = 4 * (int)sizeof(T);
    const char *splane = src.p + (int64_t)z * src.sp;
    const bool vec = src.ch == 1 && src.ps == (int64_t)sizeof(T) && ((uintptr_t)splane % VB) == 0 &&
                     (src.rp % VB) == 0;
    char *dplane = dst.p + (int64_t)z * dst.sp;
    const bool vst = dst.ch == 1 && dst.ps == (int64_t)sizeof(T) && ((uintptr_t)dplane % VB) == 0 &&
                     (dst.rp % VB) == 0;
    const int nb = G::NW + (rows + ROLL_S - 1) / ROLL_S;
    // batch k: x-pass rows [a, a + n) (x-pass row i = image row y0 - R + i);
    // warm-up batches cover [0, 2R), then batch NW + t feeds y step t
    auto batch_a = [&](int k) { return k < G::NW ? k * ROLL_S : 2 * R + (k - G::NW) * ROLL_S; };
    auto batch_n = [&](int k) { return min(ROLL_S, (k < G::NW ? 2 * R : rows + 2 * R) - batch_a(k)); };
    __syncthreads();
    for (int c = 0; c < src.ch; c++) {
        const char *plane = splane + (int64_t)c * src.esize;
        float4 buf[G::M];
        roll_fetch<R, T>(buf, src, plane, colmap, sx0, y0 - R, batch_n(0), vec, mode, cval);
        roll_put<R>(stage, buf, batch_n(0));
        __syncthreads();
        for (int k = 0; k < nb; k++) {
            if (k + 1 < nb)
                roll_fetch<R, T>(buf, src, plane, colmap, sx0, y0 - R + batch_a(k + 1), batch_n(k + 1), vec, mode,
                                 cval);
            roll_xpass<R>(stage, ring, tp, batch_a(k), batch_n(k));
            __syncthreads();
            if (k + 1 < nb) roll_put<R>(stage, buf, batch_n(k + 1));
            const int o0 = (k - G::NW) * ROLL_S + warp * ROLL_YN; // first output row (chunk relative)
            if (k >= G::NW && o0 < rows) {
                float acc[ROLL_YN][4];
                if (ROLL_YN % 8 == 0 || (warp & 1) == 0) roll_ypass<R, 0>(ring, tp, o0, acc);
                else roll_ypass<R, ROLL_YN % 8>(ring, tp, o0, acc);
                const int x = x0 + 4 * lane;
                if (x < dst.w) {
#pragma unroll
                    for (int j = 0; j < ROLL_YN; j++) {
                        if (o0 + j >= rows) break;
                        char *o = dplane + (int64_t)(y0 + o0 + j) * dst.rp + (int64_t)c * dst.esize;
                        if (vst && x + 3 < dst.w) {
                            o += (int64_t)x * sizeof(T);
                            if constexpr (std::is_same<T, float>::value) {
                                *(float4 *)o = make_float4(acc[j][0], acc[j][1], acc[j][2], acc[j][3]);
                            } else {
                                T t[4];
#pragma unroll
                                for (int u = 0; u < 4; u++) pc_st<T>((char *)&t[u], acc[j][u]);
                                if constexpr (std::is_same<T, unsigned char>::value)
                                    *(uchar4 *)o = make_uchar4(t[0], t[1], t[2], t[3]);
                                else
                                    *(ushort4 *)o = make_ushort4(t[0], t[1], t[2], t[3]);
                            }
                        } else {
#pragma unroll
                            for (int u = 0; u < 4; u++)
                                if (x + u < dst.w) pc_st<T>(o + (int64_t)(x + u) * dst.ps, acc[j][u]);
                        }
                    }
                }
            }
            __syncthreads();
        }
    }
}

// The blocks of roll_kernel<R, T> the device holds at once, asked once per
// device (its shared-memory limit raised on the way): the attribute and
// occupancy queries cost several microseconds of host time on every call.
enum { ROLL_KNOWN_DEVICES = 64 };
template <int R, typename T> static parac_status roll_slots(int64_t *slots)
{
    static std::atomic<int64_t> known[ROLL_KNOWN_DEVICES]; // 0: not asked yet
    int dev = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    const bool cached = dev >= 0 && dev < ROLL_KNOWN_DEVICES;
    if (cached && (*slots = known[dev].load(std::memory_order_acquire)) > 0) return PARAC_OK;
    using G = roll_geom<R>;
    PARAC_CUDA_TRY(cudaFuncSetAttribute(roll_kernel<R, T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)G::SHMEM));
    int sms = 0, per_sm = 0;
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    PARAC_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, roll_kernel<R, T>, ROLL_NT, G::SHMEM));
    *slots = (int64_t)(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
    if (cached) known[dev].store(*slots, std::memory_order_release);
    return PARAC_OK;
}

// One wave: the chunk height is chosen so that strips x chunks fill the
// device's resident blocks once (longer chunks: fewer warm-up rows).
template <int R, typename T> static parac_status roll_chunk(const pc_img &src, int *chunk)
{
    int64_t slots = 0;
    PARAC_TRY((roll_slots<R, T>(&slots)));
    const int64_t strips = (int64_t)((src.w + ROLL_TW - 1) / ROLL_TW) * src.d;
    const int64_t chunks = slots / strips > 1 ? slots / strips : 1;
    const int64_t rows = (src.h + chunks - 1) / chunks;
    *chunk = (int)((rows + ROLL_S - 1) / ROLL_S * ROLL_S);
    return PARAC_OK;
}

template <int R, typename T>
static parac_status launch_roll(const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                                const parac__fir1d *ky, parac__border_rule border, int chunk,
                                cudaStream_t stream)
{
    using G = roll_geom<R>;
    const fixed_taps<R> tp = fill_fixed_taps<R>(kx, ky);
    dim3 grid((src.w + ROLL_TW - 1) / ROLL_TW, (unsigned)((src.h + chunk - 1) / chunk), src.d);
    roll_kernel<R, T><<<grid, ROLL_NT, G::SHMEM, stream>>>(src, dst, tp, (int)border.mode, border.value, chunk);
    return PARAC_CUDA_LAUNCH_CHECK();
}

// Rolling strip or 64x64 tile, by measurement on an H200 (median ms, tile vs
// strip). The tile kernel wins where a chunk is shorter than the radius, so
// that the 2R warm-up rows more than double the x pass (1024^2 f32 sigma 5:
// 0.0198 vs 0.0210), and on integer images of many pixels at R <= 4, where
// the element conversions rather than the taps bound the strip kernel
// (sigma 1 u8: 4096^2 0.0604 vs 0.0681, 8192^2 0.200 vs 0.259; at 1024^2,
// with short chunks, the strip wins: 0.0152 vs 0.0113).
template <int R, typename T>
static parac_status launch_fused(const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                                 const parac__fir1d *ky, parac__border_rule border, cudaStream_t stream)
{
    int chunk = 0;
    const parac_status st = roll_chunk<R, T>(src, &chunk);
    if (st != PARAC_OK) return st;
    const bool integer = !std::is_same<T, float>::value;
    if (chunk < R || (integer && R <= 4 && chunk >= 64))
        return launch_fixed<R, T>(src, dst, kx, ky, border, stream);
    return launch_roll<R, T>(src, dst, kx, ky, border, chunk, stream);
}

// Instances: radii up to 24 (sigma <= 6 with the default truncate).
template <typename T>
static parac_status dispatch_fixed(int r, const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                                   const parac__fir1d *ky, parac__border_rule b, cudaStream_t stream)
{
#define PC_FIXED(RR) \
    if (r <= RR) return launch_fused<RR, T>(src, dst, kx, ky, b, stream);
    PC_FIXED(1) PC_FIXED(2) PC_FIXED(3) PC_FIXED(4) PC_FIXED(5) PC_FIXED(6) PC_FIXED(8) PC_FIXED(10)
    PC_FIXED(12) PC_FIXED(14) PC_FIXED(16) PC_FIXED(20) PC_FIXED(24)
#undef PC_FIXED
    return PARAC_ERR_INTERNAL;
}
enum { FIXED_MAX_R = 24 };

parac_status pc_pass_xy_fused(const pc_img &src, const pc_img &dst, const parac__fir1d *kx,
                              const parac__fir1d *ky, parac__border_rule border,
                              cudaStream_t stream, int *done)
{
    *done = 0;
    const int rmax = kx->radius > ky->radius ? kx->radius : ky->radius;
    if (rmax <= FIXED_MAX_R && src.dtype == dst.dtype && src.d <= 65535 &&
        (src.h + 63) / 64 <= 65535) {
        parac_status st;
        if (src.dtype == PARAC_F32) st = dispatch_fixed<float>(rmax, src, dst, kx, ky, border, stream);
        else if (src.dtype == PARAC_U8) st = dispatch_fixed<unsigned char>(rmax, src, dst, kx, ky, border, stream);
        else st = dispatch_fixed<unsigned short>(rmax, src, dst, kx, ky, border, stream);
        *done = st == PARAC_OK;
        return st;
    }
    if (kx->radius > FUSED_MAX_R || ky->radius > FUSED_MAX_R) return PARAC_OK;
    fused_params tp;
    if (!pc_taps_fill(&tp.x, kx) || !pc_taps_fill(&tp.y, ky)) return PARAC_OK;
    const int pin = FUSED_TW + tp.x.n, rows = FUSED_TH + tp.y.n;
    const size_t shmem = sizeof(float) * ((size_t)tp.x.n + tp.y.n + (size_t)rows * pin +
                                          (size_t)rows * FUSED_TW);
    if (src.d > 65535) return PARAC_OK;
    dim3 grid((src.w + FUSED_TW - 1) / FUSED_TW, (src.h + FUSED_TH - 1) / FUSED_TH, src.d);
    if (grid.y > 65535) return PARAC_OK;
    PARAC_TRY(pc_dispatch_io(src.dtype, dst.dtype, [&](auto ti, auto to) -> parac_status {
        using TI = decltype(ti);
        using TO = decltype(to);
        PARAC_CUDA_TRY(cudaFuncSetAttribute(fused_xy_kernel<TI, TO>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        fused_xy_kernel<TI, TO><<<grid, PC_THREADS, shmem, stream>>>(src, dst, tp, (int)border.mode,
                                                                     border.value);
        return PARAC_CUDA_LAUNCH_CHECK();
    }));
    *done = 1;
    return PARAC_OK;
}

// ---- x pass ------------------------------------------------------------
template <int MAXT, typename TI, typename TO>
__global__ void __launch_bounds__(PC_THREADS)
    pass_x_kernel(pc_img src, pc_img dst, const __grid_constant__ pc_taps<MAXT> tp, int mode,
                  float cval, int ytiles)
{
    extern __shared__ float4 smem4[];
    float *sm = (float *)smem4;
    const int nt = tp.n, r = tp.r, pin = ROW_TW + nt;
    float *w = sm, *s_in = sm + nt;
    copy_taps(w, tp.w, nt);
    const int x0 = blockIdx.x * ROW_TW;
    for (int t = blockIdx.y; t < ytiles * src.d; t += gridDim.y) {
        const int y0 = (t % ytiles) * ROW_TH, z = t / ytiles;
        for (int c = 0; c < src.ch; c++) {
            // rows beyond the image are mapped too (harmless) but never stored
            pc_load_tile<PC_THREADS, 1, 8, TI>(s_in, pin, ROW_TH, ROW_TW + 2 * r, ROW_TH, src, x0 - r, y0, z, c, mode, cval);
            __syncthreads();
            for (int item = threadIdx.x; item < ROW_TH * (ROW_TW / PC_N); item += PC_THREADS) {
                const int row = item / (ROW_TW / PC_N), g = item % (ROW_TW / PC_N);
                const int y = y0 + row;
                float acc[PC_N];
                pc_window<PC_N, true>(s_in + row * pin + g * PC_N, 1, w, nt, acc);
                if (y < dst.h) {
                    char *o = (char *)pc_addr(dst, x0 + g * PC_N, y, z, c);
#pragma unroll
                    for (int j = 0; j < PC_N; j++)
                        if (x0 + g * PC_N + j < dst.w) pc_st<TO>(o + j * dst.ps, acc[j]);
                }
            }
            __syncthreads();
        }
    }
}

template <int MAXT>
static parac_status launch_pass_x(const pc_img &src, const pc_img &dst, const parac__fir1d *k,
                                  parac__border_rule border, cudaStream_t stream)
{
    pc_taps<MAXT> tp;
    if (!pc_taps_fill(&tp, k))
        return parac__fail(PARAC_ERR_INTERNAL, "separable filter: %d taps do not fit", 2 * k->radius + 1);
    const size_t shmem = sizeof(float) * ((size_t)tp.n + (size_t)ROW_TH * (ROW_TW + tp.n));
    int dev = 0, maxsh = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&maxsh, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (shmem > (size_t)maxsh)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "separable filter on CUDA: x radius %d needs %zu bytes of shared memory, "
                           "the device has %d; use method fft",
                           k->radius, shmem, maxsh);
    const int ytiles = (src.h + ROW_TH - 1) / ROW_TH;
    int64_t ty = (int64_t)ytiles * src.d;
    dim3 grid((src.w + ROW_TW - 1) / ROW_TW, (unsigned)(ty > 65535 ? 65535 : ty));
    return pc_dispatch_io(src.dtype, dst.dtype, [&](auto ti, auto to) -> parac_status {
        using TI = decltype(ti);
        using TO = decltype(to);
        PARAC_CUDA_TRY(cudaFuncSetAttribute(pass_x_kernel<MAXT, TI, TO>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        pass_x_kernel<MAXT, TI, TO><<<grid, PC_THREADS, shmem, stream>>>(src, dst, tp, (int)border.mode,
                                                                         border.value, ytiles);
        return PARAC_CUDA_LAUNCH_CHECK();
    });
}

parac_status pc_pass_x(const pc_img &src, const pc_img &dst, const parac__fir1d *k,
                       parac__border_rule border, cudaStream_t stream)
{
    const int n = pc_pad4(2 * k->radius + 1);
    if (n <= PC_TAPS_SMALL) return launch_pass_x<PC_TAPS_SMALL>(src, dst, k, border, stream);
    if (n <= PC_TAPS_LARGE) return launch_pass_x<PC_TAPS_LARGE>(src, dst, k, border, stream);
    return parac__fail(PARAC_ERR_UNSUPPORTED,
                       "separable filter on CUDA: radius %d is longer than %d taps; use method fft",
                       k->radius, (int)PC_TAPS_LARGE);
}

// ---- y or z pass -------------------------------------------------------
// Columns are element columns (x * channels + c); `n` samples along the axis
// `astride` bytes apart; `outer` lines of columns `ostride` bytes apart.
struct axis_geom {
    int n, outer, cols;
    int64_t src_astride, src_ostride, dst_astride, dst_ostride;
};

template <int MAXT, typename TI, typename TO>
__global__ void __launch_bounds__(PC_THREADS)
    pass_axis_kernel(pc_img src, pc_img dst, axis_geom g, const __grid_constant__ pc_taps<MAXT> tp,
                     int mode, float cval, int tl)
{
    extern __shared__ float4 smem4[];
    float *sm = (float *)smem4;
    const int nt = tp.n, r = tp.r, rows = tl + nt;
    float *w = sm, *s = sm + nt;
    copy_taps(w, tp.w, nt);
    const int e0 = blockIdx.x * AX_TW, a0 = blockIdx.y * tl;
    const int tid = threadIdx.x;
    for (int o = blockIdx.z; o < g.outer; o += gridDim.z) {
        // load (tl + nt) x 32 elements, 8 rows per thread in flight
        {
            const int lx = tid & 31, e = e0 + lx;
            const bool col_ok = e < g.cols;
            const int x = col_ok ? e / src.ch : 0, c = col_ok ? e % src.ch : 0;
            const char *base = src.p + o * g.src_ostride + (int64_t)x * src.ps + (int64_t)c * src.esize;
            const bool inside = a0 - r >= 0 && a0 - r + tl + 2 * r <= g.n;
            for (int ly0 = tid >> 5; ly0 < rows; ly0 += PC_THREADS / 32 * 8) {
                float v[8];
#pragma unroll
                for (int u = 0; u < 8; u++) {
                    const int ly = ly0 + u * (PC_THREADS / 32);
                    float val = 0.0f;
                    if (col_ok && ly < tl + 2 * r) {
                        const int ma = inside ? a0 - r + ly : pc_map(a0 - r + ly, g.n, mode);
                        val = ma < 0 ? cval : pc_ld<TI>(base + ma * g.src_astride);
                    }
                    v[u] = val;
                }
#pragma unroll
                for (int u = 0; u < 8; u++) {
                    const int ly = ly0 + u * (PC_THREADS / 32);
                    if (ly < rows) s[ly * AX_TW + lx] = v[u];
                }
            }
        }
        __syncthreads();
        for (int item = tid; item < AX_TW * (tl / PC_N); item += PC_THREADS) {
            const int col = item % AX_TW, gi = item / AX_TW;
            const int e = e0 + col;
            float acc[PC_N];
            pc_window<PC_N, false>(s + gi * PC_N * AX_TW + col, AX_TW, w, nt, acc);
            if (e < g.cols) {
                const int x = e / dst.ch, c = e % dst.ch;
                char *base = dst.p + o * g.dst_ostride + (int64_t)x * dst.ps + (int64_t)c * dst.esize;
#pragma unroll
                for (int j = 0; j < PC_N; j++) {
                    const int a = a0 + gi * PC_N + j;
                    if (a < g.n) pc_st<TO>(base + a * g.dst_astride, acc[j]);
                }
            }
        }
        __syncthreads();
    }
}

template <int MAXT>
static parac_status launch_pass_axis(const pc_img &src, const pc_img &dst, const axis_geom &g,
                                     const parac__fir1d *k, parac__border_rule border,
                                     cudaStream_t stream)
{
    pc_taps<MAXT> tp;
    if (!pc_taps_fill(&tp, k))
        return parac__fail(PARAC_ERR_INTERNAL, "separable filter: %d taps do not fit", 2 * k->radius + 1);
    int dev = 0, maxsh = 0;
    PARAC_CUDA_TRY(cudaGetDevice(&dev));
    PARAC_CUDA_TRY(cudaDeviceGetAttribute(&maxsh, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    // longer tiles for longer kernels (less apron per output), within shared memory
    int tl = k->radius <= 16 ? 64 : k->radius <= 64 ? 128 : 256;
    size_t shmem = 0;
    for (;; tl /= 2) {
        shmem = sizeof(float) * ((size_t)tp.n + (size_t)AX_TW * (tl + tp.n));
        if (shmem <= (size_t)maxsh || tl <= PC_N) break;
    }
    if (shmem > (size_t)maxsh)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "separable filter on CUDA: radius %d needs %zu bytes of shared memory, "
                           "the device has %d; use method fft",
                           k->radius, shmem, maxsh);

    dim3 grid((g.cols + AX_TW - 1) / AX_TW, (g.n + tl - 1) / tl,
              g.outer > 65535 ? 65535 : g.outer);
    if (grid.y > 65535)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "separable filter on CUDA: axis of %d samples too long",
                           g.n);
    return pc_dispatch_io(src.dtype, dst.dtype, [&](auto ti, auto to) -> parac_status {
        using TI = decltype(ti);
        using TO = decltype(to);
        PARAC_CUDA_TRY(cudaFuncSetAttribute(pass_axis_kernel<MAXT, TI, TO>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shmem));
        pass_axis_kernel<MAXT, TI, TO><<<grid, PC_THREADS, shmem, stream>>>(src, dst, g, tp, (int)border.mode,
                                                                            border.value, tl);
        return PARAC_CUDA_LAUNCH_CHECK();
    });
}

parac_status pc_pass_axis(const pc_img &src, const pc_img &dst, int axis, const parac__fir1d *k,
                          parac__border_rule border, cudaStream_t stream)
{
    axis_geom g;
    g.cols = src.w * src.ch;
    if (axis == 1) {
        g.n = src.h;
        g.outer = src.d;
        g.src_astride = src.rp;
        g.src_ostride = src.sp;
        g.dst_astride = dst.rp;
        g.dst_ostride = dst.sp;
    } else {
        g.n = src.d;
        g.outer = src.h;
        g.src_astride = src.sp;
        g.src_ostride = src.rp;
        g.dst_astride = dst.sp;
        g.dst_ostride = dst.rp;
    }
    const int n = pc_pad4(2 * k->radius + 1);
    if (n <= PC_TAPS_SMALL) return launch_pass_axis<PC_TAPS_SMALL>(src, dst, g, k, border, stream);
    if (n <= PC_TAPS_LARGE) return launch_pass_axis<PC_TAPS_LARGE>(src, dst, g, k, border, stream);
    return parac__fail(PARAC_ERR_UNSUPPORTED,
                       "separable filter on CUDA: radius %d is longer than %d taps; use method fft",
                       k->radius, (int)PC_TAPS_LARGE);
}
