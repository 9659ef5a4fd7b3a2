/* The on-disk cache of the device runtimes (see disk_cache.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc_internal.h"
#include "runtime/common/disk_cache.h"

uint64_t parac__fnv(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h ^ 0xff; /* separator */
}

int parac__cache_dir(char *dir, size_t size)
{
    const char *env = getenv("PARAC_CACHE_DIR");
    if (env && !strcmp(env, "off")) return 0;
    if (env && *env)
        snprintf(dir, size, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(dir, size, "%s/parac", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(dir, size, "%s/.cache/parac", env);
    else
        return 0;
    /* create the directory and its parents */
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", dir);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return 0;
    return 1;
}

unsigned char *parac__read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long n = ftell(f);
    rewind(f);
    if (n <= 0 || n > (1L << 30)) {
        fclose(f);
        return NULL;
    }
    unsigned char *b = parac__malloc((size_t)n);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

void parac__write_atomic(const char *path, const unsigned char *data, size_t len)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return;
    int ok = fwrite(data, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}
