// Methods "recursive", "deriche2" (parallel sums of 2nd-order sections) and
// "yvv" (3rd-order cascade) on CUDA. Forms, coefficients and the border rule
// are those of iir_coefs.h; the CPU reference is iir_cpu.c.
//
// Parallel form, block-parallel along each line (after Nehab et al. 2011):
// the extended line is cut into segments of IIR_L samples, one thread per
// (line, segment); a thread block holds 32 lines x IIR_WARPS consecutive
// segments (a "group", one warp per segment).
//   1. summary: every segment finds, for each section, the causal tail (last
//      2 outputs) and anticausal head (first 2) of a run from a zero state,
//      as dot products of its samples with precomputed weights; the
//      block then folds its segments together, keeping for each segment the
//      state it receives from the segments before it in the group (zero
//      state at the group's edge) and, per group, the state it hands on;
//   2. carry: one thread per (line, section, direction) walks the groups
//      (IIR_WARPS times fewer steps than segments) and turns the group
//      summaries into the true states entering each group;
//   3. final: every segment adds T^k times its group's entering state to its
//      in-group state (T = the 2x2 matrix that carries a state across one
//      segment of the homogeneous recursion), reruns the sections from that
//      true state and writes causal + anticausal.
// Lines along y and z are element columns: a warp's loads are coalesced.
// Lines along x (rows) are staged through shared memory by the warp: the
// warp reads 32 samples of one row at a time (coalesced) and each thread
// then reads its own row from the staged block; no transposes.
// Segments whose samples all lie inside the image load them directly; only
// segments that touch the extension go through the border rule.
// The cascade (yvv, kept for reproduction) runs one thread per line.
#include <limits.h>
#include <math.h>

#include "cuda/cuda_check.h"
#include "filter_cuda_common.cuh"

enum { IIR_L = 32, IIR_WARPS = 8 };
// staged samples per line (segment, the one before, the two after) and one
// unused: a pitch of 4 mod 32 floats keeps 16-byte shared accesses free of
// bank conflicts
enum { IIR_STAGE = IIR_L + 4 };

