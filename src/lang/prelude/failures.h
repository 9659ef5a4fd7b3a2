/* Failures and matrix storage of generated host code (both targets), copied
 * after helpers.h (storage raises and holds, so it lives here). Called
 * through NAME_try(), a failing step releases what the call holds
 * (matrices, device buffers) and NAME_try() returns its status; called
 * directly, the failure is reported and the program exits with status 1, as
 * a plain C program would. The generated file defines PARAC__OUT_OF_MEMORY
 * (libparac's PARAC_ERR_OUT_OF_MEMORY) before it. */
/* ---- failures: through NAME_try() a failing step releases what the call holds
 * and returns its status; called directly, the failure is reported and the
 * program exits with status 1 ---- */
#include <setjmp.h>
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define PARAC__TLS _Thread_local
#else
#define PARAC__TLS __thread
#endif
typedef struct parac__held { void (*release)(void *); void *ptr; } parac__held;
static PARAC__TLS jmp_buf *parac__jmp;      /* the innermost NAME_try() running */
static PARAC__TLS int parac__jmp_status;
static PARAC__TLS int parac__held_base;     /* its first entry in parac__held_v */
static PARAC__TLS parac__held *parac__held_v;
static PARAC__TLS int parac__held_n, parac__held_cap;
static PARAC__TLS char parac__message[512];

PARAC__HELPER void parac__raise(int status, const char *where, const char *message)
{
    snprintf(parac__message, sizeof parac__message, "%s: %s", where, message);
    if (!parac__jmp) {
        fprintf(stderr, "%s\n", parac__message);
        exit(1);
    }
    while (parac__held_n > parac__held_base) {
        parac__held h = parac__held_v[--parac__held_n];
        h.release(h.ptr);
    }
    parac__jmp_status = status;
    longjmp(*parac__jmp, 1);
}

/* Inside NAME_try(): what to release if a later step fails. */
PARAC__HELPER void parac__hold(void (*release)(void *), void *ptr)
{
    if (!parac__jmp) return;
    if (parac__held_n == parac__held_cap) {
        int cap = parac__held_cap ? 2 * parac__held_cap : 16;
        parac__held *v = (parac__held *)realloc(parac__held_v, sizeof *v * (size_t)cap);
        if (!v) {
            release(ptr);
            parac__raise(PARAC__OUT_OF_MEMORY, "parac program", "out of memory");
        }
        parac__held_v = v;
        parac__held_cap = cap;
    }
    parac__held_v[parac__held_n].release = release;
    parac__held_v[parac__held_n++].ptr = ptr;
}

PARAC__HELPER void parac__unhold(void *ptr)
{
    for (int i = parac__held_n - 1; i >= parac__held_base; i--)
        if (parac__held_v[i].ptr == ptr) {
            memmove(parac__held_v + i, parac__held_v + i + 1, sizeof *parac__held_v * (size_t)(parac__held_n - i - 1));
            parac__held_n--;
            return;
        }
}

/* Storage of a matrix: 64 bytes holding the size of its own mapping (0: from
 * the heap), then the rows. From 256 KiB up a matrix is a mapping of its
 * own, and one that a call frees is kept for the next call on the same
 * thread (up to 16): a pipeline called again reuses its pages, zeroed by
 * memset, instead of faulting fresh ones in a page at a time, which costs
 * more than a stencil's arithmetic (the C target's rings of rows, a few
 * hundred KiB each, included: the heap would give them back to the system
 * at every call). */
enum { PARAC__SPARE_BLOCKS = 16 };
#if defined(PARAC__MAPPED)
typedef struct parac__spare_block { char *base; size_t len; } parac__spare_block;
static PARAC__TLS parac__spare_block parac__spare[PARAC__SPARE_BLOCKS];
#endif

PARAC__HELPER void parac__storage_free(void *p)
{
    if (!p) return;
    char *base = (char *)p - 64;
    size_t mapped;
    memcpy(&mapped, base, sizeof mapped);
#if defined(PARAC__MAPPED)
    if (mapped) {
        for (int i = 0; i < PARAC__SPARE_BLOCKS; i++)
            if (!parac__spare[i].base) {
                parac__spare[i].base = base;
                parac__spare[i].len = mapped;
                return;
            }
        munmap(base, mapped);
        return;
    }
#endif
    free(base);
}

