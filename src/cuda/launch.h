/* Grid-size helpers for kernels that walk 64-bit index ranges. */
#ifndef PARAC_CUDA_LAUNCH_H
#define PARAC_CUDA_LAUNCH_H

#include <stdint.h>

/* Blocks for a grid-stride loop over n items: enough to fill the GPU, never
 * more than the grid limit. */
static inline unsigned parac__grid_for(int64_t n, int threads)
{
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535LL * 16) blocks = 65535LL * 16;
    return blocks < 1 ? 1u : (unsigned)blocks;
}

#endif
