/* CPU FIR filters: separable (x, y and z passes with 1D kernels) and direct
 * (full 2D kernel). Both work on float rows: a vertical pass sums whole
 * source rows (the inner loop runs along the contiguous row, so it
 * vectorises), the horizontal pass runs on a float row padded with the
 * border rule. Accumulators are blocks of BLOCK floats that stay in vector
 * registers over all taps. Symmetric kernels (all Gaussians) are folded:
 * k[i] * (a + b) for the two taps at the same distance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "../core/error_internal.h"
#include "filter_border.h"
#include "filter_cpu.h"
#include <omp.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(PARAC_NO_CLONES)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

enum { BLOCK = 64 };

/* ---- row conversions ---------------------------------------------------- */

HOT void parac__load_row_f32(const void *src, parac_dtype dtype, int64_t n, float *dst)
{
    if (dtype == PARAC_U8) {
        const uint8_t *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = s[i];
    } else if (dtype == PARAC_U16) {
        const uint16_t *s = src;
        for (int64_t i = 0; i < n; i++) dst[i] = s[i];
    } else {
        memcpy(dst, src, (size_t)n * sizeof(float));
    }
}

/* Integers: round half to even and saturate (NaN -> 0). Rounding adds and
 * subtracts 1.5 * 2^23 (exact for |v| < 2^22 in the default rounding mode),
 * which vectorises where rintf may not. */
#define ROUND_MAGIC 12582912.0f

static void store_scalar(const float *src, parac_dtype dtype, int64_t n, void *dst)
{
    if (dtype == PARAC_U8) {
        uint8_t *d = dst;
        for (int64_t i = 0; i < n; i++) {
            float v = src[i] > 0.0f ? src[i] : 0.0f; /* NaN -> 0 */
            v = v < 255.0f ? v : 255.0f;
            d[i] = (uint8_t)(int32_t)((v + ROUND_MAGIC) - ROUND_MAGIC);
        }
    } else if (dtype == PARAC_U16) {
        uint16_t *d = dst;
        for (int64_t i = 0; i < n; i++) {
            float v = src[i] > 0.0f ? src[i] : 0.0f;
            v = v < 65535.0f ? v : 65535.0f;
            d[i] = (uint16_t)(int32_t)((v + ROUND_MAGIC) - ROUND_MAGIC);
        }
    } else {
        memcpy(dst, src, (size_t)n * sizeof(float));
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
/* AVX2: clamp, convert with the current rounding mode (nearest even), pack. */
__attribute__((target("avx2"))) static void store_avx2(const float *s, parac_dtype dtype, int64_t n, void *dst)
{
    const __m256 lo = _mm256_setzero_ps(), hi = _mm256_set1_ps(dtype == PARAC_U8 ? 255.0f : 65535.0f);
    int64_t i = 0;
#define CVT(k) _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(_mm256_loadu_ps(s + i + (k)), lo), hi))
    if (dtype == PARAC_U8) {
        uint8_t *d = dst;
        const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        for (; i + 32 <= n; i += 32) {
            __m256i ab = _mm256_packus_epi32(CVT(0), CVT(8)), ce = _mm256_packus_epi32(CVT(16), CVT(24));
            __m256i r = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, ce), perm);
            _mm256_storeu_si256((__m256i *)(d + i), r);
        }
        store_scalar(s + i, dtype, n - i, d + i);
    } else {
        uint16_t *d = dst;
        for (; i + 16 <= n; i += 16) {
            __m256i r = _mm256_permute4x64_epi64(_mm256_packus_epi32(CVT(0), CVT(8)), 0xD8);
            _mm256_storeu_si256((__m256i *)(d + i), r);
        }
        store_scalar(s + i, dtype, n - i, d + i);
    }
#undef CVT
}
#endif

void parac__store_row_f32(const float *src, parac_dtype dtype, int64_t n, void *dst)
{
#if defined(__GNUC__) && defined(__x86_64__)
    if (__builtin_cpu_supports("avx2") && dtype != PARAC_F32) { /* flags set before main: no cache, no race */
        store_avx2(src, dtype, n, dst);
        return;
    }
#endif
    store_scalar(src, dtype, n, dst);
}

/* ---- vertical sums: acc[e] = c + sum_j k[j] * rows[j][e] ------------------ */

