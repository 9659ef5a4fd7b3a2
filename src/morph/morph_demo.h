/* The demos of the reconstruction operations (`parac demo`): inputs that
 * show what each operation is for. */
#ifndef PARAC_MORPH_DEMO_H
#define PARAC_MORPH_DEMO_H

#include "parac/op.h"

parac_status parac__morph_demo_serpentine(parac_context *ctx, parac_image **inputs, parac_args *args);
parac_status parac__morph_demo_cells(parac_context *ctx, parac_image **inputs, parac_args *args);
parac_status parac__morph_demo_terrain_h(parac_context *ctx, parac_image **inputs, parac_args *args);
parac_status parac__morph_demo_terrain(parac_context *ctx, parac_image **inputs, parac_args *args);
parac_status parac__morph_demo_specks(parac_context *ctx, parac_image **inputs, parac_args *args);
parac_status parac__morph_demo_pits(parac_context *ctx, parac_image **inputs, parac_args *args);
parac_status parac__morph_demo_objects(parac_context *ctx, parac_image **inputs, parac_args *args);

#endif
