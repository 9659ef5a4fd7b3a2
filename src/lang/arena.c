/* One arena for the whole compile: lang_reset() frees it all. */
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

void *lang_alloc(size_t size)
{
    size = (size + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    if (!chunks || chunks->used + size > chunks->cap) {
        size_t cap = size > (1 << 16) ? size : (1 << 16);
        Chunk *c = malloc(sizeof *c + cap);
        if (!c) {
            fputs("paracc: out of memory\n", stderr);
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
