/* The pictures of `parac demo` (see demo_preview.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demo_preview.h"
#include "parac/parac.h"

/* Returns from the function when a step fails (the caller frees). */
#define TRY(expr)                                  \
    do {                                           \
        parac_status try_status_ = (expr);         \
        if (try_status_ != PARAC_OK) return try_status_; \
    } while (0)

enum { MIN_LONG_SIDE = 256, GAP = 4 };

/* The image in u8, the same size and channels, on the host. */
static parac_status to_u8(parac_context *cpu, const parac_image *img, parac_image **out)
{
    parac_args *args = NULL;
    parac_status st = parac_args_create(&args);
    if (st == PARAC_OK) st = parac_args_set(args, "dtype", "u8");
    if (st == PARAC_OK)
        st = parac_args_set(args, "scale", parac_dtype_is_float(img->dtype) || img->dtype == PARAC_I32
                                               ? "minmax" : "full");
    parac_image *in = (parac_image *)img;
    if (st == PARAC_OK) st = parac_op_run(cpu, "convert", &in, 1, out, 1, args, NULL, 0);
    parac_args_destroy(args);
    return st;
}

static uint8_t *px(const parac_image *im, int64_t x, int64_t y, int64_t z)
{
    return (uint8_t *)parac_image_at(im, x, y, z);
}

/* A label image (u8, u16 or i32) in RGB: each label its own bright colour
 * (from a hash of the label, so neighbours differ), 0 black. */
