/* CPU recursive Gaussians (recursive, deriche2, yvv; forms and border rule in
 * iir_coefs.h). The image is converted to a float volume that is filtered in
 * place along x, y and z. Each pass gathers a bundle of L lines, interleaved
 * (sample i of line l at buf[i*L + l]), extended by the border rule; the
 * recursions then run over i with the inner loop over the L independent
 * lines, which vectorises and hides the latency of the recursion. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "filter_border.h"
#include "filter_cpu.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(PARAC_NO_CLONES)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

enum { LANES = 32 };

/* Parallel form: out = sum over sections of causal + anticausal. All
 * sections advance in one sweep per direction (two sweeps over the bundle in
 * all), which gives the recursion independent chains to overlap. */
HOT static void run_parallel(const parac__iir1d *f, const float *x, int64_t n, int L,
                             const float *v0, const float *vl, float *out)
{
    float s1[2][LANES], s2[2][LANES], x1[LANES], x2[LANES];
    const int ns = f->n_sections;
    const parac__iir_section q0 = f->sec[0], q1 = f->sec[ns > 1 ? 1 : 0];
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < L; l++) s1[s][l] = s2[s][l] = 0.0f;
    for (int l = 0; l < L; l++) {
        s1[0][l] = s2[0][l] = parac__iir_causal_steady(&q0, v0[l]);
        if (ns > 1) s1[1][l] = s2[1][l] = parac__iir_causal_steady(&q1, v0[l]);
        x1[l] = v0[l];
    }
    /* with one section the second chain is computed with zero coefficients */
    const float b0b = ns > 1 ? q1.b0 : 0.0f, b1b = ns > 1 ? q1.b1 : 0.0f;
    const float c1b = ns > 1 ? q1.c1 : 0.0f, c2b = ns > 1 ? q1.c2 : 0.0f;
    for (int64_t i = 0; i < n; i++) {
        const float *xi = x + i * L;
        float *oi = out + i * L;
        for (int l = 0; l < L; l++) {
            float p0 = q0.b0 * xi[l] + q0.b1 * x1[l] - q0.a1 * s1[0][l] - q0.a2 * s2[0][l];
            float p1 = b0b * xi[l] + b1b * x1[l] - q1.a1 * s1[1][l] - q1.a2 * s2[1][l];
            oi[l] = p0 + p1;
            s2[0][l] = s1[0][l];
            s1[0][l] = p0;
            s2[1][l] = s1[1][l];
            s1[1][l] = p1;
            x1[l] = xi[l];
        }
    }
    for (int s = 0; s < 2; s++)
        for (int l = 0; l < L; l++) s1[s][l] = s2[s][l] = 0.0f;
    for (int l = 0; l < L; l++) {
        s1[0][l] = s2[0][l] = parac__iir_anticausal_steady(&q0, vl[l]);
        if (ns > 1) s1[1][l] = s2[1][l] = parac__iir_anticausal_steady(&q1, vl[l]);
        x1[l] = x2[l] = vl[l];
    }
    for (int64_t i = n - 1; i >= 0; i--) {
        const float *xi = x + i * L;
        float *oi = out + i * L;
        for (int l = 0; l < L; l++) {
            float m0 = q0.c1 * x1[l] + q0.c2 * x2[l] - q0.a1 * s1[0][l] - q0.a2 * s2[0][l];
            float m1 = c1b * x1[l] + c2b * x2[l] - q1.a1 * s1[1][l] - q1.a2 * s2[1][l];
            oi[l] += m0 + m1;
            s2[0][l] = s1[0][l];
            s1[0][l] = m0;
            s2[1][l] = s1[1][l];
            s1[1][l] = m1;
            x2[l] = x1[l];
            x1[l] = xi[l];
        }
    }
}

