// Methods "recursive", "deriche2" (parallel sums of 2nd-order sections) and
// "yvv" (3rd-order cascade) on CUDA. Forms, coefficients and the border rule
// are those of iir_coefs.h; the CPU reference is iir_cpu.c.
//
// Parallel form, block-parallel along each line (after Nehab et al. 2011):
// the extended line is cut into segments of IIR_L samples, one thread per
// (line, segment).
//   1. summary: every segment runs each section from a zero state and keeps
//      its causal tail (last 2 outputs) and anticausal head (first 2);
//   2. carry: one thread per (line, section) walks the segments and turns the
//      summaries into the true incoming states, using the 2x2 matrix that
//      carries a state across IIR_L samples of the homogeneous recursion;
//   3. final: every segment reruns the sections from its true states and
//      writes causal + anticausal.
// Lines along y and z are element columns: a warp's loads are coalesced.
// Lines along x (rows) are staged through shared memory by the warp: the
// warp reads 32 samples of one row at a time (coalesced) and each thread
// then reads its own row from the staged block; no transposes.
// The cascade (yvv, kept for reproduction) runs one thread per line.
#include <math.h>

#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

enum { IIR_L = 32, IIR_WARPS = 8 };

struct iir_axis {
    parac__iir1d f;
    float T[2][4]; // per section: carry matrix [[t00, t01], [t10, t11]] row-major
    int axis, n, pad, mode, nseg, nlines, ch, ecols;
    float cval;
};

// Start of line l along the axis, and the step between its samples.
__device__ __forceinline__ const char *line_at(const pc_img &im, const iir_axis &a, int l,
                                               int64_t *step)
{
    if (a.axis == 0) {
        const int c = l % im.ch, r = l / im.ch, y = r % im.h, z = r / im.h;
        *step = im.ps;
        return im.p + (int64_t)z * im.sp + (int64_t)y * im.rp + (int64_t)c * im.esize;
    }
    const int e = l % a.ecols, o = l / a.ecols, x = e / im.ch, c = e % im.ch;
    const int64_t base = (int64_t)x * im.ps + (int64_t)c * im.esize;
    if (a.axis == 1) {
        *step = im.rp;
        return im.p + (int64_t)o * im.sp + base;
    }
    *step = im.sp;
    return im.p + (int64_t)o * im.rp + base;
}

// Sample at extended-line position p (any integer): the border rule inside
// [-pad, n+pad), the end samples (or the constant) beyond.
__device__ __forceinline__ float ext_sample(const char *line, int64_t step, int dtype, int p,
                                            const iir_axis &a)
{
    if (a.mode == PARAC_BORDER_CONSTANT) {
        if (p < 0 || p >= a.n) return a.cval;
        return pc_load(line + p * step, dtype);
    }
    const int q = p < -a.pad ? -a.pad : (p >= a.n + a.pad ? a.n + a.pad - 1 : p);
    return pc_load(line + (int64_t)pc_map(q, a.n, a.mode) * step, dtype);
}

// Load the IIR_L samples of segment `seg` of this thread's line into v, plus
// the two samples after it and the one before. Axis 0 stages rows through
// the warp's shared block.
__device__ __forceinline__ void load_segment(const pc_img &src, const iir_axis &a, int line,
                                             int seg, float (*sb)[IIR_L + 1], float v[IIR_L],
                                             float *before, float *after1, float *after2)
{
    const int start = -a.pad + seg * IIR_L;
    const bool live = line < a.nlines && seg < a.nseg;
    int64_t step = 0;
    const char *base = live ? line_at(src, a, line, &step) : NULL;
    if (a.axis == 0) {
        // each lane finds its own row, then the warp walks the 32 rows
        const int lane = threadIdx.x & 31, line0 = line - lane;
        const unsigned long long mine = (unsigned long long)(uintptr_t)base;
        float val[32]; // all 32 loads in flight before the first store
#pragma unroll
        for (int i = 0; i < 32; i++) {
            const int li = line0 + i;
            const char *b = (const char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, i);
            val[i] = (li < a.nlines && seg < a.nseg) ? ext_sample(b, src.ps, src.dtype, start + lane, a) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < 32; i++) sb[i][lane] = val[i];
        __syncwarp();
#pragma unroll
        for (int j = 0; j < IIR_L; j++) v[j] = sb[lane][j];
        __syncwarp();
    } else {
#pragma unroll
        for (int j = 0; j < IIR_L; j++) v[j] = live ? ext_sample(base, step, src.dtype, start + j, a) : 0.0f;
    }
    if (live) {
        *before = ext_sample(base, step, src.dtype, start - 1, a);
        *after1 = ext_sample(base, step, src.dtype, start + IIR_L, a);
        *after2 = ext_sample(base, step, src.dtype, start + IIR_L + 1, a);
    } else {
        *before = *after1 = *after2 = 0.0f;
    }
}

