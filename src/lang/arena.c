/* One arena for the whole compile: lang_reset() frees it all. When the
 * system has no memory left, lang_alloc jumps to the handler lang_compile
 * set (lang_on_oom), which reports it: the compiler never aborts. */
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lang/lang.h"

typedef struct Chunk {
    struct Chunk *next;
    size_t used, cap;
    max_align_t data[];
} Chunk;

static Chunk *chunks;
static jmp_buf *oom_handler;
static long countdown; /* tests: the countdown-th chunk fails (0: none) */
static size_t chunk_min = 1 << 16; /* while a countdown runs, one chunk per allocation */
static long failures;

jmp_buf *lang_on_oom(jmp_buf *handler)
{
    jmp_buf *old = oom_handler;
    oom_handler = handler;
    return old;
}

void lang_alloc_fail_after(long n)
{
    countdown = n > 0 ? n : 0;
    chunk_min = n > 0 ? 0 : 1 << 16; /* so that every allocation is a point of failure */
    failures = 0;
}

long lang_alloc_failures(void) { return failures; }

static void *chunk_alloc(size_t size)
{
    if (countdown > 0 && --countdown == 0) {
        failures++;
        return NULL;
    }
    return malloc(size);
}

void *lang_alloc(size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!chunks || chunks->used + size > chunks->cap) {
        size_t cap = size > chunk_min ? size : chunk_min;
        Chunk *c = cap <= SIZE_MAX - sizeof *c ? chunk_alloc(sizeof *c + cap) : NULL;
        if (!c) {
            if (oom_handler) longjmp(*oom_handler, 1);
            fputs("paracc: out of memory\n", stderr); /* outside a compile: nothing to return to */
            abort();
        }
        c->next = chunks;
        c->used = 0;
        c->cap = cap;
        chunks = c;
    }
    void *p = (char *)chunks->data + chunks->used;
    chunks->used += size;
    memset(p, 0, size);
    return p;
}

char *lang_strndup(const char *s, size_t n)
{
    char *p = lang_alloc(n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *lang_format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = lang_alloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void lang_reset(void)
{
    while (chunks) {
        Chunk *n = chunks->next;
        free(chunks);
        chunks = n;
    }
}
