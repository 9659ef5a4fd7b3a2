/* The demos of the reconstruction operations (see morph_demo.h). */
#include "../core/demo_images.h"
#include "../core/error_internal.h"
#include "morph_demo.h"

enum { DEMO_W = 512, DEMO_H = 384 };

/* A marker at one end of a corridor that winds across the whole image:
 * reconstruction brings back the corridor, end to end, and none of the
 * blobs that touch it nowhere (the longest propagation a picture can hold). */
parac_status parac__morph_demo_serpentine(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    int64_t sx, sy;
    PARAC_TRY(parac__demo_serpentine(&inputs[1], DEMO_W, DEMO_H, &sx, &sy));
    PARAC_TRY(parac_image_create_zeroed(&inputs[0], DEMO_W, DEMO_H, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1));
    for (int64_t y = sy - 3; y <= sy + 3; y++)
        for (int64_t x = sx - 3; x <= sx + 3; x++)
            *(uint8_t *)parac_image_at(inputs[0], x, y, 0) = *(uint8_t *)parac_image_at(inputs[1], x, y, 0);
    return PARAC_OK;
}

/* Cells with dark cores: the cores are holes, but not those of cells that
 * the border cuts open. */
parac_status parac__morph_demo_cells(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    return parac__demo_cells(&inputs[0], DEMO_W, DEMO_H, 0, 11);
}

/* Rolling hills: the peaks (or pits) of height 20 and more. */
parac_status parac__morph_demo_terrain_h(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(parac__demo_terrain(&inputs[0], DEMO_W, DEMO_H, 70, 20, 235, 3));
    return parac_args_set(args, "h", "20");
}

/* Smooth hills: their regional extrema are single pixels and small plateaus. */
parac_status parac__morph_demo_terrain(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    return parac__demo_terrain(&inputs[0], DEMO_W, DEMO_H, 120, 20, 235, 5);
}

/* Large bright shapes with small bright specks: the specks go, every shape
 * keeps its exact outline. */
parac_status parac__morph_demo_specks(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(parac__demo_specks(&inputs[0], DEMO_W, DEMO_H, 0, 21));
    return parac_args_set(args, "radius", "2");
}

/* The negative: small dark pits filled, large dark shapes kept. */
parac_status parac__morph_demo_pits(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    PARAC_TRY(parac__demo_specks(&inputs[0], DEMO_W, DEMO_H, 1, 22));
    return parac_args_set(args, "radius", "2");
}

/* Objects (whole cells), some cut by the border: those go. */
parac_status parac__morph_demo_objects(parac_context *ctx, parac_image **inputs, parac_args *args)
{
    (void)ctx;
    (void)args;
    return parac__demo_cells(&inputs[0], DEMO_W, DEMO_H, 1, 31);
}
