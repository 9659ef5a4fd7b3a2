/* Removing small objects and filling small holes (the operations
 * "remove-small-objects" and "remove-small-holes", scikit-image's
 * semantics): what the operations (small_op.c) and their methods on the CPU
 * (small_cpu.c) and CUDA (cuda/small_cuda.cu) share. Both count the pixels
 * of every component (labelling first where the input is not already a
 * label image) and then decide per pixel by its component's size. */
#ifndef PARAC_LABEL_SMALL_H
#define PARAC_LABEL_SMALL_H

#include <stdint.h>

#include "parac/image.h"
#include "parac/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum parac__small_mode {
    PARAC__SMALL_OBJECTS = 0, /* components of the nonzero pixels under `conn` */
    PARAC__SMALL_LABELS,      /* the input is a label image: an object is every pixel of one label */
    PARAC__SMALL_HOLES        /* components of the zero pixels under `conn` */
} parac__small_mode;

typedef struct parac__small_spec {
    const char *op;   /* for messages */
    int mode;         /* parac__small_mode */
    int conn;         /* 4, 8 (2D); 6, 18, 26 (3D) */
    int64_t min_size; /* components of fewer pixels are small */
    int threads;      /* CPU threads */
    int foreground;   /* holes: the output's value on objects and filled holes */
} parac__small_spec;

/* Objects: out = in, with the pixels of small objects 0 (out has in's size
 * and dtype). Holes: out (u8) = foreground where in is nonzero or in a small hole,
 * else 0. */
parac_status parac__small_cpu(const parac__small_spec *s, const parac_image *in, parac_image *out);
parac_status parac__small_cuda(const parac__small_spec *s, const parac_image *in, parac_image *out, void *stream);

#ifdef __cplusplus
}
#endif

#endif
