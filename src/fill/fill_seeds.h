/* The CPU seeds method's parts that the hybrid method reuses. */
#ifndef PARAC_FILL_SEEDS_H
#define PARAC_FILL_SEEDS_H

#include <stddef.h>
#include <stdint.h>

#include "fill.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PARAC__FILL_CPU_SEEDS 96    /* inner seeds by default: the paper's best was 70-110 threads */
#define PARAC__FILL_MAX_SEEDS 65532 /* 16-bit labels: 0, 1 and 0xffff are taken */

/* Fill `in` with the seeds method. Writes the output when `out` is not NULL;
 * when `labels` is not NULL it receives the label image (malloc'd, the
 * caller frees) and `outside` (65536 entries) which labels are outside. */
parac_status parac__fill_seeds_labels(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                      uint16_t **labels, uint8_t *outside);

/* Union-find over label pairs ((a << 16) | b): outside[l] = 1 when l is
 * joined to label 1. */
parac_status parac__fill_union_pairs(const uint32_t *pairs, size_t n, uint32_t labels, uint8_t *outside);

#ifdef __cplusplus
}
#endif

#endif