static parac_status labels_rgb(const parac_image *img, parac_image **out)
{
    const parac_dtype t = img->dtype;
    if ((t != PARAC_I32 && t != PARAC_U8 && t != PARAC_U16) || img->channels != 1 || img->memory == PARAC_MEMORY_CUDA)
        return PARAC_ERR_INVALID_ARGUMENT;
    TRY(parac_image_create(out, img->width, img->height, img->depth, 3, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t z = 0; z < img->depth; z++)
        for (int64_t y = 0; y < img->height; y++)
            for (int64_t x = 0; x < img->width; x++) {
                const void *p = parac_image_at(img, x, y, z);
                const uint32_t l = t == PARAC_U8    ? *(const uint8_t *)p
                                   : t == PARAC_U16 ? *(const uint16_t *)p
                                                    : (uint32_t)*(const int32_t *)p;
                const uint32_t h = l * 2654435761u;
                uint8_t *o = px(*out, x, y, z);
                o[0] = l ? (uint8_t)(80 + (h >> 24) % 176) : 0;
                o[1] = l ? (uint8_t)(80 + (h >> 16) % 176) : 0;
                o[2] = l ? (uint8_t)(80 + (h >> 8) % 176) : 0;
            }
    return PARAC_OK;
}

/* A 2D u8 image of a u8 volume's three maximum-intensity projections (a
 * 2D image: a copy of it); the space between them is 0 (paint_gaps). */
static parac_status project(const parac_image *v, parac_image **out)
{
    const int64_t w = v->width, h = v->height, d = v->depth;
    const int c = v->channels;
    const int64_t W = d > 1 ? w + GAP + d : w, H = d > 1 ? h + GAP + d : h;
    TRY(parac_image_create(out, W, H, 1, c, PARAC_U8, PARAC_MEMORY_HOST, -1));
    parac_image *s = *out;
    for (int64_t y = 0; y < H; y++) memset(px(s, 0, y, 0), 0, (size_t)(W * c));
    for (int64_t y = 0; y < h; y++)
        for (int64_t x = 0; x < w; x++)
            for (int k = 0; k < c; k++) {
                uint8_t m = 0;
                for (int64_t z = 0; z < d; z++) {
                    const uint8_t val = px(v, x, y, z)[k];
                    if (val > m) m = val;
                }
                px(s, x, y, 0)[k] = m;
            }
    if (d == 1) return PARAC_OK;
    for (int64_t z = 0; z < d; z++) {
        for (int64_t y = 0; y < h; y++) /* along x: column w + GAP + z, row y */
            for (int k = 0; k < c; k++) {
                uint8_t m = 0;
                for (int64_t x = 0; x < w; x++)
                    if (px(v, x, y, z)[k] > m) m = px(v, x, y, z)[k];
                px(s, w + GAP + z, y, 0)[k] = m;
            }
        for (int64_t x = 0; x < w; x++) /* along y: column x, row h + GAP + z */
            for (int k = 0; k < c; k++) {
                uint8_t m = 0;
                for (int64_t y = 0; y < h; y++)
                    if (px(v, x, y, z)[k] > m) m = px(v, x, y, z)[k];
                px(s, x, h + GAP + z, 0)[k] = m;
            }
    }
    return PARAC_OK;
}

/* The space between a volume's projections in white, as the page around. */
static void paint_gaps(parac_image *sheet, const parac_image *volume)
{
    const int64_t w = volume->width, h = volume->height;
    if (volume->depth == 1) return;
    for (int64_t y = 0; y < sheet->height; y++)
        for (int64_t x = 0; x < sheet->width; x++) {
            const int panel = (x < w && y < h) || (x >= w + GAP && y < h) || (x < w && y >= h + GAP);
            if (!panel) memset(px(sheet, x, y, 0), 255, (size_t)sheet->channels);
        }
}

/* 255 where two u8 images of one shape differ in any channel, else 0. */
static parac_status differences(const parac_image *a, const parac_image *b, parac_image **out)
{
    TRY(parac_image_create(out, a->width, a->height, a->depth, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    const int ca = a->channels, cb = b->channels;
    for (int64_t z = 0; z < a->depth; z++)
        for (int64_t y = 0; y < a->height; y++)
            for (int64_t x = 0; x < a->width; x++) {
                const uint8_t *p = px(a, x, y, z), *q = px(b, x, y, z);
                int differ = ca != cb;
                for (int k = 0; k < ca && !differ; k++) differ = p[k] != q[k];
                *px(*out, x, y, z) = differ ? 255 : 0;
            }
    return PARAC_OK;
}

static uint8_t gray_of(const parac_image *im, int64_t x, int64_t y)
{
    const uint8_t *p = px(im, x, y, 0);
    return im->channels >= 3 ? (uint8_t)((299 * p[0] + 587 * p[1] + 114 * p[2] + 500) / 1000) : p[0];
}

/* An RGB picture: `under` in gray (dimmed for a mask), and in colour the
 * pixels where `marks` is nonzero: MASK paints them red, CHANGES tints
 * them orange over `under`'s own value. */
static parac_status overlay(const parac_image *under, const parac_image *marks, parac_demo_view view,
                            parac_image **out)
{
    TRY(parac_image_create(out, under->width, under->height, 1, 3, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t y = 0; y < under->height; y++)
        for (int64_t x = 0; x < under->width; x++) {
            const int g = gray_of(under, x, y);
            uint8_t *o = px(*out, x, y, 0);
            const int marked = *px(marks, x, y, 0) != 0;
            if (view == PARAC_DEMO_MASK) {
                const uint8_t dim = (uint8_t)(g * 3 / 5);
                o[0] = marked ? 255 : dim;
                o[1] = marked ? 40 : dim;
                o[2] = marked ? 40 : dim;
            } else {
                o[0] = (uint8_t)(marked ? (g + 3 * 255) / 4 : g);
                o[1] = (uint8_t)(marked ? (g + 3 * 150) / 4 : g);
                o[2] = (uint8_t)(marked ? g / 4 : g);
            }
        }
    return PARAC_OK;
}

/* Enlarged by a whole factor until the long side reaches MIN_LONG_SIDE. */
static parac_status enlarge(const parac_image *im, parac_image **out)
{
    const int64_t longest = im->width > im->height ? im->width : im->height;
    const int64_t f = longest >= MIN_LONG_SIDE ? 1 : (MIN_LONG_SIDE + longest - 1) / longest;
    const int c = im->channels;
    TRY(parac_image_create(out, im->width * f, im->height * f, 1, c, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t y = 0; y < im->height * f; y++)
        for (int64_t x = 0; x < im->width * f; x++) memcpy(px(*out, x, y, 0), px(im, x / f, y / f, 0), (size_t)c);
    return PARAC_OK;
}

parac_status demo_preview_write(parac_context *cpu, const parac_image *img, const parac_image *base,
                                parac_demo_view view, const char *path)
{
    parac_image *u8 = NULL, *sheet = NULL, *base_u8 = NULL, *base_sheet = NULL, *marks = NULL,
                *marks_sheet = NULL, *drawn = NULL, *big = NULL;
    const int against_base = view != PARAC_DEMO_PLAIN && view != PARAC_DEMO_LABELS && base && base->width == img->width &&
                             base->height == img->height && base->depth == img->depth;
    parac_status st = view == PARAC_DEMO_LABELS ? labels_rgb(img, &u8) : to_u8(cpu, img, &u8);
    if (st == PARAC_OK) st = project(u8, &sheet);
    if (st == PARAC_OK && against_base) {
        st = to_u8(cpu, base, &base_u8);
        if (st == PARAC_OK && view == PARAC_DEMO_CHANGES) st = differences(u8, base_u8, &marks);
        if (st == PARAC_OK) st = project(view == PARAC_DEMO_CHANGES ? marks : u8, &marks_sheet);
        if (st == PARAC_OK && view == PARAC_DEMO_MASK) st = project(base_u8, &base_sheet);
        if (st == PARAC_OK)
            st = overlay(view == PARAC_DEMO_MASK ? base_sheet : sheet, marks_sheet, view, &drawn);
    }
    if (st == PARAC_OK) paint_gaps(drawn ? drawn : sheet, img);
    if (st == PARAC_OK) st = enlarge(drawn ? drawn : sheet, &big);
    if (st == PARAC_OK) st = parac_image_write(path, big, NULL);
    parac_image *all[] = {u8, sheet, base_u8, base_sheet, marks, marks_sheet, drawn, big};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) parac_image_destroy(all[i]);
    return st;
}