// One segment of IIR_L samples through every section: the causal run (j
// upwards) and the anticausal run (k downwards) are independent chains, run
// together in one unrolled loop. p1/p2 and m1/m2 carry the states in and out;
// with ACCUMULATE the outputs are added into y.
template <int S, bool ACCUMULATE>
__device__ __forceinline__ void run_segment(const iir_axis &a, const float (&v)[IIR_L], float xb,
                                            float xa1, float xa2, float (&p1)[S], float (&p2)[S],
                                            float (&m1)[S], float (&m2)[S], float (&y)[IIR_L])
{
#pragma unroll
    for (int j = 0; j < IIR_L; j++) {
        const int k = IIR_L - 1 - j;
        const float xp = j == 0 ? xb : v[j - 1];
        const float xm1 = k == IIR_L - 1 ? xa1 : v[k + 1];
        const float xm2 = k == IIR_L - 1 ? xa2 : (k == IIR_L - 2 ? xa1 : v[k + 2]);
#pragma unroll
        for (int s = 0; s < S; s++) {
            const parac__iir_section &q = a.f.sec[s];
            const float p = q.b0 * v[j] + q.b1 * xp - q.a1 * p1[s] - q.a2 * p2[s];
            p2[s] = p1[s];
            p1[s] = p;
            const float m = q.c1 * xm1 + q.c2 * xm2 - q.a1 * m1[s] - q.a2 * m2[s];
            m2[s] = m1[s];
            m1[s] = m;
            if (ACCUMULATE) {
                y[j] += p;
                y[k] += m;
            }
        }
    }
}

// summary[((seg * S + s) * 4 + q) * nlines + line]: q 0,1 causal tail
// (p[L-1], p[L-2]); q 2,3 anticausal head (m[0], m[1]).
template <int S>
__global__ void __launch_bounds__(32 * IIR_WARPS)
    iir_summary_kernel(pc_img src, const __grid_constant__ iir_axis a, float *summary)
{
    __shared__ float stage[IIR_WARPS][32][IIR_L + 1];
    const int warp = threadIdx.x >> 5;
    const int line = blockIdx.x * 32 + (threadIdx.x & 31), seg = blockIdx.y * IIR_WARPS + warp;
    float v[IIR_L], xb, xa1, xa2;
    load_segment(src, a, line, seg, stage[warp], v, &xb, &xa1, &xa2);
    if (line >= a.nlines || seg >= a.nseg) return;
    // zero-state run: the segment's own contribution to the carries
    float p1[S], p2[S], m1[S], m2[S], unused[IIR_L];
#pragma unroll
    for (int s = 0; s < S; s++) p1[s] = p2[s] = m1[s] = m2[s] = 0.0f;
    run_segment<S, false>(a, v, xb, xa1, xa2, p1, p2, m1, m2, unused);
#pragma unroll
    for (int s = 0; s < S; s++) {
        float *o = summary + ((size_t)(seg * S + s) * 4) * a.nlines + line;
        o[0] = p1[s];
        o[(size_t)a.nlines] = p2[s];
        o[2 * (size_t)a.nlines] = m1[s];
        o[3 * (size_t)a.nlines] = m2[s];
    }
}

