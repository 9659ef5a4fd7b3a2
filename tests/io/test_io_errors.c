/* Bad input never crashes: truncated and corrupted files of every format,
 * absurd dimensions, unsupported variants; failed writes leave nothing. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "io_test_util.h"
#include "test_util.h"

/* A valid file of the given extension (bytes malloc'd). */
static uint8_t *valid_file(const char *ext, const parac_image *img, const parac_write_options *wo,
                           size_t *size)
{
    char name[64], path[512];
    snprintf(name, sizeof name, "valid_%s.%s", ext, ext);
    test_path(path, sizeof path, name);
    assert_ok(parac_image_write(path, img, wo));
    uint8_t *bytes = io_slurp(path, size);
    assert_non_null(bytes);
    unlink(path);
    return bytes;
}

/* Reading must fail cleanly, with a message. */
static void expect_failure(const uint8_t *data, size_t size, const char *what, size_t at)
{
    parac_image *img = (parac_image *)(uintptr_t)1;
    parac_error_clear();
    parac_status st = parac_image_read_memory(data, size, NULL, &img);
    if (st == PARAC_OK) fail_msg("%s cut at %zu bytes was read without error", what, at);
    assert_null(img);
    assert_true(parac_error_message()[0] != '\0');
}

/* Reading may fail or succeed but must not crash; a success is a sane image. */
static void expect_no_crash(const uint8_t *data, size_t size)
{
    parac_image *img = NULL;
    parac_status st = parac_image_read_memory(data, size, NULL, &img);
    if (st == PARAC_OK) {
        assert_non_null(img);
        assert_true(img->width > 0 && img->height > 0 && img->depth > 0);
        assert_true(img->channels >= 1 && img->channels <= 4);
        parac_image_destroy(img);
    } else {
        assert_null(img);
    }
}

typedef struct sample {
    const char *ext;
    parac_dtype dtype;
    int channels, depth;
    parac_write_options wo;
} sample;

static const sample samples[] = {
    {"png", PARAC_U8, 3, 1, {.png_compression = -1}},
    {"png", PARAC_U16, 2, 1, {.png_compression = -1}},
    {"jpg", PARAC_U8, 3, 1, {.png_compression = -1}},
    {"jpg", PARAC_U8, 1, 1, {.png_compression = -1}},
    {"tif", PARAC_F32, 2, 3, {.png_compression = -1}},
    {"tif", PARAC_U16, 3, 1, {.png_compression = -1, .tiff_compress = 1}},
    {"pgm", PARAC_U16, 1, 1, {.png_compression = -1}},
    {"ppm", PARAC_U8, 3, 1, {.png_compression = -1}},
    {"npy", PARAC_F64, 3, 2, {.png_compression = -1}},
    {"npy", PARAC_I32, 1, 1, {.png_compression = -1, .npy_fortran_order = 1}},
    {"nrrd", PARAC_U16, 4, 2, {.png_compression = -1}},
    {"nrrd", PARAC_F32, 1, 1, {.png_compression = -1, .nrrd_gzip = 1}},
};

static void test_truncated_files_fail(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
        const sample *sm = &samples[s];
        if (io_skip_ext(sm->ext)) continue;
        parac_image *img = io_random_image(37, 23, sm->depth, sm->channels, sm->dtype, s + 1);
        size_t n = 0;
        uint8_t *bytes = valid_file(sm->ext, img, &sm->wo, &n);
        size_t cuts[] = {n / 4, n / 3, n / 2, 2 * n / 3, 3 * n / 4, n - 16, n - 2, n - 1};
        for (size_t k = 0; k < 64 && k < n; k++) expect_failure(bytes, k, sm->ext, k);
        for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++)
            expect_failure(bytes, cuts[k], sm->ext, cuts[k]);
        /* the whole file still reads, and equals the image */
        parac_image *back = NULL;
        assert_ok(parac_image_read_memory(bytes, n, NULL, &back));
        if (strcmp(sm->ext, "jpg") != 0) assert_true(io_images_equal(img, back));
        parac_image_destroy(back);
        free(bytes);
        parac_image_destroy(img);
    }
}