struct iir_axis {
    parac__iir1d f;
    // per section: T^k for k = 0..IIR_WARPS, each [[t00, t01], [t10, t11]] row-major
    float T[2][IIR_WARPS + 1][4];
    // per section: a segment's zero-state summary as weights on its inputs:
    // [0], [1]: p[L-1], p[L-2] over x[-1 .. L-1]; [2], [3]: m[0], m[1] over
    // x[1 .. L+1]
    float W[2][4][IIR_L + 1];
    // segments start at -gpad (pad rounded up to a multiple of 4, so rows
    // load in aligned groups of 4); the border rule extends by pad and
    // continues with the end samples beyond, which leaves a steady state
    // unchanged
    int axis, n, pad, gpad, mode, nseg, ngroups, nlines, ch, ecols;
    int vec_in, vec_out; // rows may be read (written) 4 elements at a time
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
template <typename TI>
__device__ __forceinline__ float ext_sample(const char *line, int64_t step, int p, const iir_axis &a)
{
    if (a.mode == PARAC_BORDER_CONSTANT) {
        if (p < 0 || p >= a.n) return a.cval;
        return pc_ld<TI>(line + p * step);
    }
    const int q = p < -a.pad ? -a.pad : (p >= a.n + a.pad ? a.n + a.pad - 1 : p);
    return pc_ld<TI>(line + (int64_t)pc_map(q, a.n, a.mode) * step);
}

// Whether samples start-1 .. start+IIR_L+1 of a segment all lie in the image.
__device__ __forceinline__ bool segment_inside(int start, const iir_axis &a)
{
    return start >= 1 && start + IIR_L + 1 < a.n;
}

// Four consecutive elements as floats, and back (rounded and saturated as
// pc_st does).
template <typename T> __device__ __forceinline__ float4 ld4(const char *p);
template <> __device__ __forceinline__ float4 ld4<float>(const char *p) { return *(const float4 *)p; }
template <> __device__ __forceinline__ float4 ld4<unsigned char>(const char *p)
{
    const uchar4 q = *(const uchar4 *)p;
    return make_float4(q.x, q.y, q.z, q.w);
}
template <> __device__ __forceinline__ float4 ld4<unsigned short>(const char *p)
{
    const ushort4 q = *(const ushort4 *)p;
    return make_float4(q.x, q.y, q.z, q.w);
}
template <typename T> __device__ __forceinline__ void st4(char *p, float4 v);
template <> __device__ __forceinline__ void st4<float>(char *p, float4 v) { *(float4 *)p = v; }
__device__ __forceinline__ float sat_round(float v, float top) { return fminf(fmaxf(rintf(v), 0.0f), top); }
template <> __device__ __forceinline__ void st4<unsigned char>(char *p, float4 v)
{
    *(uchar4 *)p = make_uchar4((unsigned char)sat_round(v.x, 255.0f), (unsigned char)sat_round(v.y, 255.0f),
                               (unsigned char)sat_round(v.z, 255.0f), (unsigned char)sat_round(v.w, 255.0f));
}
template <> __device__ __forceinline__ void st4<unsigned short>(char *p, float4 v)
{
    *(ushort4 *)p = make_ushort4((unsigned short)sat_round(v.x, 65535.0f), (unsigned short)sat_round(v.y, 65535.0f),
                                 (unsigned short)sat_round(v.z, 65535.0f), (unsigned short)sat_round(v.w, 65535.0f));
}

// Line position of column c of a staged line: 0..31 the segment's samples,
// 32 the one before it, 33 and 34 the two after it.
__device__ __forceinline__ int stage_pos(int start, int c)
{
    return c < IIR_L ? start + c : (c == IIR_L ? start - 1 : start + c - 1);
}

// Load the IIR_L samples of segment `seg` of this thread's line into v, plus
// the one before it and the two after it. ROWS (axis 0) stages rows through
// the warp's shared block sb: the warp reads 32 samples of each of its 32
// rows (16-byte loads, 4 rows per instruction, where the image allows), then
// each lane takes its own row. Segments that touch the extension fill sb
// through the border rule in a rolled loop (few segments do; unrolled, that
// code would crowd the instruction cache).
template <typename TI, bool ROWS>
__device__ __forceinline__ void load_segment(const pc_img &src, const iir_axis &a, int line,
                                             int seg, float (*sb)[IIR_STAGE], float v[IIR_L],
                                             float *before, float *after1, float *after2)
{
    const int start = -a.gpad + seg * IIR_L, lane = threadIdx.x & 31;
    const bool live = line < a.nlines && seg < a.nseg;
    const bool inside = segment_inside(start, a); // uniform over the warp
    int64_t step = 0;
    const char *base = live ? line_at(src, a, line, &step) : NULL;
    const int warp = threadIdx.x >> 5;
    // the samples around an inside segment: columns read them from their own
    // line (coalesced); rows take them from the neighbouring warps' staged
    // segments below, and only the block's edge warps read them here
    if (inside) {
        *before = live && (!ROWS || warp == 0) ? pc_ld<TI>(base + (int64_t)(start - 1) * step) : 0.0f;
        *after1 = live && (!ROWS || warp == IIR_WARPS - 1) ? pc_ld<TI>(base + (int64_t)(start + IIR_L) * step) : 0.0f;
        *after2 = live && (!ROWS || warp == IIR_WARPS - 1) ? pc_ld<TI>(base + (int64_t)(start + IIR_L + 1) * step) : 0.0f;
    }
    if (ROWS) {
        const int line0 = line - lane;
        const unsigned long long mine = (unsigned long long)(uintptr_t)base;
        if (inside && a.vec_in) {
            float4 val[8]; // all loads in flight before the first store
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int r = 4 * i + (lane >> 3);
                const char *b = (const char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, r);
                val[i] = line0 + r < a.nlines && seg < a.nseg
                             ? ld4<TI>(b + (int64_t)(start + 4 * (lane & 7)) * (int64_t)sizeof(TI))
                             : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            }
#pragma unroll
            for (int i = 0; i < 8; i++) *(float4 *)&sb[4 * i + (lane >> 3)][4 * (lane & 7)] = val[i];
        } else if (inside) {
            float val[32];
#pragma unroll
            for (int i = 0; i < 32; i++) {
                const char *b = (const char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, i);
                val[i] = line0 + i < a.nlines && seg < a.nseg ? pc_ld<TI>(b + (int64_t)(start + lane) * src.ps) : 0.0f;
            }
#pragma unroll
            for (int i = 0; i < 32; i++) sb[i][lane] = val[i];
        } else {
#pragma unroll 1
            for (int i = 0; i < 32; i++) {
                const char *b = (const char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, i);
                const bool ok = line0 + i < a.nlines && seg < a.nseg;
                sb[i][lane] = ok ? ext_sample<TI>(b, src.ps, start + lane, a) : 0.0f;
                if (lane < 3) sb[i][IIR_L + lane] = ok ? ext_sample<TI>(b, src.ps, stage_pos(start, IIR_L + lane), a) : 0.0f;
            }
        }
    } else if (inside) {
        const char *b = live ? base + (int64_t)start * step : NULL;
#pragma unroll
        for (int j = 0; j < IIR_L; j++) v[j] = live ? pc_ld<TI>(b + j * step) : 0.0f;
        return;
    } else {
#pragma unroll 1
        for (int j = 0; j < IIR_L + 3; j++) sb[lane][j] = live ? ext_sample<TI>(base, step, stage_pos(start, j), a) : 0.0f;
    }
    if (ROWS) __syncthreads(); // neighbours read each other's segments
    else __syncwarp();
#pragma unroll
    for (int k = 0; k < IIR_L / 4; k++) {
        const float4 q = *(const float4 *)&sb[lane][4 * k];
        v[4 * k] = q.x;
        v[4 * k + 1] = q.y;
        v[4 * k + 2] = q.z;
        v[4 * k + 3] = q.w;
    }
    if (!inside) {
        *before = sb[lane][IIR_L];
        *after1 = sb[lane][IIR_L + 1];
        *after2 = sb[lane][IIR_L + 2];
    } else if (ROWS) {
        // sb is this warp's block of the stage: the neighbours' are 32 rows
        // before and after it
        if (warp > 0) *before = (sb - 32)[lane][IIR_L - 1];
        if (warp < IIR_WARPS - 1) {
            *after1 = (sb + 32)[lane][0];
            *after2 = (sb + 32)[lane][1];
        }
    }
    __syncwarp();
}