// Replaces the summaries by incoming states: q 0,1 = (p[-1], p[-2]) before
// the segment, q 2,3 = (m[L], m[L+1]) after it.
__global__ void iir_carry_kernel(pc_img src, const __grid_constant__ iir_axis a, float *summary)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int S = a.f.n_sections;
    if (t >= a.nlines * S * 2) return;
    const int line = t % a.nlines, s = (t / a.nlines) % S, dir = t / (a.nlines * S);
    const parac__iir_section q = a.f.sec[s];
    int64_t step;
    const char *base = line_at(src, a, line, &step);
    const float vfirst = ext_sample(base, step, src.dtype, -a.pad - 1, a);
    const float vlast = ext_sample(base, step, src.dtype, a.n + a.pad, a);
    const float *T = a.T[s];
    const size_t nl = (size_t)a.nlines;
    // summaries are read CARRY_BATCH segments at a time, all loads in flight
    // before the (serial) recurrence over them
    enum { CARRY_BATCH = 16 };
    if (dir == 1) goto anticausal;
    {
    float c1 = parac__iir_causal_steady(&q, vfirst), c2 = c1;
    for (int k0 = 0; k0 < a.nseg; k0 += CARRY_BATCH) {
        float z1[CARRY_BATCH], z2[CARRY_BATCH];
#pragma unroll
        for (int u = 0; u < CARRY_BATCH; u++) {
            const int k = k0 + u;
            const float *o = summary + ((size_t)(k * S + s) * 4) * nl + line;
            z1[u] = k < a.nseg ? o[0] : 0.0f;
            z2[u] = k < a.nseg ? o[nl] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < CARRY_BATCH; u++) {
            const int k = k0 + u;
            if (k < a.nseg) {
                float *o = summary + ((size_t)(k * S + s) * 4) * nl + line;
                o[0] = c1;
                o[nl] = c2;
                const float n1 = z1[u] + T[0] * c1 + T[1] * c2, n2 = z2[u] + T[2] * c1 + T[3] * c2;
                c1 = n1;
                c2 = n2;
            }
        }
    }
    return;
    }
anticausal:
    float m1 = parac__iir_anticausal_steady(&q, vlast), m2 = m1;
    for (int k0 = a.nseg - 1; k0 >= 0; k0 -= CARRY_BATCH) {
        float z1[CARRY_BATCH], z2[CARRY_BATCH];
#pragma unroll
        for (int u = 0; u < CARRY_BATCH; u++) {
            const int k = k0 - u;
            const float *o = summary + ((size_t)(k * S + s) * 4 + 2) * nl + line;
            z1[u] = k >= 0 ? o[0] : 0.0f;
            z2[u] = k >= 0 ? o[nl] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < CARRY_BATCH; u++) {
            const int k = k0 - u;
            if (k >= 0) {
                float *o = summary + ((size_t)(k * S + s) * 4 + 2) * nl + line;
                o[0] = m1;
                o[nl] = m2;
                const float n1 = z1[u] + T[0] * m1 + T[1] * m2, n2 = z2[u] + T[2] * m1 + T[3] * m2;
                m1 = n1;
                m2 = n2;
            }
        }
    }
}

template <int S>
__global__ void __launch_bounds__(32 * IIR_WARPS)
    iir_final_kernel(pc_img src, pc_img dst, const __grid_constant__ iir_axis a,
                     const float *summary)
{
    __shared__ float stage[IIR_WARPS][32][IIR_L + 1];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int line = blockIdx.x * 32 + lane, seg = blockIdx.y * IIR_WARPS + warp;
    float v[IIR_L], y[IIR_L], xb, xa1, xa2;
    load_segment(src, a, line, seg, stage[warp], v, &xb, &xa1, &xa2);
    const bool live = line < a.nlines && seg < a.nseg;
#pragma unroll
    for (int j = 0; j < IIR_L; j++) y[j] = 0.0f;
    if (live) {
        float p1[S], p2[S], m1[S], m2[S];
#pragma unroll
        for (int s = 0; s < S; s++) {
            const float *o = summary + ((size_t)(seg * S + s) * 4) * a.nlines + line;
            p1[s] = o[0];
            p2[s] = o[(size_t)a.nlines];
            m1[s] = o[2 * (size_t)a.nlines];
            m2[s] = o[3 * (size_t)a.nlines];
        }
        run_segment<S, true>(a, v, xb, xa1, xa2, p1, p2, m1, m2, y);
    }
    const int start = -a.pad + seg * IIR_L;
    if (a.axis == 0) {
#pragma unroll
        for (int j = 0; j < IIR_L; j++) stage[warp][lane][j] = y[j];
        __syncwarp();
        const int line0 = line - lane, p = start + lane;
        int64_t st = 0;
        const unsigned long long mine =
            line < a.nlines ? (unsigned long long)(uintptr_t)line_at(dst, a, line, &st) : 0ull;
        for (int i = 0; i < 32; i++) {
            char *b = (char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, i);
            if (line0 + i < a.nlines && seg < a.nseg && p >= 0 && p < a.n)
                pc_store(b + (int64_t)p * dst.ps, dst.dtype, stage[warp][i][lane]);
        }
    } else if (live) {
        int64_t st;
        char *b = (char *)line_at(dst, a, line, &st);
#pragma unroll
        for (int j = 0; j < IIR_L; j++) {
            const int p = start + j;
            if (p >= 0 && p < a.n) pc_store(b + (int64_t)p * st, dst.dtype, y[j]);
        }
    }
}