/* ACC: the type in which two samples are added exactly before one conversion. */
#define DEFINE_VSUM(NAME, T, ACC)                                                                  \
    HOT static void NAME(const void *const *rows_, const float *k, int ntaps, int symmetric,  \
                         float c, int64_t n, float *acc)                                      \
    {                                                                                         \
        const T *const *rows = (const T *const *)rows_;                                       \
        const int half = ntaps / 2;                                                           \
        for (int64_t e0 = 0; e0 < n; e0 += BLOCK) {                                           \
            const int64_t m = n - e0 < BLOCK ? n - e0 : BLOCK;                                \
            float a[BLOCK];                                                                   \
            for (int t = 0; t < BLOCK; t++) a[t] = c;                                         \
            if (symmetric) {                                                                  \
                for (int j = 0; j < half; j++) {                                              \
                    const T *r1 = rows[j] + e0, *r2 = rows[ntaps - 1 - j] + e0;               \
                    const float kj = k[j];                                                    \
                    if (m == BLOCK)                                                           \
                        for (int t = 0; t < BLOCK; t++) a[t] += kj * (float)((ACC)r1[t] + (ACC)r2[t]); \
                    else                                                                      \
                        for (int t = 0; t < m; t++) a[t] += kj * (float)((ACC)r1[t] + (ACC)r2[t]); \
                }                                                                             \
                const T *r = rows[half] + e0;                                                 \
                const float kc = k[half];                                                     \
                for (int t = 0; t < m; t++) a[t] += kc * (float)r[t];                         \
            } else {                                                                          \
                for (int j = 0; j < ntaps; j++) {                                             \
                    const T *r = rows[j] + e0;                                                \
                    const float kj = k[j];                                                    \
                    if (m == BLOCK)                                                           \
                        for (int t = 0; t < BLOCK; t++) a[t] += kj * (float)r[t];             \
                    else                                                                      \
                        for (int t = 0; t < m; t++) a[t] += kj * (float)r[t];                 \
                }                                                                             \
            }                                                                                 \
            memcpy(acc + e0, a, (size_t)m * sizeof(float));                                   \
        }                                                                                     \
    }

DEFINE_VSUM(vsum_u8, uint8_t, int32_t)
DEFINE_VSUM(vsum_u16, uint16_t, int32_t)
DEFINE_VSUM(vsum_f32, float, float)

typedef void (*vsum_fn)(const void *const *, const float *, int, int, float, int64_t, float *);

static vsum_fn vsum_for(parac_dtype dtype)
{
    return dtype == PARAC_U8 ? vsum_u8 : dtype == PARAC_U16 ? vsum_u16 : vsum_f32;
}

/* ---- AVX2+FMA versions of the symmetric vertical and horizontal sums -------
 * 32 outputs per step in four vector accumulators that stay in registers
 * (the portable loops above let the compiler spill them). Used when the CPU
 * has AVX2 and FMA and the kernel is symmetric (every Gaussian). */
#if defined(__GNUC__) && defined(__x86_64__)
#define HAVE_X86_SIMD 1
#include <immintrin.h>
#define AVX2 __attribute__((target("avx2,fma")))

#define LOAD_U8(p) _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(p)))
#define LOAD_U16(p) _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define PAIR_INT(L, p, q) _mm256_cvtepi32_ps(_mm256_add_epi32(L(p), L(q)))
#define ONE_INT(L, p) _mm256_cvtepi32_ps(L(p))
#define PAIR_F32(L, p, q) _mm256_add_ps(_mm256_loadu_ps(p), _mm256_loadu_ps(q))
#define ONE_F32(L, p) _mm256_loadu_ps(p)

/* One vertical-sum routine per (ISA, element type): 8 vector accumulators of
 * W lanes, 8*W outputs per step; scalar loop for the rest. */