static void test_corrupted_bytes_never_crash(void **state)
{
    (void)state;
    static const uint8_t values[] = {0x00, 0xFF, 0x7F, 0x80, 0x01, '9', ' ', '\n'};
    for (size_t s = 0; s < sizeof samples / sizeof samples[0]; s++) {
        const sample *sm = &samples[s];
        if (io_skip_ext(sm->ext)) continue;
        parac_image *img = io_random_image(9, 7, sm->depth, sm->channels, sm->dtype, s + 7);
        size_t n = 0;
        uint8_t *bytes = valid_file(sm->ext, img, &sm->wo, &n);
        uint8_t *copy = malloc(n);
        size_t limit = n < 160 ? n : 160;
        for (size_t pos = 0; pos < limit; pos++)
            for (size_t v = 0; v < sizeof values; v++) {
                memcpy(copy, bytes, n);
                copy[pos] = bytes[pos] == values[v] ? (uint8_t)~values[v] : values[v];
                expect_no_crash(copy, n);
            }
        /* TIFF keeps its directory at the end: corrupt that too */
        for (size_t pos = n > 200 ? n - 200 : 0; pos < n; pos++) {
            memcpy(copy, bytes, n);
            copy[pos] ^= 0xFF;
            expect_no_crash(copy, n);
        }
        free(copy);
        free(bytes);
        parac_image_destroy(img);
    }
}

/* Headers claiming 2^40 x 2^40 pixels, or more than the file can hold. */
static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* A little-endian TIFF header and one IFD of 8 entries (one value each) at
 * offset 8, its next-IFD offset 0: 118 bytes. */
typedef struct { uint16_t tag, type; uint32_t count, value; } tiff_entry;
static void tiff_header(uint8_t *tif, const tiff_entry entries[8])
{
    static const uint8_t head[10] = {'I', 'I', 42, 0, 8, 0, 0, 0, 8, 0};
    memcpy(tif, head, sizeof head);
    uint8_t *p = tif + sizeof head;
    for (size_t i = 0; i < 8; i++, p += 12) {
        const uint32_t v = entries[i].value;
        p[0] = (uint8_t)entries[i].tag, p[1] = (uint8_t)(entries[i].tag >> 8);
        p[2] = (uint8_t)entries[i].type, p[3] = 0;
        p[4] = (uint8_t)entries[i].count, p[5] = p[6] = p[7] = 0;
        p[8] = (uint8_t)v, p[9] = (uint8_t)(v >> 8), p[10] = (uint8_t)(v >> 16), p[11] = (uint8_t)(v >> 24);
    }
    memset(p, 0, 4);
}

