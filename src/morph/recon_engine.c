/* The CPU reconstruction engines, one instantiation of recon_engine.inc per
 * dtype. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "../core/error_internal.h"
#include "recon_grid.h"
#include "recon_levels.h"

#define T uint8_t
#define SFX u8
#define IS_FLOAT 0
#define TMIN 0
#define TMAXV 255
#include "recon_engine.inc"
#undef T
#undef SFX
#undef IS_FLOAT
#undef TMIN
#undef TMAXV

#define T uint16_t
#define SFX u16
#define IS_FLOAT 0
#define TMIN 0
#define TMAXV 65535
#include "recon_engine.inc"
#undef T
#undef SFX
#undef IS_FLOAT
#undef TMIN
#undef TMAXV

#define T float
#define SFX f32
#define IS_FLOAT 1
#define TMIN (-INFINITY)
#define TMAXV INFINITY
#include "recon_engine.inc"
#undef T
#undef SFX
#undef IS_FLOAT
#undef TMIN
#undef TMAXV

const parac__engine *parac__engine_for(parac_dtype dtype)
{
    switch (dtype) {
    case PARAC_U8: return &engine_u8;
    case PARAC_U16: return &engine_u16;
    case PARAC_F32: return &engine_f32;
    default: return NULL;
    }
}