#define DEFINE_VSUM_SIMD(NAME, TARGET, T, V, W, SET1, FMADD, STOREU, LOAD, PAIR, ONE)         \
    TARGET static void NAME(const void *const *rows_, const float *k, int ntaps, float c,     \
                            int64_t n, float *acc)                                           \
    {                                                                                        \
        const T *const *rows = (const T *const *)rows_;                                      \
        const int half = ntaps / 2;                                                          \
        int64_t e = 0;                                                                       \
        for (; e + 8 * (W) <= n; e += 8 * (W)) {                                             \
            V a[8];                                                                          \
            for (int u = 0; u < 8; u++) a[u] = SET1(c);                                      \
            for (int j = 0; j < half; j++) {                                                 \
                const T *p = rows[j] + e, *q = rows[ntaps - 1 - j] + e;                      \
                const V kj = SET1(k[j]);                                                     \
                for (int u = 0; u < 8; u++)                                                  \
                    a[u] = FMADD(kj, PAIR(LOAD, p + (W) * u, q + (W) * u), a[u]);            \
            }                                                                                \
            const T *p = rows[half] + e;                                                     \
            const V kc = SET1(k[half]);                                                      \
            for (int u = 0; u < 8; u++) STOREU(acc + e + (W) * u, FMADD(kc, ONE(LOAD, p + (W) * u), a[u])); \
        }                                                                                    \
        /* the vector lanes' arithmetic (fused multiply-adds in the same order), so that  \
         * a pixel's value does not depend on where the row's vector steps end */          \
        for (; e < n; e++) {                                                                 \
            float a = c;                                                                     \
            for (int j = 0; j < half; j++)                                                   \
                a = fmaf(k[j], (float)rows[j][e] + (float)rows[ntaps - 1 - j][e], a);        \
            acc[e] = fmaf(k[half], (float)rows[half][e], a);                                 \
        }                                                                                    \
    }
#define DEFINE_VSUM_AVX2(NAME, T, LOAD, PAIR, ONE) \
    DEFINE_VSUM_SIMD(NAME, AVX2, T, __m256, 8, _mm256_set1_ps, _mm256_fmadd_ps, _mm256_storeu_ps, LOAD, PAIR, ONE)

DEFINE_VSUM_AVX2(vsum_sym_u8_avx2, uint8_t, LOAD_U8, PAIR_INT, ONE_INT)
DEFINE_VSUM_AVX2(vsum_sym_u16_avx2, uint16_t, LOAD_U16, PAIR_INT, ONE_INT)
DEFINE_VSUM_AVX2(vsum_sym_f32_avx2, float, LOAD_U8, PAIR_F32, ONE_F32)

/* One horizontal-sum routine per ISA: 4 vector accumulators of W lanes, 4*W
 * outputs per step; TAIL finishes the last e < n outputs. */
#define DEFINE_HCONV_SIMD(NAME, TARGET, V, W, SET1, MUL, ADD, FMADD, LOADU, STOREU, TAIL)      \
    TARGET static void NAME(const float *v, int C, const float *k, int ntaps, int64_t n, float *out) \
    {                                                                                        \
        const int half = ntaps / 2;                                                          \
        int64_t e = 0;                                                                       \
        for (; e + 4 * (W) <= n; e += 4 * (W)) {                                             \
            const float *b = v + e, *m = b + half * C;                                       \
            const V kc = SET1(k[half]);                                                      \
            V a0 = MUL(kc, LOADU(m)), a1 = MUL(kc, LOADU(m + (W)));                          \
            V a2 = MUL(kc, LOADU(m + 2 * (W))), a3 = MUL(kc, LOADU(m + 3 * (W)));            \
            for (int i = 0; i < half; i++) {                                                 \
                const float *p = b + i * C, *q = b + (ntaps - 1 - i) * C;                    \
                const V ki = SET1(k[i]);                                                     \
                a0 = FMADD(ki, ADD(LOADU(p), LOADU(q)), a0);                                 \
                a1 = FMADD(ki, ADD(LOADU(p + (W)), LOADU(q + (W))), a1);                     \
                a2 = FMADD(ki, ADD(LOADU(p + 2 * (W)), LOADU(q + 2 * (W))), a2);             \
                a3 = FMADD(ki, ADD(LOADU(p + 3 * (W)), LOADU(q + 3 * (W))), a3);             \
            }                                                                                \
            STOREU(out + e, a0);                                                             \
            STOREU(out + e + (W), a1);                                                       \
            STOREU(out + e + 2 * (W), a2);                                                   \
            STOREU(out + e + 3 * (W), a3);                                                   \
        }                                                                                    \
        TAIL                                                                                 \
    }