// One segment of IIR_L samples through every section: the causal run (j
// upwards) and the anticausal run (k downwards) are independent chains, run
// together in one unrolled loop. p1/p2 and m1/m2 carry the states in and out;
// the outputs are added into y. The feedback term of the previous output is
// added last, so each step waits on one FMA only.
template <int S>
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
            const float tp = fmaf(-q.a2, p2[s], fmaf(q.b1, xp, q.b0 * v[j]));
            const float p = fmaf(-q.a1, p1[s], tp);
            p2[s] = p1[s];
            p1[s] = p;
            const float tm = fmaf(-q.a2, m2[s], fmaf(q.c2, xm2, q.c1 * xm1));
            const float m = fmaf(-q.a1, m1[s], tm);
            m2[s] = m1[s];
            m1[s] = m;
            y[j] += p;
            y[k] += m;
        }
    }
}

// The block's 32 lines and its group. Rows take the groups fastest, so the
// blocks in flight read whole image rows (a narrow band of every row would
// load few memory channels); columns take the lines fastest, for the same
// reason.
template <bool ROWS>
__device__ __forceinline__ void block_place(const iir_axis &a, int *line0, int *group)
{
    const int nlb = (a.nlines + 31) / 32;
    const int b = blockIdx.x;
    *group = ROWS ? b % a.ngroups : b / nlb;
    *line0 = 32 * (ROWS ? b / a.ngroups : b % nlb);
}

