/* A candidate kernel of a region for the launch with variants
 * (parac_cl_launch_variants, parac_cu_launch_variants): paracc plans a
 * region several ways (vector width, rows per work-item, local-memory tiles)
 * and the search times them all. */
#ifndef PARAC_KERNEL_VARIANT_H
#define PARAC_KERNEL_VARIANT_H

typedef struct parac_kernel_variant {
    const char *kernel; /* the one-launch kernel (interior and border boxes) */
    int wg[3];          /* its work-group shape (x first) */
    int items[3];       /* its outputs per work-item along each iterator axis */
    int fixed_shape;    /* sized for wg (local-memory tiles): never searched over shapes, never widened */
} parac_kernel_variant;

#endif