/* the vector lanes' arithmetic (fused multiply-adds in the same order) */
#define HCONV_SCALAR_TAIL                                                                    \
    for (; e < n; e++) {                                                                     \
        const float *b = v + e;                                                              \
        float a = k[half] * b[half * C];                                                     \
        for (int i = 0; i < half; i++) a = fmaf(k[i], b[i * C] + b[(ntaps - 1 - i) * C], a); \
        out[e] = a;                                                                          \
    }
DEFINE_HCONV_SIMD(hconv_sym_avx2, AVX2, __m256, 8, _mm256_set1_ps, _mm256_mul_ps, _mm256_add_ps,
                  _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_storeu_ps, HCONV_SCALAR_TAIL)

static int cpu_has_avx2_fma(void) { return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"); }
/* ---- AVX-512 versions of the same (CPUs with AVX512F + AVX512BW): twice the
 * lanes, the same operations in the same order per output, so the results
 * are bit-identical to the AVX2 ones. */
#define AVX512 __attribute__((target("avx512f,avx512bw,fma")))
#define LOAD_U8_512(p) _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define LOAD_U16_512(p) _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(p)))
#define PAIR_INT_512(L, p, q) _mm512_cvtepi32_ps(_mm512_add_epi32(L(p), L(q)))
#define ONE_INT_512(L, p) _mm512_cvtepi32_ps(L(p))
#define PAIR_F32_512(L, p, q) _mm512_add_ps(_mm512_loadu_ps(p), _mm512_loadu_ps(q))
#define ONE_F32_512(L, p) _mm512_loadu_ps(p)

#define DEFINE_VSUM_AVX512(NAME, T, LOAD, PAIR, ONE) \
    DEFINE_VSUM_SIMD(NAME, AVX512, T, __m512, 16, _mm512_set1_ps, _mm512_fmadd_ps, _mm512_storeu_ps, LOAD, PAIR, ONE)

DEFINE_VSUM_AVX512(vsum_sym_u8_avx512, uint8_t, LOAD_U8_512, PAIR_INT_512, ONE_INT_512)
DEFINE_VSUM_AVX512(vsum_sym_u16_avx512, uint16_t, LOAD_U16_512, PAIR_INT_512, ONE_INT_512)
DEFINE_VSUM_AVX512(vsum_sym_f32_avx512, float, LOAD_U8_512, PAIR_F32_512, ONE_F32_512)

/* the rest (fewer than 64) through the AVX2 routine: the same operations */
DEFINE_HCONV_SIMD(hconv_sym_avx512, AVX512, __m512, 16, _mm512_set1_ps, _mm512_mul_ps, _mm512_add_ps,
                  _mm512_fmadd_ps, _mm512_loadu_ps, _mm512_storeu_ps,
                  if (e < n) hconv_sym_avx2(v + e, C, k, ntaps, n - e, out + e);)

/* The CPU tests read flags the runtime sets before main; asked from every
 * thread of a pass, they keep no cache of their own (a lazily set static
 * was a data race between the pass's threads). */
static int cpu_has_avx512(void)
{
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif

/* Vertical sum, dispatched on dtype, symmetry and the CPU. */
static void vsum_any(parac_dtype dtype, const void *const *rows, const float *k, int ntaps, int symmetric,
                     float c, int64_t n, float *acc)
{
#ifdef HAVE_X86_SIMD
    if (symmetric && cpu_has_avx512()) {
        if (dtype == PARAC_U8) vsum_sym_u8_avx512(rows, k, ntaps, c, n, acc);
        else if (dtype == PARAC_U16) vsum_sym_u16_avx512(rows, k, ntaps, c, n, acc);
        else vsum_sym_f32_avx512(rows, k, ntaps, c, n, acc);
        return;
    }
    if (symmetric && cpu_has_avx2_fma()) {
        if (dtype == PARAC_U8) vsum_sym_u8_avx2(rows, k, ntaps, c, n, acc);
        else if (dtype == PARAC_U16) vsum_sym_u16_avx2(rows, k, ntaps, c, n, acc);
        else vsum_sym_f32_avx2(rows, k, ntaps, c, n, acc);
        return;
    }
#endif
    vsum_for(dtype)(rows, k, ntaps, symmetric, c, n, acc);
}

/* ---- horizontal pass on a padded float row ---------------------------------
 * out[e] = sum_i k[i] * v[e + i*C] for e in 0..n-1; v holds n + (ntaps-1)*C. */
HOT static void hconv_portable(const float *v, int C, const float *k, int ntaps, int symmetric, int64_t n,
                      float *out)
{
    const int half = ntaps / 2;
    for (int64_t e0 = 0; e0 < n; e0 += BLOCK) {
        const int64_t m = n - e0 < BLOCK ? n - e0 : BLOCK;
        const float *b = v + e0;
        float a[BLOCK];
        if (m == BLOCK) {
            if (symmetric) {
                const float kc = k[half];
                for (int t = 0; t < BLOCK; t++) a[t] = kc * b[t + half * C];
                for (int i = 0; i < half; i++) {
                    const float ki = k[i];
                    const float *p = b + i * C, *q = b + (ntaps - 1 - i) * C;
                    for (int t = 0; t < BLOCK; t++) a[t] += ki * (p[t] + q[t]);
                }
            } else {
                for (int t = 0; t < BLOCK; t++) a[t] = 0.0f;
                for (int i = 0; i < ntaps; i++) {
                    const float ki = k[i];
                    const float *p = b + i * C;
                    for (int t = 0; t < BLOCK; t++) a[t] += ki * p[t];
                }
            }
        } else {
            for (int t = 0; t < m; t++) a[t] = 0.0f;
            for (int i = 0; i < ntaps; i++) {
                const float ki = k[i];
                const float *p = b + i * C;
                for (int t = 0; t < m; t++) a[t] += ki * p[t];
            }
        }
        memcpy(out + e0, a, (size_t)m * sizeof(float));
    }
}

static void hconv(const float *v, int C, const float *k, int ntaps, int symmetric, int64_t n, float *out)
{
#ifdef HAVE_X86_SIMD
    if (symmetric && cpu_has_avx512()) {
        hconv_sym_avx512(v, C, k, ntaps, n, out);
        return;
    }
    if (symmetric && cpu_has_avx2_fma()) {
        hconv_sym_avx2(v, C, k, ntaps, n, out);
        return;
    }
#endif
    hconv_portable(v, C, k, ntaps, symmetric, n, out);
}

/* Fill the `r` pixels of margin on both sides of a padded row whose interior
 * (w pixels of C floats) starts at v + r*C. */
static void fill_margins(float *v, int64_t w, int C, int64_t r, parac__border_rule b)
{
    float *in = v + r * C;
    for (int64_t p = 1; p <= r; p++) {
        int64_t il = parac__border_index(-p, w, b.mode), ir = parac__border_index(w - 1 + p, w, b.mode);
        for (int c = 0; c < C; c++) {
            in[-p * C + c] = il < 0 ? b.value : in[il * C + c];
            in[(w - 1 + p) * C + c] = ir < 0 ? b.value : in[ir * C + c];
        }
    }
}

static int is_symmetric(const float *k, int ntaps)
{
    for (int i = 0; i < ntaps / 2; i++)
        if (k[i] != k[ntaps - 1 - i]) return 0;
    return 1;
}

static int nthreads(int threads) { return threads > 0 ? threads : omp_get_max_threads(); }

/* ---- z pass: a float volume from `in` filtered along z -------------------- */
static parac_status z_pass(const parac_image *in, const parac__fir1d *kz, parac__border_rule b,
                           int threads, parac_image **tmp)
{
    PARAC_TRY(parac_image_create(tmp, in->width, in->height, in->depth, in->channels, PARAC_F32,
                                 PARAC_MEMORY_HOST, -1));
    parac_image *t = *tmp;
    const int ntaps = 2 * kz->radius + 1, sym = is_symmetric(kz->taps, ntaps);
    const int64_t n = in->width * in->channels, H = in->height, D = in->depth;
    const size_t esz = parac_dtype_size(in->dtype);
    void *zeros = parac__calloc((size_t)n, esz);
    if (!zeros) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "z pass: no memory for a row");
    int failed = 0;
#pragma omp parallel num_threads(nthreads(threads))
    {
        const void **rows = parac__malloc(sizeof(void *) * (size_t)ntaps);
        if (!rows) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (int64_t r = 0; r < H * D; r++) {
            if (!rows) continue;
            int64_t z = r / H, y = r % H;
            float c = 0.0f;
            for (int j = 0; j < ntaps; j++) {
                int64_t zz = parac__border_index(z + j - kz->radius, D, b.mode);
                if (zz < 0) {
                    rows[j] = zeros;
                    c += kz->taps[j] * b.value;
                } else {
                    rows[j] = parac_image_at(in, 0, y, zz);
                }
            }
            vsum_any(in->dtype, rows, kz->taps, ntaps, sym, c, n, parac_image_at(t, 0, y, z));
        }
        free(rows);
    }
    free(zeros);
    if (failed) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "z pass: no memory for row pointers");
    return PARAC_OK;
}