// One step of the 3rd-order recursion, rounded exactly as the CPU reference
// evaluates it (products rounded, sums left to right, no fused multiply-add):
// in float32 this direct-form filter is sensitive enough at large sigma that
// contraction alone moves results by more than 1e-4.
__device__ __forceinline__ float yvv_step(float B, float x, float b0, float w1, float b1, float w2,
                                          float b2, float w3)
{
    float acc = __fadd_rn(__fmul_rn(B, x), __fmul_rn(b0, w1));
    acc = __fadd_rn(acc, __fmul_rn(b1, w2));
    return __fadd_rn(acc, __fmul_rn(b2, w3));
}

// Cascade (yvv): one thread per line; the forward result of the extended
// line is kept in `work` (sample i of line l at work[i * nlines + l]).
__global__ void iir_cascade_kernel(pc_img src, pc_img dst, const __grid_constant__ iir_axis a,
                                   float *work)
{
    const int line = blockIdx.x * blockDim.x + threadIdx.x;
    if (line >= a.nlines) return;
    int64_t st, dt;
    const char *sb = line_at(src, a, line, &st);
    char *db = (char *)line_at(dst, a, line, &dt);
    const int ne = a.n + 2 * a.pad;
    const size_t nl = (size_t)a.nlines;
    const float B = a.f.B, b0 = a.f.b[0], b1 = a.f.b[1], b2 = a.f.b[2];
    const float v0 = ext_sample(sb, st, src.dtype, -a.pad - 1, a);
    const float vl = ext_sample(sb, st, src.dtype, a.n + a.pad, a);
    float w1 = v0, w2 = v0, w3 = v0;
    for (int i = 0; i < ne; i++) {
        const float w = yvv_step(B, ext_sample(sb, st, src.dtype, i - a.pad, a), b0, w1, b1, w2, b2, w3);
        work[i * nl + line] = w;
        w3 = w2;
        w2 = w1;
        w1 = w;
    }
    float y[3];
    {
        // parac__iir_yvv_backward_init, rounded as on the CPU
        const float d1 = __fsub_rn(w1, vl), d2 = __fsub_rn(w2, vl), d3 = __fsub_rn(w3, vl);
        for (int r = 0; r < 3; r++) {
            float m = __fadd_rn(__fmul_rn(a.f.M[3 * r], d1), __fmul_rn(a.f.M[3 * r + 1], d2));
            m = __fadd_rn(m, __fmul_rn(a.f.M[3 * r + 2], d3));
            y[r] = __fadd_rn(__fmul_rn(a.f.B, m), vl);
        }
    }
    w1 = y[0];
    w2 = y[1];
    w3 = y[2];
    if (ne - 1 - a.pad < a.n && ne - 1 - a.pad >= 0)
        pc_store(db + (int64_t)(ne - 1 - a.pad) * dt, dst.dtype, y[0]);
    for (int i = ne - 2; i >= 0; i--) {
        const float yy = yvv_step(B, work[i * nl + line], b0, w1, b1, w2, b2, w3);
        w3 = w2;
        w2 = w1;
        w1 = yy;
        const int p = i - a.pad;
        if (p >= 0 && p < a.n) pc_store(db + (int64_t)p * dt, dst.dtype, yy);
    }
}