/* zero: whether the rows start as zeros (0: whatever the storage held) */
PARAC__HELPER void *parac__storage_alloc(size_t rows, size_t row, int zero)
{
    if (row && rows > (SIZE_MAX - 64) / row) return NULL;
    const size_t total = rows * row + 64;
    size_t mapped = 0;
    char *base = NULL;
#if defined(PARAC__MAPPED)
    const size_t page = (size_t)4 << 10;
    if (total >= ((size_t)256 << 10) && total <= SIZE_MAX - page) {
        const size_t len = (total + page - 1) & ~(page - 1);
        for (int i = 0; i < PARAC__SPARE_BLOCKS && !base; i++)
            if (parac__spare[i].base && parac__spare[i].len == len) {
                base = parac__spare[i].base;
                parac__spare[i].base = NULL;
                if (zero) memset(base, 0, total);
                mapped = len;
            }
        if (!base) {
            void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m != MAP_FAILED) {
                base = (char *)m;
                mapped = len;
            }
        }
    }
#endif
    if (!base) base = (char *)(zero ? calloc(1, total) : malloc(total));
    if (!base) return NULL;
    memcpy(base, &mapped, sizeof mapped);
    return base + 64;
}

/* Storage of a parac_matrix declared in the program: rows padded to 64 bytes,
 * zeroed (zero), or as the storage was (0: the program writes every element
 * before it reads one, written_first.c). */
PARAC__HELPER void *parac__alloc_matrix_as(long rows, long cols, size_t elem, long *pitch, int zero)
{
    size_t row = (size_t)(cols > 0 ? cols : 1) * elem;
    row = (row + 63) / 64 * 64;
    *pitch = (long)(row / elem);
    void *p = parac__storage_alloc((size_t)(rows > 0 ? rows : 1), row, zero);
    if (!p) {
        char what[96];
        snprintf(what, sizeof what, "out of memory for a %ldx%ld matrix", rows, cols);
        parac__raise(PARAC__OUT_OF_MEMORY, "parac program", what);
    }
    parac__hold(parac__storage_free, p);
    return p;
}
PARAC__HELPER void *parac__alloc_matrix(long rows, long cols, size_t elem, long *pitch)
{
    return parac__alloc_matrix_as(rows, cols, elem, pitch, 1);
}
PARAC__HELPER void *parac__alloc_matrix_unset(long rows, long cols, size_t elem, long *pitch)
{
    return parac__alloc_matrix_as(rows, cols, elem, pitch, 0);
}

/* The row pitch (elements) of a matrix that only kernels use: no host storage. */
PARAC__HELPER long parac__matrix_pitch(long cols, size_t elem)
{
    const size_t row = ((size_t)(cols > 0 ? cols : 1) * elem + 63) / 64 * 64;
    return (long)(row / elem);
}

PARAC__HELPER void parac__free_matrix(void *p)
{
    parac__unhold(p);
    parac__storage_free(p);
}

/* A matrix passed to parac__m_NAME (a call from the same file) must have the
 * sizes its parameter declares (shape: d0, d1, d2, pitch); `where` is the
 * parameter's place in the source. */
PARAC__HELPER void parac__same_shape(const long *shape, long d0, long d1, long d2, const char *where, const char *name)
{
    if (shape[0] == d0 && shape[1] == d1 && shape[2] == d2) return;
    char what[256];
    snprintf(what, sizeof what, "the matrix passed as '%s' has %ld x %ld x %ld elements where the parameter declares "
             "%ld x %ld x %ld", name, shape[0], shape[1], shape[2], d0, d1, d2);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
}

/* A window of run-time length (checked on the host before its iterator
 * runs): at least one element; a convolution's filter vector exactly as
 * long as the window. `where` is the operator's place in the source. */