static parac_status check_images(const parac_image *in, const parac_image *out, const char *what)
{
    if (in->width != out->width || in->height != out->height || in->depth != out->depth ||
        in->channels != out->channels)
        return parac__fail(PARAC_ERR_INTERNAL, "%s: input and output sizes differ", what);
    if (!parac_image_is_packed(in) || !parac_image_is_packed(out))
        return parac__fail(PARAC_ERR_INTERNAL, "%s: images must be packed", what);
    return PARAC_OK;
}

/* ---- separable ------------------------------------------------------------ */

/* x and y passes of every slice of `src` into `out`. */
static parac_status xy_passes(const parac_image *src, parac_image *out, const parac__fir1d *kx,
                              const parac__fir1d *ky, parac__border_rule b, int threads)
{
    const int C = src->channels, rx = kx->radius, ry = ky->radius;
    const int ntx = 2 * rx + 1, nty = 2 * ry + 1;
    const int symx = is_symmetric(kx->taps, ntx), symy = is_symmetric(ky->taps, nty);
    const int64_t W = src->width, H = src->height, D = src->depth, n = W * C;
    const size_t esz = parac_dtype_size(src->dtype);
    void *zeros = parac__calloc((size_t)n, esz);
    if (!zeros) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "separable: no memory for a row");
    int failed = 0;
