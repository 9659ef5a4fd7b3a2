/* The helpers that paracc copies into every generated host file (both
 * targets): system headers, strips of rows, min/max, and the boxes an
 * iteration space is split into (interior and border). Not included by
 * anything: cmake/embed_text.cmake turns it into a string of the compiler
 * (lang_prelude_helpers) after this opening comment, and prelude_check.c
 * compiles it with the project's warnings, so it is checked C. */
#if defined(__linux__) && !defined(_DEFAULT_SOURCE)
#define _DEFAULT_SOURCE /* mmap's MAP_ANONYMOUS under -std=c11 */
#endif
#include <limits.h>
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#if defined(__linux__)
#include <unistd.h>
#endif
#if defined(__linux__) && !defined(PARAC_NO_SPARE_STORAGE)
#include <sys/mman.h>
#if defined(MAP_ANONYMOUS)
#define PARAC__MAPPED 1
#endif
#endif

/* ---- helpers of the generated code (not every program uses every one) ---- */
#if defined(__GNUC__)
#define PARAC__HELPER static inline __attribute__((unused))
#else
#define PARAC__HELPER static inline
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
/* glibc's vector math library (libmvec) for the C target's SIMD lanes: a
 * lane loop that calls expf, sinf, powf... runs them 4, 8 or 16 lanes at a
 * time, within glibc's stated error of the scalar functions. glibc declares
 * them itself only under -ffast-math; GCC calls them from `omp simd` loops
 * when the C is compiled with -fno-math-errno (as parac run and
 * parac.compile build it: a call that may set errno keeps the loop scalar).
 * PARAC_NO_VECTOR_MATH leaves them out. */
#if defined(_OPENMP) && _OPENMP >= 201307 && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && \
    defined(__GLIBC__) && !defined(__FAST_MATH__) && !defined(PARAC_NO_VECTOR_MATH)
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 22)
#pragma omp declare simd notinbranch
float expf(float);
#pragma omp declare simd notinbranch
float logf(float);
#pragma omp declare simd notinbranch
float sinf(float);
#pragma omp declare simd notinbranch
float cosf(float);
#pragma omp declare simd notinbranch
float powf(float, float);
#pragma omp declare simd notinbranch
double exp(double);
#pragma omp declare simd notinbranch
double log(double);
#pragma omp declare simd notinbranch
double sin(double);
#pragma omp declare simd notinbranch
double cos(double);
#pragma omp declare simd notinbranch
double pow(double, double);
#endif
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)
#pragma omp declare simd notinbranch
float exp2f(float);
#pragma omp declare simd notinbranch
float exp10f(float);
#pragma omp declare simd notinbranch
float expm1f(float);
#pragma omp declare simd notinbranch
float log2f(float);
#pragma omp declare simd notinbranch
float log10f(float);
#pragma omp declare simd notinbranch
float log1pf(float);
#pragma omp declare simd notinbranch
float tanf(float);
#pragma omp declare simd notinbranch
float atanf(float);
#pragma omp declare simd notinbranch
float atan2f(float, float);
#pragma omp declare simd notinbranch
float tanhf(float);
#pragma omp declare simd notinbranch
float hypotf(float, float);
#endif
#endif
/* A clamp's interior among a row's lanes (C target): v = v0 + j * d at lane
 * from + j (d = v1 - v0); narrows [*k0, *k1) to the lanes where lo <= v <= hi. */
PARAC__HELPER long parac__div_floor(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); } /* b > 0 */
PARAC__HELPER void parac__clamp_lanes(long from, long v0, long v1, long lo, long hi, long *k0, long *k1)
{
    const long d = v1 - v0;
    long first, end; /* lanes from + first .. from + end - 1 */
    if (d == 0) {
        first = 0;
        end = lo <= v0 && v0 <= hi ? *k1 - from : 0;
    } else if (d > 0) { /* j >= ceil((lo - v0) / d), j <= floor((hi - v0) / d) */
        first = -parac__div_floor(v0 - lo, d);
        end = parac__div_floor(hi - v0, d) + 1;
    } else { /* j >= ceil((v0 - hi) / -d), j <= floor((v0 - lo) / -d) */
        first = -parac__div_floor(hi - v0, -d);
        end = parac__div_floor(v0 - lo, -d) + 1;
    }
    if (from + first > *k0) *k0 = from + first;
    if (from + end < *k1) *k1 = from + end;
    if (*k1 < *k0) *k1 = *k0;
}
/* PARAC_STRIP_ROWS: rows per strip, and strips on whatever the size (tests:
 * many strips on small images); 0 when unset. */
PARAC__HELPER long parac__strip_rows_set(void)
{
    const char *e = getenv("PARAC_STRIP_ROWS");
    return e && atol(e) > 0 ? atol(e) : 0;
}
/* Rows per strip when consecutive iterators run in strips (C target): 8 a
 * thread, at least 32, so that a strip's rows of every stage stay in cache. */
PARAC__HELPER long parac__strip_rows(void)
{
    if (parac__strip_rows_set() > 0) return parac__strip_rows_set();
#ifdef _OPENMP
    const long t = 8L * omp_get_max_threads();
    return t > 32 ? t : 32;
#else
    return 32;
#endif
}
/* Rows per strip where each thread runs loops over strips of its own (C
 * target, strips.c): 32 (PARAC_STRIP_ROWS where set). */
