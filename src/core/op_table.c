/* Every operation parac knows, in the order `parac --help` lists them.
 * Adding an operation: define its parac_op in its area and list it here. */
#include "registry_internal.h"

extern const parac_op parac__op_convert;
extern const parac_op parac__op_gauss;
extern const parac_op parac__op_convolve;
extern const parac_op parac__op_reconstruct;
extern const parac_op parac__op_fill_holes;
extern const parac_op parac__op_h_maxima;
extern const parac_op parac__op_h_minima;
extern const parac_op parac__op_regional_maxima;
extern const parac_op parac__op_regional_minima;
extern const parac_op parac__op_opening_by_reconstruction;
extern const parac_op parac__op_closing_by_reconstruction;
extern const parac_op parac__op_clear_border;
extern const parac_op parac__op_fill;
extern const parac_op parac__op_floodfill;
extern const parac_op parac__op_label;
extern const parac_op parac__op_lookup;
extern const parac_op parac__op_regionprops;
extern const parac_op parac__op_remove_small_objects;
extern const parac_op parac__op_remove_small_holes;
extern const parac_op parac__op_fill_label_holes;
extern const parac_op parac__op_skeleton;

const parac_op *const parac__ops[] = {
    &parac__op_convert,
    &parac__op_gauss,
    &parac__op_convolve,
    &parac__op_reconstruct,
    &parac__op_fill_holes,
    &parac__op_h_maxima,
    &parac__op_h_minima,
    &parac__op_regional_maxima,
    &parac__op_regional_minima,
    &parac__op_opening_by_reconstruction,
    &parac__op_closing_by_reconstruction,
    &parac__op_clear_border,
    &parac__op_fill,
    &parac__op_floodfill,
    &parac__op_label,
    &parac__op_lookup,
    &parac__op_regionprops,
    &parac__op_remove_small_objects,
    &parac__op_remove_small_holes,
    &parac__op_fill_label_holes,
    &parac__op_skeleton,
};

const int parac__op_total = sizeof parac__ops / sizeof parac__ops[0];