#pragma omp parallel num_threads(nthreads(threads))
    {
        float *v = parac__malloc(sizeof(float) * (size_t)(W + 2 * (int64_t)rx) * C);
        float *o = parac__malloc(sizeof(float) * (size_t)n);
        const void **rows = parac__malloc(sizeof(void *) * (size_t)nty);
        if (!v || !o || !rows) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 16)
        for (int64_t r = 0; r < H * D; r++) {
            if (!v || !o || !rows) continue;
            int64_t z = r / H, y = r % H;
            float *vin = v + (int64_t)rx * C;
            if (ry > 0) {
                float c = 0.0f;
                for (int j = 0; j < nty; j++) {
                    int64_t yy = parac__border_index(y + j - ry, H, b.mode);
                    if (yy < 0) {
                        rows[j] = zeros;
                        c += ky->taps[j] * b.value;
                    } else {
                        rows[j] = parac_image_at(src, 0, yy, z);
                    }
                }
                vsum_any(src->dtype, rows, ky->taps, nty, symy, c, n, vin);
            } else {
                parac__load_row_f32(parac_image_at(src, 0, y, z), src->dtype, n, vin);
            }
            const float *res = vin;
            if (rx > 0) {
                fill_margins(v, W, C, rx, b);
                hconv(v, C, kx->taps, ntx, symx, n, o);
                res = o;
            }
            parac__store_row_f32(res, out->dtype, n, parac_image_at(out, 0, y, z));
        }
        free(v);
        free(o);
        free(rows);
    }
    free(zeros);
    if (failed) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "separable: no memory for row buffers");
    return PARAC_OK;
}

parac_status parac__cpu_separable(const parac_image *in, parac_image *out, const parac__fir1d k[3],
                                  parac__border_rule border, int threads)
{
    PARAC_TRY(check_images(in, out, "separable"));
    if (in->depth > 1 && k[2].radius > 0) {
        parac_image *tmp = NULL;
        parac_status st = z_pass(in, &k[2], border, threads, &tmp);
        if (st == PARAC_OK) st = xy_passes(tmp, out, &k[0], &k[1], border, threads);
        parac_image_destroy(tmp);
        return st;
    }
    return xy_passes(in, out, &k[0], &k[1], border, threads);
}

/* ---- direct 2D ------------------------------------------------------------ */