static void test_absurd_dimensions_fail(void **state)
{
    (void)state;
    const char *texts[] = {
        "P5\n1099511627776 1099511627776\n255\n\x01\x02",
        "P6 100000 100000 255\n\x01\x02\x03",
        "P2\n99999999999999999999999 2\n255\n1 2\n",
        "P3\n3000000 3000000\n65535\n1 2 3\n",
        "P5\n4 4\n70000\n",
        "P5\n4 4\n0\n0123456789abcdef",
        "P5\n-4 4\n255\n0123456789abcdef",
        "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 1099511627776 1099511627776\nencoding: raw\n\nabc",
        "NRRD0004\ntype: float\ndimension: 3\nsizes: 100000 100000 100000\nendian: little\nencoding: gzip\n\nabc",
        "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 4 4\nencoding: raw\n\nshort",
        "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 4 4\ndata file: x.raw\nencoding: raw\n\n",
        "NRRD0004\ntype: short\ndimension: 2\nsizes: 4 4\nencoding: raw\n\n",
        "NRRD0004\ntype: uint8\ndimension: 5\nsizes: 1 1 1 1 1\nencoding: raw\n\nx",
        "NRRD0004\ntype: uint16\ndimension: 2\nsizes: 2 2\nencoding: raw\n\n12345678",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) expect_failure((const uint8_t *)texts[i], strlen(texts[i]), texts[i], 0);

    /* NPY headers */
    const char *dicts[] = {
        "{'descr': '|u1', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000, 3), }",
        "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 2, 2, 7), }",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 2), }",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (4,), }",
        "{'descr': '|u1', 'fortran_order': False, 'shape': (99999999999999999999999, 2), }",
        "{'descr': [('a', '<u1')], 'fortran_order': False, 'shape': (2, 2), }",
        "{'descr': '|u1', 'fortran_order': Maybe, 'shape': (2, 2), }",
        "{'descr': '|u1', 'shape': (2, 2), }",
    };
    for (size_t i = 0; i < sizeof dicts / sizeof dicts[0]; i++) {
        uint8_t buf[256] = "\x93NUMPY\x01\x00";
        size_t len = strlen(dicts[i]);
        buf[8] = (uint8_t)len, buf[9] = 0;
        memcpy(buf + 10, dicts[i], len);
        memset(buf + 10 + len, 7, 16);
        expect_failure(buf, 10 + len + 16, dicts[i], 0);
    }

    /* PNG: a valid IHDR (with its CRC) for 2^31-1 x 2^31-1 pixels */
    uint8_t png[8 + 25 + 20] = "\x89PNG\r\n\x1a\n";
    uint8_t *ihdr = png + 8;
    put_be32(ihdr, 13);
    memcpy(ihdr + 4, "IHDR", 4);
    put_be32(ihdr + 8, 0x7fffffff);
    put_be32(ihdr + 12, 0x7fffffff);
    ihdr[16] = 16, ihdr[17] = 6, ihdr[18] = 0, ihdr[19] = 0, ihdr[20] = 0;
    put_be32(ihdr + 21, (uint32_t)crc32(0, ihdr + 4, 17));
    expect_failure(png, sizeof png, "huge PNG", 0);

    /* JPEG: a real file whose SOF claims 65500 x 65500 */
    parac_image *img = io_random_image(16, 16, 1, 3, PARAC_U8, 5);
    size_t n = 0;
    parac_write_options wo = {.png_compression = -1};
    uint8_t *jpg = valid_file("jpg", img, &wo, &n);
    for (size_t i = 2; i + 9 < n; i++)
        if (jpg[i] == 0xFF && jpg[i + 1] == 0xC0) {
            jpg[i + 5] = 0xFF, jpg[i + 6] = 0xDC, jpg[i + 7] = 0xFF, jpg[i + 8] = 0xDC;
            break;
        }
    expect_failure(jpg, n, "huge JPEG", 0);
    free(jpg);

    /* TIFF: a little-endian header with one IFD claiming 2^31 x 2^31 RGB */
    uint8_t tif[8 + 2 + 12 * 8 + 4];
    const tiff_entry entries[8] = {
        {256, 4, 1, 0x80000000u}, {257, 4, 1, 0x80000000u}, {258, 3, 1, 8}, {259, 3, 1, 1},
        {262, 3, 1, 1}, {273, 4, 1, 8}, {278, 4, 1, 0x80000000u}, {279, 4, 1, 4}};
    tiff_header(tif, entries);
    expect_failure(tif, sizeof tif, "huge TIFF", 0);
    parac_image_destroy(img);
}

/* The reader's verdict on data whose header claims a 1-pixel-wide image of
 * 50 million rows: a few bytes must not make it allocate 3 GB of padded rows
 * (a fuzzer's finding: 174 bytes of TIFF asked for 3.2 GB). */
static void expect_claims_rejected(const uint8_t *data, size_t size, const char *what)
{
    parac_image *img = NULL;
    parac_error_clear();
    const parac_status st = parac_image_read_memory(data, size, NULL, &img);
    if (st != PARAC_ERR_FORMAT || !strstr(parac_error_message(), "claims"))
        fail_msg("%s: status %d, '%s' (expected the header's claim refused)", what, (int)st, parac_error_message());
    assert_null(img);
}

