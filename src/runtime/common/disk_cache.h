/* The on-disk cache shared by the device runtimes (compiled programs, the
 * search's choices): its directory, a key hash, whole-file reads and writes
 * that never leave a half-written file under the final name. */
#ifndef PARAC_CORE_DISK_CACHE_H
#define PARAC_CORE_DISK_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* $PARAC_CACHE_DIR, else $XDG_CACHE_HOME/parac, else $HOME/.cache/parac,
 * created if needed; 0 when off (PARAC_CACHE_DIR=off) or not creatable. */
int parac__cache_dir(char *dir, size_t size);
/* FNV-1a 64 of a string onto h, with a separator after it. */
uint64_t parac__fnv(uint64_t h, const char *s);
/* The whole file (at most 1 GiB), malloc'ed; NULL when absent or empty. */
unsigned char *parac__read_all(const char *path, size_t *len);
/* Written to a temporary name beside path, then renamed; failures are
 * silent (the cache is an optimisation). */
void parac__write_atomic(const char *path, const unsigned char *data, size_t len);

#endif
