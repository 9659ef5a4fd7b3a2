/* Linear filters: border modes shared by every filter operation. The
 * operations themselves ("gauss", "convolve", ...) are registry operations
 * (parac/op.h); docs/gaussian.md describes their semantics. */
#ifndef PARAC_FILTER_H
#define PARAC_FILTER_H

#include "parac/export.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

/* How pixels outside the image are formed (for a row a b c d):
 *   reflect101  d c b | a b c d | c b a   (OpenCV BORDER_REFLECT_101, scipy "mirror"; default)
 *   reflect     c b a | a b c d | d c b   (scipy "reflect", OpenCV BORDER_REFLECT)
 *   replicate   a a a | a b c d | d d d   (scipy "nearest")
 *   constant    k k k | a b c d | k k k   (value k, default 0)
 *   wrap        b c d | a b c d | a b c   (periodic)
 * Reflections repeat as often as needed when the kernel is wider than the image. */
typedef enum parac_border {
    PARAC_BORDER_REFLECT101 = 0,
    PARAC_BORDER_REFLECT,
    PARAC_BORDER_REPLICATE,
    PARAC_BORDER_CONSTANT,
    PARAC_BORDER_WRAP
} parac_border;

/* "reflect101", "reflect", "replicate", "constant" or "constant:VALUE", "wrap";
 * scipy's names "mirror", "nearest", "grid-wrap" are accepted too. */
PARAC_API parac_status parac_border_parse(const char *text, parac_border *border, double *value);
PARAC_API const char *parac_border_name(parac_border border);

PARAC_END_DECLS

#endif