// (c1, c2) <- z + M (c1, c2)
__device__ __forceinline__ void carry_step(const float *M, float z1, float z2, float *c1, float *c2)
{
    const float n1 = z1 + M[0] * *c1 + M[1] * *c2, n2 = z2 + M[2] * *c1 + M[3] * *c2;
    *c1 = n1;
    *c2 = n2;
}

// Layouts (q 0,1 causal (p[-1], p[-2]) entering from the left; q 2,3
// anticausal (m[L], m[L+1]) entering from the right):
//   seg_state[((seg * S + s) * 4 + q) * nlines + line]: the state a segment
//     receives from the segments before it in its group (zero at the edge);
//   grp_state[((group * S + s) * 4 + q) * nlines + line]: after the summary
//     kernel what the group hands on, after the carry kernel the true state
//     entering the group.
template <int S, typename TI, bool ROWS>
__global__ void __launch_bounds__(32 * IIR_WARPS, ROWS ? 3 : 5)
    iir_summary_kernel(pc_img src, const __grid_constant__ iir_axis a, float *seg_state,
                       float *grp_state)
{
    __shared__ float stage[IIR_WARPS][32][IIR_STAGE];
    __shared__ float zs[IIR_WARPS][S][4][32];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int line0, g;
    block_place<ROWS>(a, &line0, &g);
    const int line = line0 + lane, seg = g * IIR_WARPS + warp;
    float v[IIR_L], xb, xa1, xa2;
    load_segment<TI, ROWS>(src, a, line, seg, stage[warp], v, &xb, &xa1, &xa2);
    // zero-state summary: the segment's own contribution to the carries, as
    // dot products (dead threads work on zeros and are never read)
#pragma unroll
    for (int s = 0; s < S; s++) {
        const float(*W)[IIR_L + 1] = a.W[s];
        float c1 = W[0][0] * xb, c2 = W[1][0] * xb, h1 = W[2][IIR_L] * xa2, h2 = W[3][IIR_L] * xa2;
        h1 = fmaf(W[2][IIR_L - 1], xa1, h1);
        h2 = fmaf(W[3][IIR_L - 1], xa1, h2);
#pragma unroll
        for (int j = 0; j < IIR_L; j++) {
            c1 = fmaf(W[0][j + 1], v[j], c1);
            c2 = fmaf(W[1][j + 1], v[j], c2);
            if (j >= 1) {
                h1 = fmaf(W[2][j - 1], v[j], h1);
                h2 = fmaf(W[3][j - 1], v[j], h2);
            }
        }
        zs[warp][s][0][lane] = c1;
        zs[warp][s][1][lane] = c2;
        zs[warp][s][2][lane] = h1;
        zs[warp][s][3][lane] = h2;
    }
    __syncthreads();
    // fold the group: every warp sums what the segments before it (causal)
    // and after it (anticausal) hand on, T^k z each: independent terms, no
    // serial chain and no idle warps; the edge warps also write the group's
    if (seg >= a.nseg || line >= a.nlines) return;
    const int nvalid = min((int)IIR_WARPS, a.nseg - g * IIR_WARPS);
    const size_t nl = (size_t)a.nlines;
#pragma unroll
    for (int s = 0; s < S; s++) {
        float c1 = 0.0f, c2 = 0.0f, m1 = 0.0f, m2 = 0.0f;
        for (int i = 0; i < warp; i++) {
            const float *M = a.T[s][warp - 1 - i];
            c1 += M[0] * zs[i][s][0][lane] + M[1] * zs[i][s][1][lane];
            c2 += M[2] * zs[i][s][0][lane] + M[3] * zs[i][s][1][lane];
        }
        for (int i = warp + 1; i < nvalid; i++) {
            const float *M = a.T[s][i - warp - 1];
            m1 += M[0] * zs[i][s][2][lane] + M[1] * zs[i][s][3][lane];
            m2 += M[2] * zs[i][s][2][lane] + M[3] * zs[i][s][3][lane];
        }
        float *o = seg_state + ((size_t)(seg * S + s) * 4) * nl + line;
        o[0] = c1;
        o[nl] = c2;
        o[2 * nl] = m1;
        o[3 * nl] = m2;
        float *e = grp_state + ((size_t)(g * S + s) * 4) * nl + line;
        if (warp == nvalid - 1) {
            carry_step(a.T[s][1], zs[warp][s][0][lane], zs[warp][s][1][lane], &c1, &c2);
            e[0] = c1;
            e[nl] = c2;
        }
        if (warp == 0) {
            carry_step(a.T[s][1], zs[0][s][2][lane], zs[0][s][3][lane], &m1, &m2);
            e[2 * nl] = m1;
            e[3 * nl] = m2;
        }
    }
}

