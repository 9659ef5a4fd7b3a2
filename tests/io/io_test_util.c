#define _POSIX_C_SOURCE 200809L
#include "io_test_util.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static double element(const parac_image *img, int64_t x, int64_t y, int64_t z, int c)
{
    const char *p = (const char *)parac_image_at(img, x, y, z) + (size_t)c * parac_dtype_size(img->dtype);
    switch (img->dtype) {
    case PARAC_U8: return *(const uint8_t *)p;
    case PARAC_U16: return *(const uint16_t *)p;
    case PARAC_I32: return *(const int32_t *)p;
    case PARAC_F32: return *(const float *)p;
    default: return *(const double *)p;
    }
}

int io_images_equal(const parac_image *a, const parac_image *b)
{
    if (a->width != b->width || a->height != b->height || a->depth != b->depth ||
        a->channels != b->channels || a->dtype != b->dtype)
        return 0;
    size_t elem = parac_dtype_size(a->dtype);
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            for (int64_t x = 0; x < a->width; x++)
                for (int c = 0; c < a->channels; c++) {
                    const char *pa = (const char *)parac_image_at(a, x, y, z) + c * elem;
                    const char *pb = (const char *)parac_image_at(b, x, y, z) + c * elem;
                    if (memcmp(pa, pb, elem) != 0) return 0;
                }
    return 1;
}

double io_max_abs_diff(const parac_image *a, const parac_image *b)
{
    assert_int_equal(a->width, b->width);
    assert_int_equal(a->height, b->height);
    assert_int_equal(a->depth, b->depth);
    assert_int_equal(a->channels, b->channels);
    double m = 0;
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            for (int64_t x = 0; x < a->width; x++)
                for (int c = 0; c < a->channels; c++) {
                    double d = element(a, x, y, z, c) - element(b, x, y, z, c);
                    if (d < 0) d = -d;
                    if (d > m) m = d;
                }
    return m;
}

parac_image *io_random_image(int64_t w, int64_t h, int64_t d, int c, parac_dtype t, uint64_t seed)
{
    parac_image *img = NULL;
    assert_ok(parac_image_create(&img, w, h, d, c, t, PARAC_MEMORY_HOST, -1));
    test_fill_random(img, seed);
    return img;
}

uint8_t *io_slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return buf;
}

void io_spit(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    fclose(f);
}

int io_count_files(const char *prefix)
{
    char dirpath[512];
    test_path(dirpath, sizeof dirpath, "");
    DIR *dir = opendir(dirpath);
    if (!dir) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(dir);
    return n;
}

int io_skip_ext(const char *ext)
{
#ifdef PARAC_HAVE_TIFF
    (void)ext;
    return 0;
#else
    const char *dot = strrchr(ext, '.');
    if (dot) ext = dot + 1;
    return strcmp(ext, "tif") == 0 || strcmp(ext, "tiff") == 0;
#endif
}