static void test_narrow_tall_claims_fail_before_allocating(void **state)
{
    (void)state;
    const uint32_t rows = 50000000u;
    /* TIFF: uncompressed 8-bit grey, 1 x 50e6, one strip */
    uint8_t tif[8 + 2 + 12 * 8 + 4 + 16] = {0};
    const tiff_entry entries[8] = {
        {256, 4, 1, 1}, {257, 4, 1, rows}, {258, 3, 1, 8}, {259, 3, 1, 1},
        {262, 3, 1, 1}, {273, 4, 1, 8 + 2 + 12 * 8 + 4}, {278, 4, 1, rows}, {279, 4, 1, rows}};
    tiff_header(tif, entries);
    expect_claims_rejected(tif, sizeof tif, "1 x 50e6 TIFF");
    /* PNG: IHDR for 1 x 50e6 8-bit grey, then the start of an IDAT */
    uint8_t png[8 + 25 + 14] = "\x89PNG\r\n\x1a\n";
    uint8_t *ihdr = png + 8;
    put_be32(ihdr, 13);
    memcpy(ihdr + 4, "IHDR", 4);
    put_be32(ihdr + 8, 1);
    put_be32(ihdr + 12, rows);
    ihdr[16] = 8, ihdr[17] = 0, ihdr[18] = 0, ihdr[19] = 0, ihdr[20] = 0;
    put_be32(ihdr + 21, (uint32_t)crc32(0, ihdr + 4, 17));
    uint8_t *idat = ihdr + 25;
    put_be32(idat, 2);
    memcpy(idat + 4, "IDAT\x78\x9c", 6);
    put_be32(idat + 10, (uint32_t)crc32(0, idat + 4, 6));
    expect_claims_rejected(png, sizeof png, "1 x 50e6 PNG");
}

static void test_unsupported_writes(void **state)
{
    (void)state;
    struct { const char *name; parac_dtype t; int c, d; } cases[] = {
        {"u.png", PARAC_F32, 1, 1}, {"u.png", PARAC_U8, 1, 3},  {"u.jpg", PARAC_U16, 3, 1},
        {"u.jpg", PARAC_U8, 2, 1},  {"u.jpg", PARAC_U8, 4, 1},  {"u.jpeg", PARAC_U8, 1, 2},
        {"u.pgm", PARAC_U8, 3, 1},  {"u.ppm", PARAC_U8, 1, 1},  {"u.pnm", PARAC_U8, 2, 1},
        {"u.pnm", PARAC_I32, 1, 1}, {"u.ppm", PARAC_U8, 3, 2},  {"u.gif", PARAC_U8, 1, 1},
        {"u", PARAC_U8, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        parac_image *img = io_random_image(5, 4, cases[i].d, cases[i].c, cases[i].t, i);
        char path[512];
        test_path(path, sizeof path, cases[i].name);
        parac_status st = parac_image_write(path, img, NULL);
        if (st != PARAC_ERR_UNSUPPORTED)
            fail_msg("writing %s %s %dch depth %d gave %s", cases[i].name, parac_dtype_name(cases[i].t),
                     cases[i].c, cases[i].d, parac_status_string(st));
        assert_non_null(strstr(parac_error_message(), cases[i].name));
        assert_int_equal(access(path, F_OK), -1);
        parac_image_destroy(img);
    }
    assert_int_equal(io_count_files(".u."), 0);
}

static void test_atomic_writing(void **state)
{
    (void)state;
    parac_image *img = io_random_image(8, 6, 1, 1, PARAC_U8, 3);
    char path[512];
    /* a missing directory: an error, and nothing created */
    test_path(path, sizeof path, "no_such_dir/x.png");
    assert_int_equal(parac_image_write(path, img, NULL), PARAC_ERR_IO);
    assert_non_null(strstr(parac_error_message(), "no_such_dir/x.png"));
    assert_int_equal(access(path, F_OK), -1);
    /* a failed write keeps the old file and leaves no temporary file */
    test_path(path, sizeof path, "keep.png");
    assert_ok(parac_image_write(path, img, NULL));
    size_t before = 0, after = 0;
    uint8_t *old = io_slurp(path, &before);
    parac_image *wide = io_random_image(8, 6, 1, 1, PARAC_F64, 3);
    assert_int_equal(parac_image_write(path, wide, NULL), PARAC_ERR_UNSUPPORTED);
    uint8_t *now = io_slurp(path, &after);
    assert_int_equal(before, after);
    assert_memory_equal(old, now, before);
    assert_int_equal(io_count_files(".keep.png"), 0);
    free(old);
    free(now);
    /* success replaces the file and leaves no temporary file */
    test_path(path, sizeof path, "keep.png");
    parac_image *other = io_random_image(3, 2, 1, 4, PARAC_U16, 4);
    assert_ok(parac_image_write(path, other, NULL));
    parac_image *back = NULL;
    assert_ok(parac_image_read(path, NULL, &back));
    assert_true(io_images_equal(other, back));
    assert_int_equal(io_count_files(".keep.png"), 0);
    /* the file has ordinary permissions, not mkstemp's 0600 */
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(sb.st_mode & 0777, 0666 & ~mask);
    unlink(path);
    /* through a symbolic link the target file is replaced, the link kept */
    char link[512];
    test_path(path, sizeof path, "link_target.npy");
    test_path(link, sizeof link, "link.npy");
    unlink(link);
    assert_ok(parac_image_write(path, img, NULL));
    assert_int_equal(symlink("link_target.npy", link), 0);
    assert_ok(parac_image_write(link, other, NULL));
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    parac_image_destroy(back);
    assert_ok(parac_image_read(path, NULL, &back));
    assert_true(io_images_equal(other, back));
    unlink(link);
    unlink(path);
    /* writing to a directory name fails */
    test_path(path, sizeof path, "");
    assert_int_not_equal(parac_image_write(path, img, NULL), PARAC_OK);
    parac_image_destroy(back);
    parac_image_destroy(other);
    parac_image_destroy(wide);
    parac_image_destroy(img);
}

/* A write that fails half-way (here: the file size limit, as on a full
 * disk) is an error for every format and leaves neither file behind. */
static void test_failure_mid_write(void **state)
{
    (void)state;
    const char *names[] = {"mid.png", "mid.jpg", "mid.tif", "mid.pgm", "mid.npy", "mid.nrrd"};
    parac_image *img = io_random_image(301, 203, 1, 1, PARAC_U8, 17);
    struct rlimit old;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    void (*previous)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = {4096, old.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[512];
        test_path(path, sizeof path, names[i]);
        parac_status st = parac_image_write(path, img, NULL);
        if (st == PARAC_OK && !io_skip_ext(names[i])) fail_msg("%s: writing past the size limit succeeded", names[i]);
        assert_int_equal(access(path, F_OK), -1);
    }
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, previous);
    assert_int_equal(io_count_files(".mid."), 0);
    parac_image_destroy(img);
}