// Turns the group summaries into the states entering each group.
template <typename TI>
__global__ void iir_carry_kernel(pc_img src, const __grid_constant__ iir_axis a, float *grp_state)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int S = a.f.n_sections;
    if (t >= a.nlines * S * 2) return;
    const int line = t % a.nlines, s = (t / a.nlines) % S, dir = t / (a.nlines * S);
    const parac__iir_section q = a.f.sec[s];
    int64_t step;
    const char *base = line_at(src, a, line, &step);
    const size_t nl = (size_t)a.nlines;
    // group summaries are read BATCH groups at a time, all loads in flight
    // before the (serial) recurrence over them
    enum { BATCH = 24 };
    float c1, c2;
    if (dir == 0) c1 = parac__iir_causal_steady(&q, ext_sample<TI>(base, step, -a.pad - 1, a));
    else c1 = parac__iir_anticausal_steady(&q, ext_sample<TI>(base, step, a.n + a.pad, a));
    c2 = c1;
    const int last_valid = a.nseg - (a.ngroups - 1) * IIR_WARPS; // segments in the last group
    for (int i0 = 0; i0 < a.ngroups; i0 += BATCH) {
        float z1[BATCH], z2[BATCH];
#pragma unroll
        for (int u = 0; u < BATCH; u++) {
            const int i = i0 + u, g = dir == 0 ? i : a.ngroups - 1 - i;
            const float *o = grp_state + ((size_t)(g * S + s) * 4 + 2 * dir) * nl + line;
            z1[u] = i < a.ngroups ? o[0] : 0.0f;
            z2[u] = i < a.ngroups ? o[nl] : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < BATCH; u++) {
            const int i = i0 + u, g = dir == 0 ? i : a.ngroups - 1 - i;
            if (i < a.ngroups) {
                float *o = grp_state + ((size_t)(g * S + s) * 4 + 2 * dir) * nl + line;
                o[0] = c1;
                o[nl] = c2;
                const int width = g == a.ngroups - 1 ? last_valid : IIR_WARPS;
                carry_step(a.T[s][width], z1[u], z2[u], &c1, &c2);
            }
        }
    }
}