PARAC__HELPER void parac__window_length(long len, const char *where, const char *name)
{
    if (len >= 1 && len <= (1L << 30)) return;
    char what[256];
    snprintf(what, sizeof what, "the window of '%s' has the run-time length %ld: it must be from 1 to 2^30", name,
             len);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
}

PARAC__HELPER void parac__filter_length(long have, long len, const char *where, const char *name)
{
    if (have == len) return;
    char what[256];
    snprintf(what, sizeof what, "the filter '%s' has %ld elements but the window it weighs %ld", name, have, len);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
}

/* ---- pyramids (emit_host_pyramids.c) ---- */
/* A block of n zeroed elements, released by a failure inside NAME_try(). */
PARAC__HELPER void *parac__held_calloc(size_t n, size_t elem)
{
    void *p = calloc(n ? n : 1, elem);
    if (!p) parac__raise(PARAC__OUT_OF_MEMORY, "parac program", "out of memory");
    parac__hold(free, p);
    return p;
}

PARAC__HELPER void parac__free_held(void *p)
{
    parac__unhold(p);
    free(p);
}

PARAC__HELPER long parac__pyramid_levels(long levels, const char *where, const char *name)
{
    if (levels >= 1 && levels <= 64) return levels;
    char what[160];
    snprintf(what, sizeof what, "pyramid '%s' has %ld levels: it must have from 1 to 64", name, levels);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
    return 1;
}

/* Level 0 has d0 x d1 (x d2) elements; each level below half the rows and
 * columns of the one above, rounded up (of a 3-D level, planes x rows x
 * columns, the planes kept); rows padded as a declared matrix's.
 * shape[4 l ...] = {d0, d1, d2, pitch}. */
PARAC__HELPER void parac__pyramid_shapes(long *shape, long levels, long d0, long d1, long d2, int ndim, size_t elem,
                                         const char *where, const char *name)
{
    if (d0 < 0 || d1 < 0 || d2 < 0) {
        char what[200];
        snprintf(what, sizeof what, "pyramid '%s' has level 0 of %ld x %ld x %ld elements: sizes cannot be negative",
                 name, d0, d1, d2);
        parac__raise(PARAC__INVALID_ARGUMENT, where, what);
    }
    for (long l = 0; l < levels; l++) {
        long *s = shape + 4 * l;
        s[0] = d0;
        s[1] = d1;
        s[2] = d2;
        s[3] = parac__matrix_pitch(ndim == 3 ? d2 : d1, elem);
        if (ndim == 2) d0 = (d0 + 1) / 2;
        d1 = (d1 + 1) / 2;
        if (ndim == 3) d2 = (d2 + 1) / 2;
    }
}

/* P[l] in a call: l must name one of the levels. */
PARAC__HELPER long parac__level(long levels, long l, const char *where, const char *name)
{
    if (l >= 0 && l < levels) return l;
    char what[160];
    snprintf(what, sizeof what, "level %ld of pyramid '%s', which has levels 0 to %ld", l, name, levels - 1);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
    return 0;
}

/* Two levels of one pyramid in one call must differ (one matrix passed twice). */
PARAC__HELPER long parac__level_apart(long l, long other, const char *where, const char *name)
{
    if (l != other) return l;
    char what[200];
    snprintf(what, sizeof what, "level %ld of pyramid '%s' is passed twice to one call: its iterators take their "
             "matrices to be distinct", l, name);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
    return l;
}

/* A read in a border rule's value (emit_host_rules.c): at `index` along `axis`
 * of `matrix`, which has `size` elements there. */
PARAC__HELPER void parac__rule_read(long index, long size, const char *where, const char *rule, const char *matrix,
                                    int axis)
{
    if (index >= 0 && index < size) return;
    char what[320];
    snprintf(what, sizeof what, "border rule '%s' reads %s at %ld along its axis %d, which has %ld elements: the "
             "matrix is too small for the rule's entries that the iterator reaches", rule, matrix, index, axis, size);
    parac__raise(PARAC__INVALID_ARGUMENT, where, what);
}