/* Cascade form (yvv), in place in x. */
HOT static void run_cascade(const parac__iir1d *f, float *x, int64_t n, int L, const float *v0,
                            const float *vl)
{
    float w1[LANES], w2[LANES], w3[LANES];
    const float B = f->B, b0 = f->b[0], b1 = f->b[1], b2 = f->b[2];
    for (int l = 0; l < L; l++) w1[l] = w2[l] = w3[l] = v0[l];
    for (int64_t i = 0; i < n; i++) {
        float *xi = x + i * L;
        for (int l = 0; l < L; l++) {
            float w = B * xi[l] + b0 * w1[l] + b1 * w2[l] + b2 * w3[l];
            xi[l] = w;
            w3[l] = w2[l];
            w2[l] = w1[l];
            w1[l] = w;
        }
    }
    /* w1, w2, w3 now hold w[n-1], w[n-2], w[n-3] (the start state when n < 3). */
    for (int l = 0; l < L; l++) {
        float y[3];
        parac__iir_yvv_backward_init(f, w1[l], w2[l], w3[l], vl[l], y);
        x[(n - 1) * L + l] = y[0];
        w1[l] = y[0];
        w2[l] = y[1];
        w3[l] = y[2];
    }
    for (int64_t i = n - 2; i >= 0; i--) {
        float *xi = x + i * L;
        for (int l = 0; l < L; l++) {
            float y = B * xi[l] + b0 * w1[l] + b1 * w2[l] + b2 * w3[l];
            xi[l] = y;
            w3[l] = w2[l];
            w2[l] = w1[l];
            w1[l] = y;
        }
    }
}

/* Filter a gathered bundle; the result ends in `x` (uses `work`). */
static void filter_bundle(const parac__iir1d *f, float *x, float *work, int64_t n, int L,
                          parac__border_rule b)
{
    float v0[LANES], vl[LANES];
    for (int l = 0; l < L; l++) {
        v0[l] = b.mode == PARAC_BORDER_CONSTANT ? b.value : x[l];
        vl[l] = b.mode == PARAC_BORDER_CONSTANT ? b.value : x[(n - 1) * L + l];
    }
    if (f->form == PARAC__IIR_CASCADE3) {
        run_cascade(f, x, n, L, v0, vl);
    } else {
        run_parallel(f, x, n, L, v0, vl, work);
        memcpy(x, work, sizeof(float) * (size_t)(n * L));
    }
}

static int pad_of(const parac__iir1d *f, parac__border_rule b)
{
    return b.mode == PARAC_BORDER_REPLICATE || b.mode == PARAC_BORDER_CONSTANT ? 0 : f->pad;
}

static int nthreads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

/* Lines along x: bundles of rows x channels. */
static parac_status pass_x(parac_image *t, const parac__iir1d *f, parac__border_rule b, int threads)
{
    const int C = t->channels, R = LANES / C, L = R * C, pad = pad_of(f, b);
    const int64_t W = t->width, H = t->height, D = t->depth, n = W + 2 * (int64_t)pad;
    const int64_t blocks_per_slice = (H + R - 1) / R;
    int64_t *map = parac__malloc(sizeof(int64_t) * (size_t)n);
    if (!map) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "recursive x pass: no memory");
    for (int64_t i = 0; i < n; i++) map[i] = parac__border_index(i - pad, W, b.mode);
    int failed = 0;
#pragma omp parallel num_threads(nthreads(threads))
    {
        float *buf = parac__malloc(sizeof(float) * (size_t)(n * L) * 2);
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (int64_t blk = 0; blk < blocks_per_slice * D; blk++) {
            if (!buf) continue;
            int64_t z = blk / blocks_per_slice, y0 = (blk % blocks_per_slice) * R;
            int rows = (int)(H - y0 < R ? H - y0 : R), Lb = rows * C;
            for (int r = 0; r < rows; r++) {
                const float *src = parac_image_at(t, 0, y0 + r, z);
                float *dst = buf + r * C;
                if (C == 1) {
                    for (int64_t i = 0; i < n; i++) dst[i * Lb] = src[map[i]];
                } else {
                    for (int64_t i = 0; i < n; i++)
                        for (int c = 0; c < C; c++) dst[i * Lb + c] = src[map[i] * C + c];
                }
            }
            filter_bundle(f, buf, buf + n * L, n, Lb, b);
            for (int r = 0; r < rows; r++) {
                float *dst = parac_image_at(t, 0, y0 + r, z);
                for (int64_t x = 0; x < W; x++)
                    for (int c = 0; c < C; c++) dst[x * C + c] = buf[(x + pad) * Lb + r * C + c];
            }
        }
        free(buf);
    }
    free(map);
    if (failed) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "recursive x pass: no memory for line buffers");
    return PARAC_OK;
}