static void test_read_errors_name_the_file(void **state)
{
    (void)state;
    char path[512];
    parac_image *img = NULL;
    test_path(path, sizeof path, "missing_file.png");
    assert_int_equal(parac_image_read(path, NULL, &img), PARAC_ERR_IO);
    assert_non_null(strstr(parac_error_message(), "missing_file.png"));
    test_path(path, sizeof path, "broken.npy");
    io_spit(path, "\x93NUMPY\x01\x00\x10\x00{'descr': '|u1'", 25);
    assert_int_equal(parac_image_read(path, NULL, &img), PARAC_ERR_FORMAT);
    assert_non_null(strstr(parac_error_message(), "broken.npy"));
    assert_null(img);
    test_path(path, sizeof path, "empty.png");
    io_spit(path, "", 0);
    assert_int_equal(parac_image_read(path, NULL, &img), PARAC_ERR_FORMAT);
    assert_non_null(strstr(parac_error_message(), "empty.png"));
    test_path(path, sizeof path, "text.txt");
    io_spit(path, "hello world", 11);
    assert_int_equal(parac_image_read(path, NULL, &img), PARAC_ERR_FORMAT);
    parac_format f;
    assert_int_equal(parac_format_detect(path, &f), PARAC_ERR_FORMAT);
    test_path(path, sizeof path, "");
    assert_int_equal(parac_image_read(path, NULL, &img), PARAC_ERR_IO);
    assert_int_equal(parac_image_read_memory(NULL, 0, NULL, &img), PARAC_ERR_FORMAT);
    /* unsupported variants say so */
    assert_int_equal(parac_image_read_memory("P4\n8 1\n\x55", 8, NULL, &img), PARAC_ERR_UNSUPPORTED);
    assert_non_null(strstr(parac_error_message(), "P4"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_files_fail),
        cmocka_unit_test(test_corrupted_bytes_never_crash),
        cmocka_unit_test(test_absurd_dimensions_fail),
        cmocka_unit_test(test_narrow_tall_claims_fail_before_allocating),
        cmocka_unit_test(test_unsupported_writes),
        cmocka_unit_test(test_atomic_writing),
        cmocka_unit_test(test_failure_mid_write),
        cmocka_unit_test(test_read_errors_name_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