HOT static void dconv_row(const float *const *prow, const float *k2d, int ntx, int nty, int C,
                          int64_t n, float *out)
{
    for (int64_t e0 = 0; e0 < n; e0 += BLOCK) {
        const int64_t m = n - e0 < BLOCK ? n - e0 : BLOCK;
        float a[BLOCK];
        for (int t = 0; t < BLOCK; t++) a[t] = 0.0f;
        for (int j = 0; j < nty; j++) {
            const float *b = prow[j] + e0;
            const float *kr = k2d + (int64_t)j * ntx;
            if (m == BLOCK) {
                for (int i = 0; i < ntx; i++) {
                    const float ki = kr[i];
                    const float *p = b + i * C;
                    for (int t = 0; t < BLOCK; t++) a[t] += ki * p[t];
                }
            } else {
                for (int i = 0; i < ntx; i++) {
                    const float ki = kr[i];
                    const float *p = b + i * C;
                    for (int t = 0; t < m; t++) a[t] += ki * p[t];
                }
            }
        }
        memcpy(out + e0, a, (size_t)m * sizeof(float));
    }
}

static parac_status direct_slices(const parac_image *src, parac_image *out, const float *k2d, int rx,
                                  int ry, parac__border_rule b, int threads)
{
    const int C = src->channels, ntx = 2 * rx + 1, nty = 2 * ry + 1;
    const int64_t W = src->width, H = src->height, D = src->depth, n = W * C;
    const int64_t pw = (W + 2 * (int64_t)rx) * C; /* padded row length in floats */
    if (pw * (H + 1) > ((int64_t)1 << 30))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                           "direct: the slice padded by the kernel radius %d is too large; use "
                           "method separable", rx);
    float *pad = parac__malloc(sizeof(float) * (size_t)(pw * (H + 1)));
    if (!pad) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "direct: no memory for the padded slice");
    float *const_row = pad + pw * H;
    for (int64_t i = 0; i < pw; i++) const_row[i] = b.value;
    int failed = 0;
    for (int64_t z = 0; z < D && !failed; z++) {
#pragma omp parallel for num_threads(nthreads(threads)) schedule(static)
        for (int64_t y = 0; y < H; y++) {
            float *row = pad + pw * y;
            parac__load_row_f32(parac_image_at(src, 0, y, z), src->dtype, n, row + (int64_t)rx * C);
            fill_margins(row, W, C, rx, b);
        }
#pragma omp parallel num_threads(nthreads(threads))
        {
            const float **prow = parac__malloc(sizeof(float *) * (size_t)nty);
            float *o = parac__malloc(sizeof(float) * (size_t)n);
            if (!prow || !o) {
#pragma omp atomic write
                failed = 1;
            }
#pragma omp for schedule(dynamic, 16)
            for (int64_t y = 0; y < H; y++) {
                if (!prow || !o) continue;
                for (int j = 0; j < nty; j++) {
                    int64_t yy = parac__border_index(y + j - ry, H, b.mode);
                    prow[j] = yy < 0 ? const_row : pad + pw * yy;
                }
                dconv_row(prow, k2d, ntx, nty, C, n, o);
                parac__store_row_f32(o, out->dtype, n, parac_image_at(out, 0, y, z));
            }
            free(prow);
            free(o);
        }
    }
    free(pad);
    if (failed) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "direct: no memory for row buffers");
    return PARAC_OK;
}

parac_status parac__cpu_direct2d(const parac_image *in, parac_image *out, const float *k2d, int rx,
                                 int ry, const parac__fir1d *kz, parac__border_rule border,
                                 int threads)
{
    PARAC_TRY(check_images(in, out, "direct"));
    if (in->depth > 1 && kz && kz->radius > 0) {
        parac_image *tmp = NULL;
        parac_status st = z_pass(in, kz, border, threads, &tmp);
        if (st == PARAC_OK) st = direct_slices(tmp, out, k2d, rx, ry, border, threads);
        parac_image_destroy(tmp);
        return st;
    }
    return direct_slices(in, out, k2d, rx, ry, border, threads);
}

/* Used by the FFT method for its z pass. */
parac_status parac__cpu_z_pass(const parac_image *in, const parac__fir1d *kz,
                               parac__border_rule border, int threads, parac_image **tmp)
{
    return z_pass(in, kz, border, threads, tmp);
}