/* Lines along y (step = row pitch) or z (step = slice pitch): bundles of L
 * neighbouring elements of a row. */
static parac_status pass_strided(parac_image *t, const parac__iir1d *f, parac__border_rule b,
                                 int threads, int axis)
{
    const int pad = pad_of(f, b);
    const int64_t N = axis == 1 ? t->height : t->depth;
    const int64_t other = axis == 1 ? t->depth : t->height; /* lines sets */
    const int64_t step = axis == 1 ? t->row_pitch : t->slice_pitch;
    const int64_t ne = t->width * t->channels, tiles = (ne + LANES - 1) / LANES;
    const int64_t n = N + 2 * (int64_t)pad;
    int failed = 0;
#pragma omp parallel num_threads(nthreads(threads))
    {
        float *buf = parac__malloc(sizeof(float) * (size_t)(n * LANES) * 2);
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 2)
        for (int64_t job = 0; job < other * tiles; job++) {
            if (!buf) continue;
            int64_t o = job / tiles, e0 = (job % tiles) * LANES;
            int L = (int)(ne - e0 < LANES ? ne - e0 : LANES);
            char *base = axis == 1 ? (char *)parac_image_at(t, 0, 0, o) : (char *)parac_image_at(t, 0, o, 0);
            base += e0 * (int64_t)sizeof(float);
            for (int64_t i = 0; i < n; i++) {
                int64_t k = parac__border_index(i - pad, N, b.mode);
                memcpy(buf + i * L, base + k * step, sizeof(float) * (size_t)L);
            }
            filter_bundle(f, buf, buf + n * LANES, n, L, b);
            for (int64_t i = 0; i < N; i++)
                memcpy(base + i * step, buf + (i + pad) * L, sizeof(float) * (size_t)L);
        }
        free(buf);
    }
    if (failed) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "recursive pass: no memory for line buffers");
    return PARAC_OK;
}

parac_status parac__cpu_iir(const parac_image *in, parac_image *out, const parac__iir1d f[3],
                            parac__border_rule border, int threads)
{
    if (in->width != out->width || in->height != out->height || in->depth != out->depth ||
        in->channels != out->channels || !parac_image_is_packed(in) || !parac_image_is_packed(out))
        return parac__fail(PARAC_ERR_INTERNAL, "recursive: images must be packed and of one size");
    parac_image *tmp = NULL;
    parac_image *t = out;
    if (out->dtype != PARAC_F32) {
        PARAC_TRY(parac_image_create(&tmp, in->width, in->height, in->depth, in->channels, PARAC_F32,
                                     PARAC_MEMORY_HOST, -1));
        t = tmp;
    }
    const int64_t H = in->height, D = in->depth, n = in->width * in->channels;
#pragma omp parallel for num_threads(nthreads(threads)) schedule(static)
    for (int64_t r = 0; r < H * D; r++)
        parac__load_row_f32(parac_image_at(in, 0, r % H, r / H), in->dtype, n,
                            parac_image_at(t, 0, r % H, r / H));
    parac_status st = PARAC_OK;
    if (f[0].form != PARAC__IIR_NONE) st = pass_x(t, &f[0], border, threads);
    if (st == PARAC_OK && f[1].form != PARAC__IIR_NONE) st = pass_strided(t, &f[1], border, threads, 1);
    if (st == PARAC_OK && D > 1 && f[2].form != PARAC__IIR_NONE)
        st = pass_strided(t, &f[2], border, threads, 2);
    if (st == PARAC_OK && tmp) {
#pragma omp parallel for num_threads(nthreads(threads)) schedule(static)
        for (int64_t r = 0; r < H * D; r++)
            parac__store_row_f32(parac_image_at(tmp, 0, r % H, r / H), out->dtype, n,
                                 parac_image_at(out, 0, r % H, r / H));
    }
    parac_image_destroy(tmp);
    return st;
}