PARAC__HELPER long parac__thread_strip_rows(void)
{
    return parac__strip_rows_set() > 0 ? parac__strip_rows_set() : 32;
}
/* Rows per strip where each thread runs every stage over the strips of a
 * block of its own, each stage going on from the rows it computed for the
 * strip before (C target, strips.c): 8 (PARAC_STRIP_ROWS where set). Rows
 * are computed once per block whatever the height, so strips are low: a
 * strip's rows of every intermediate stay in the core's own cache. */
PARAC__HELPER long parac__block_strip_rows(void)
{
    return parac__strip_rows_set() > 0 ? parac__strip_rows_set() : 8;
}
PARAC__HELPER long parac__max_threads(void)
{
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}
PARAC__HELPER long parac__thread_index(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}
/* Strips of at most `strip` rows, halved (down to 8) until every thread
 * has two of the `rows` (unless PARAC_STRIP_ROWS sets them). */
PARAC__HELPER long parac__balanced_strip(long rows, long strip)
{
    if (parac__strip_rows_set() > 0) return strip;
    while (strip > 8 && rows < 2 * parac__max_threads() * strip) strip /= 2;
    return strip;
}
/* Rows of the blocks that threads take where each runs every stage of a
 * run over strips of its own (C target, strips.c): the rows shared evenly
 * by the threads, a whole number of strips. A block computes some rows
 * behind and ahead of itself that its neighbours compute too: the fewer
 * the blocks, the fewer such rows. */
PARAC__HELPER long parac__thread_block(long rows, long strip)
{
    const long t = parac__max_threads();
    const long per = ((rows + t - 1) / t + strip - 1) / strip * strip;
    return per > strip ? per : strip;
}
/* Rows of a ring that holds n: the power of two at or above n. */
PARAC__HELPER long parac__ring_rows(long n)
{
    long r = 1;
    while (r < n) r *= 2;
    return r;
}
/* The last-level cache's size in bytes (32 MB where the system does not
 * say). */
PARAC__HELPER long parac__cache_bytes(void)
{
    static long bytes;
    if (bytes == 0) {
        long b = 0;
#if defined(__linux__) && defined(_SC_LEVEL3_CACHE_SIZE)
        b = sysconf(_SC_LEVEL3_CACHE_SIZE);
        if (b <= 0) b = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
        bytes = b > 0 ? b : 32L << 20;
    }
    return bytes;
}
/* Whether strips pay for a run whose stages write `bytes` of intermediates:
 * from the last-level cache's size (below, the intermediates stay there
 * anyway and the strips' barriers cost more), or whenever PARAC_STRIP_ROWS
 * is set. */
PARAC__HELPER int parac__strips_pay(long bytes)
{
    return parac__strip_rows_set() > 0 || bytes >= parac__cache_bytes();
}
#define PARAC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PARAC_MAX(a, b) ((a) > (b) ? (a) : (b))
PARAC__HELPER long long parac__min_i(long long a, long long b) { return a < b ? a : b; }
PARAC__HELPER long long parac__max_i(long long a, long long b) { return a > b ? a : b; }
PARAC__HELPER double parac__min_f(double a, double b) { return a < b ? a : b; }
PARAC__HELPER double parac__max_f(double a, double b) { return a > b ? a : b; }

/* A box of iteration counters k (index = first + k * step). */
typedef struct parac__box { long lo[3], hi[3]; } parac__box;

PARAC__HELPER long parac__floordiv(long a, long b) { return a / b - (a % b != 0 && ((a < 0) != (b < 0))); }
PARAC__HELPER long parac__ceildiv(long a, long b) { return -parac__floordiv(-a, b); }

/* Number of iterations of lb:ub:step (ub excluded). */
PARAC__HELPER long parac__count(long lb, long ub, long step) { return ub > lb ? (ub - lb + step - 1) / step : 0; }

/* Narrow [*lo, *hi) to the counters whose index first + k*step lies in [ilo, ihi]. */
PARAC__HELPER void parac__interior(long first, long step, long n, long ilo, long ihi, long *lo, long *hi)
{
    long a = parac__ceildiv(ilo - first, step), b = parac__floordiv(ihi - first, step) + 1;
    if (a > *lo) *lo = a;
    if (b < *hi) *hi = b;
    if (*lo > n) *lo = n;
    if (*hi < *lo) *hi = *lo;
}

/* Split n[0..nd) into the interior box [lo, hi) (first) and up to 2*nd border boxes. */
PARAC__HELPER int parac__regions(int nd, const long *n, const long *lo, const long *hi, parac__box *box)
{
    int count = 1;
    for (int d = 0; d < 3; d++) {
        box[0].lo[d] = d < nd ? lo[d] : 0;
        box[0].hi[d] = d < nd ? hi[d] : 1;
    }
    for (int d = 0; d < nd; d++)
        for (int side = 0; side < 2; side++) {
            parac__box b;
            for (int e = 0; e < 3; e++) {
                b.lo[e] = e >= nd ? 0 : e < d ? lo[e] : 0;
                b.hi[e] = e >= nd ? 1 : e < d ? hi[e] : n[e];
            }
            b.lo[d] = side ? hi[d] : 0;
            b.hi[d] = side ? n[d] : lo[d];
            int empty = 0;
            for (int e = 0; e < 3; e++) empty |= b.hi[e] <= b.lo[e];
            if (!empty) box[count++] = b;
        }
    return count;
}

