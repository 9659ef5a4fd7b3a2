/* Kernels for the convolve operation: from .npy files, text files, or
 * inline text. */
#ifndef PARAC_KERNEL_FILE_H
#define PARAC_KERNEL_FILE_H

#include "parac/status.h"

/* A kernel of h rows x w columns (row-major floats). */
typedef struct parac__kernel {
    int w, h;
    float *v;
} parac__kernel;

/* `spec` is a file name (.npy: float32/float64/integer, 1D or 2D, C order;
 * any other name: text) or, when no such file exists and the text holds only
 * numbers, the kernel itself inline. Text: numbers separated by spaces,
 * tabs or commas; rows end at a newline or ';'; '#' starts a comment; every
 * row has the same count. */
parac_status parac__kernel_load(const char *spec, parac__kernel *k);
void parac__kernel_free(parac__kernel *k);

#endif