template <int S, typename TI, typename TO, bool ROWS>
__global__ void __launch_bounds__(32 * IIR_WARPS, 3)
    iir_final_kernel(pc_img src, pc_img dst, const __grid_constant__ iir_axis a,
                     const float *seg_state, const float *grp_state)
{
    __shared__ float stage[IIR_WARPS][32][IIR_STAGE];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    int line0, g;
    block_place<ROWS>(a, &line0, &g);
    const int line = line0 + lane, seg = g * IIR_WARPS + warp;
    float v[IIR_L], y[IIR_L], xb, xa1, xa2;
    load_segment<TI, ROWS>(src, a, line, seg, stage[warp], v, &xb, &xa1, &xa2);
    const bool live = line < a.nlines && seg < a.nseg;
#pragma unroll
    for (int j = 0; j < IIR_L; j++) y[j] = 0.0f;
    if (live) {
        const size_t nl = (size_t)a.nlines;
        const int nvalid = min((int)IIR_WARPS, a.nseg - g * IIR_WARPS);
        float p1[S], p2[S], m1[S], m2[S];
#pragma unroll
        for (int s = 0; s < S; s++) {
            const float *o = seg_state + ((size_t)(seg * S + s) * 4) * nl + line;
            const float *e = grp_state + ((size_t)(g * S + s) * 4) * nl + line;
            p1[s] = o[0];
            p2[s] = o[nl];
            m1[s] = o[2 * nl];
            m2[s] = o[3 * nl];
            float e1 = e[0], e2 = e[nl];
            carry_step(a.T[s][warp], p1[s], p2[s], &e1, &e2);
            p1[s] = e1;
            p2[s] = e2;
            e1 = e[2 * nl];
            e2 = e[3 * nl];
            carry_step(a.T[s][nvalid - 1 - warp], m1[s], m2[s], &e1, &e2);
            m1[s] = e1;
            m2[s] = e2;
        }
        run_segment<S>(a, v, xb, xa1, xa2, p1, p2, m1, m2, y);
    }
    const int start = -a.gpad + seg * IIR_L;
    if (ROWS) {
        __syncthreads(); // the neighbours are done reading this warp's stage
#pragma unroll
        for (int k = 0; k < IIR_L / 4; k++)
            *(float4 *)&stage[warp][lane][4 * k] = make_float4(y[4 * k], y[4 * k + 1], y[4 * k + 2], y[4 * k + 3]);
        __syncwarp();
        const int line0 = line - lane;
        int64_t st = 0;
        const unsigned long long mine =
            line < a.nlines ? (unsigned long long)(uintptr_t)line_at(dst, a, line, &st) : 0ull;
        if (a.vec_out && start >= 0 && start + IIR_L <= a.n) {
            // 4 rows per instruction, 16 bytes per lane
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int r = 4 * i + (lane >> 3);
                char *b = (char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, r);
                if (line0 + r < a.nlines && seg < a.nseg)
                    st4<TO>(b + (int64_t)(start + 4 * (lane & 7)) * (int64_t)sizeof(TO),
                            *(const float4 *)&stage[warp][r][4 * (lane & 7)]);
            }
        } else {
            const int p = start + lane;
            for (int i = 0; i < 32; i++) {
                char *b = (char *)(uintptr_t)__shfl_sync(0xffffffffu, mine, i);
                if (line0 + i < a.nlines && seg < a.nseg && p >= 0 && p < a.n)
                    pc_st<TO>(b + (int64_t)p * dst.ps, stage[warp][i][lane]);
            }
        }
    } else if (live) {
        int64_t st;
        char *b = (char *)line_at(dst, a, line, &st);
#pragma unroll
        for (int j = 0; j < IIR_L; j++) {
            const int p = start + j;
            if (p >= 0 && p < a.n) pc_st<TO>(b + (int64_t)p * st, y[j]);
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
template <typename TI, typename TO>
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
    const float v0 = ext_sample<TI>(sb, st, -a.pad - 1, a);
    const float vl = ext_sample<TI>(sb, st, a.n + a.pad, a);
    float w1 = v0, w2 = v0, w3 = v0;
    for (int i = 0; i < ne; i++) {
        const float w = yvv_step(B, ext_sample<TI>(sb, st, i - a.pad, a), b0, w1, b1, w2, b2, w3);
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
        pc_st<TO>(db + (int64_t)(ne - 1 - a.pad) * dt, y[0]);
    for (int i = ne - 2; i >= 0; i--) {
        const float yy = yvv_step(B, work[i * nl + line], b0, w1, b1, w2, b2, w3);
        w3 = w2;
        w2 = w1;
        w1 = yy;
        const int p = i - a.pad;
        if (p >= 0 && p < a.n) pc_st<TO>(db + (int64_t)p * dt, yy);
    }
}


// T^k (k = 0..IIR_WARPS) for one section: T carries (p[-1], p[-2]) across
// IIR_L steps of p = -a1 p1 - a2 p2; computed in double.
static void carry_powers(const parac__iir_section *q, float out[IIR_WARPS + 1][4])
{
    double T[4];
    for (int col = 0; col < 2; col++) {
        double p1 = col == 0 ? 1.0 : 0.0, p2 = col == 0 ? 0.0 : 1.0;
        for (int j = 0; j < IIR_L; j++) {
            const double p = -(double)q->a1 * p1 - (double)q->a2 * p2;
            p2 = p1;
            p1 = p;
        }
        T[col] = p1;     // row 0: p[L-1]
        T[2 + col] = p2; // row 1: p[L-2]
    }
    double P[4] = {1.0, 0.0, 0.0, 1.0};
    for (int k = 0; k <= IIR_WARPS; k++) {
        for (int i = 0; i < 4; i++) out[k][i] = (float)P[i];
        const double n[4] = {T[0] * P[0] + T[1] * P[2], T[0] * P[1] + T[1] * P[3],
                             T[2] * P[0] + T[3] * P[2], T[2] * P[1] + T[3] * P[3]};
        for (int i = 0; i < 4; i++) P[i] = n[i];
    }
}

// A segment's zero-state summary as weights on its inputs (see iir_axis.W):
// the response to a unit sample at each input position, in double.
static void summary_weights(const parac__iir_section *q, float W[4][IIR_L + 1])
{
    for (int u = 0; u <= IIR_L; u++) {
        // causal: unit sample at x[u - 1]
        double p1 = 0.0, p2 = 0.0;
        for (int j = 0; j < IIR_L; j++) {
            const double x = j == u - 1 ? 1.0 : 0.0, xp = j - 1 == u - 1 ? 1.0 : 0.0;
            const double p = q->b0 * x + q->b1 * xp - q->a1 * p1 - q->a2 * p2;
            p2 = p1;
            p1 = p;
        }
        W[0][u] = (float)p1;
        W[1][u] = (float)p2;
        // anticausal: unit sample at x[u + 1]
        double m1 = 0.0, m2 = 0.0;
        for (int k = IIR_L - 1; k >= 0; k--) {
            const double x1 = k + 1 == u + 1 ? 1.0 : 0.0, x2 = k + 2 == u + 1 ? 1.0 : 0.0;
            const double m = q->c1 * x1 + q->c2 * x2 - q->a1 * m1 - q->a2 * m2;
            m2 = m1;
            m1 = m;
        }
        W[2][u] = (float)m1; // m[0]
        W[3][u] = (float)m2; // m[1]
    }
}

template <typename TI, typename TO>
static parac_status iir_pass_typed(const pc_img &src, const pc_img &dst, const iir_axis &a,
                                   cudaStream_t stream)
{
    const int ne = a.n + 2 * a.pad;
    if (a.f.form == PARAC__IIR_CASCADE3) {
        float *work = NULL;
        PARAC_TRY(pc_alloc_float(&work, (size_t)ne * a.nlines, stream));
        iir_cascade_kernel<TI, TO><<<(a.nlines + 127) / 128, 128, 0, stream>>>(src, dst, a, work);
        parac_status st = PARAC_CUDA_LAUNCH_CHECK();
        pc_free(work, stream);
        return st;
    }
    const int S = a.f.n_sections;
    const size_t seg_count = (size_t)a.nseg * S * 4 * a.nlines;
    const size_t grp_count = (size_t)a.ngroups * S * 4 * a.nlines;
    float *seg_state = NULL;
    PARAC_TRY(pc_alloc_float(&seg_state, seg_count + grp_count, stream));
    float *grp_state = seg_state + seg_count;
    const int64_t blocks = (int64_t)((a.nlines + 31) / 32) * a.ngroups;
    if (blocks > INT_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "recursive filter on CUDA: image too large (%lld blocks)",
                           (long long)blocks);
    const dim3 grid((unsigned)blocks);
    const bool rows = a.axis == 0;
    parac_status st = PARAC_OK;
    if (S == 2 && rows) iir_summary_kernel<2, TI, true><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, a, seg_state, grp_state);
    else if (S == 2) iir_summary_kernel<2, TI, false><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, a, seg_state, grp_state);
    else if (rows) iir_summary_kernel<1, TI, true><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, a, seg_state, grp_state);
    else iir_summary_kernel<1, TI, false><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, a, seg_state, grp_state);
    st = PARAC_CUDA_LAUNCH_CHECK();
    if (!st) {
        // 64-thread blocks: a few thousand lines still fill every multiprocessor
        const int t = a.nlines * S * 2;
        iir_carry_kernel<TI><<<(t + 63) / 64, 64, 0, stream>>>(src, a, grp_state);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    if (!st) {
        if (S == 2 && rows)
            iir_final_kernel<2, TI, TO, true><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, dst, a, seg_state, grp_state);
        else if (S == 2)
            iir_final_kernel<2, TI, TO, false><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, dst, a, seg_state, grp_state);
        else if (rows)
            iir_final_kernel<1, TI, TO, true><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, dst, a, seg_state, grp_state);
        else
            iir_final_kernel<1, TI, TO, false><<<grid, 32 * IIR_WARPS, 0, stream>>>(src, dst, a, seg_state, grp_state);
        st = PARAC_CUDA_LAUNCH_CHECK();
    }
    pc_free(seg_state, stream);
    return st;
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
    const int64_t lines = (int64_t)src.w * src.h * src.d * src.ch / a.n;
    if (lines * 4 > INT_MAX)
        return parac__fail(PARAC_ERR_UNSUPPORTED,
                           "recursive filter on CUDA: %lld lines along axis %d are too many (at most %d)",
                           (long long)lines, axis, INT_MAX / 4);
    a.nlines = (int)lines;
    a.mode = (int)b.mode;
    a.cval = b.value;
    a.pad = (b.mode == PARAC_BORDER_REPLICATE || b.mode == PARAC_BORDER_CONSTANT) ? 0 : f->pad;
    a.gpad = (a.pad + 3) & ~3;
    const int64_t ne = (int64_t)a.n + 2 * (int64_t)a.gpad;
    a.nseg = (int)((ne + IIR_L - 1) / IIR_L);
    a.ngroups = (a.nseg + IIR_WARPS - 1) / IIR_WARPS;
    if (ne > INT_MAX / 2)
        return parac__fail(PARAC_ERR_UNSUPPORTED, "recursive filter on CUDA: line of %lld samples too long",
                           (long long)ne);
    for (int s = 0; s < f->n_sections; s++) {
        carry_powers(&f->sec[s], a.T[s]);
        summary_weights(&f->sec[s], a.W[s]);
    }
    // whole rows of one channel, 4-element aligned: 16-byte (4-element) row accesses
    auto rows_vector = [&](const pc_img &im) {
        const int64_t v = 4LL * im.esize;
        return axis == 0 && im.ch == 1 && im.ps == im.esize && (uintptr_t)im.p % v == 0 && im.rp % v == 0 &&
               (im.d == 1 || im.sp % v == 0);
    };
    a.vec_in = rows_vector(src);
    a.vec_out = rows_vector(dst);
    return pc_dispatch_io(src.dtype, dst.dtype, [&](auto ti, auto to) -> parac_status {
        return iir_pass_typed<decltype(ti), decltype(to)>(src, dst, a, stream);
    });
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