// 2x2 matrix carrying (p[-1], p[-2]) across IIR_L steps of p = -a1 p1 - a2 p2.
static void carry_matrix(const parac__iir_section *q, float T[4])
{
    for (int col = 0; col < 2; col++) {
        double p1 = col == 0 ? 1.0 : 0.0, p2 = col == 0 ? 0.0 : 1.0;
        for (int j = 0; j < IIR_L; j++) {
            const double p = -(double)q->a1 * p1 - (double)q->a2 * p2;
            p2 = p1;
            p1 = p;
        }
        T[col] = (float)p1;     // row 0: p[L-1]
        T[2 + col] = (float)p2; // row 1: p[L-2]
    }
}

static parac_status iir_pass(const pc_img &src, const pc_img &dst, int axis, const parac__iir1d *f,
                             parac__border_rule b, cudaStream_t stream)
{
    iir_axis a;
    memset(&a, 0, sizeof a);
    a.f = *f;
    a.axis = axis;
    a.ch = src.ch;
    a.ecols = src.w * src.ch;
    a.n = axis == 0 ? src.w : axis == 1 ? src.h : src.d;
    a.nlines = (int)((int64_t)src.w * src.h * src.d * src.ch / a.n);
    a.mode = (int)b.mode;
    a.cval = b.value;
    a.pad = (b.mode == PARAC_BORDER_REPLICATE || b.mode == PARAC_BORDER_CONSTANT) ? 0 : f->pad;
    const int ne = a.n + 2 * a.pad;
    a.nseg = (ne + IIR_L - 1) / IIR_L;
    if (f->form == PARAC__IIR_CASCADE3) {
        float *work = NULL;
        PARAC_TRY(pc_alloc_float(&work, (size_t)ne * a.nlines, stream));
        iir_cascade_kernel<<<(a.nlines + 127) / 128, 128, 0, stream>>>(src, dst, a, work);
        parac_status st = PARAC_CUDA_LAUNCH_CHECK();
        pc_free(work, stream);
        return st;
    }
    for (int s = 0; s < f->n_sections; s++) carry_matrix(&f->sec[s], a.T[s]);
    float *summary = NULL;
    PARAC_TRY(pc_alloc_float(&summary, (size_t)a.nseg * f->n_sections * 4 * a.nlines, stream));
    dim3 grid((a.nlines + 31) / 32, (a.nseg + IIR_WARPS - 1) / IIR_WARPS);
    parac_status st = PARAC_OK;
    if (grid.y > 65535) st = parac__fail(PARAC_ERR_UNSUPPORTED, "recursive filter on CUDA: line too long");
    if (!st) {
        if (f->n_sections == 2) iir_summary_kernel<2><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, a, summary);
        else iir_summary_kernel<1><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, a, summary);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (!st) {
        const int t = a.nlines * f->n_sections * 2;
        iir_carry_kernel<<<(t + 127) / 128, 128, 0, stream>>>(src, a, summary);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (!st) {
        if (f->n_sections == 2) iir_final_kernel<2><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, dst, a, summary);
        else iir_final_kernel<1><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, dst, a, summary);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    pc_free(summary, stream);
    return st;
}

extern "C" parac_status parac__cuda_iir(const parac_image *in, parac_image *out,
                                        const parac__iir1d f[3], parac__border_rule border,
                                        void *stream_)
{
    cudaStream_t stream = (cudaStream_t)stream_;
    PARAC_CUDA_TRY(cudaSetDevice(in->device));
    const pc_img s = pc_view(in), d = pc_view(out);
    int axes[3], na = 0;
    for (int ax = 0; ax < 3; ax++)
        if (f[ax].form != PARAC__IIR_NONE && (ax < 2 || s.d > 1)) axes[na++] = ax;
    if (na == 0) {
        parac__fir1d id = {0, NULL};
        return pc_pass_x(s, d, &id, border, stream);
    }
    float *t[2] = {NULL, NULL};
    parac_status st = PARAC_OK;
    const size_t count = (size_t)s.w * s.h * s.d * s.ch;
    for (int i = 0; i < (na > 2 ? 2 : na - 1) && !st; i++) st = pc_alloc_float(&t[i], count, stream);
    pc_img cur = s;
    for (int i = 0; i < na && !st; i++) {
        const pc_img next = i == na - 1 ? d : pc_float_like(s, t[i & 1]);
        st = iir_pass(cur, next, axes[i], &f[axes[i]], border, stream);
        cur = next;
    }
    pc_free(t[0], stream);
    pc_free(t[1], stream);
    return st;
}
