/* The arguments of one launch, as both backends pass them: the counter box
 * as ints, then the program's arguments, each matrix as its buffer, its
 * pitch in elements and its three sizes. */
#include "core/error_internal.h"
#include "runtime/common/runtime_core.h"

parac_status parac__rt_arg(parac__rt_args *a, const void *value, size_t size, const char *kernel)
{
    if (a->n >= PARAC__RT_MAX_ARGS) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: too many arguments", kernel);
    a->ptr[a->n] = value;
    a->size[a->n++] = size;
    return PARAC_OK;
}

parac_status parac__rt_arg_int(parac__rt_args *a, int v, const char *kernel, int **where)
{
    if (a->ni >= (int)(sizeof a->ints / sizeof *a->ints))
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: too many arguments", kernel);
    a->ints[a->ni] = v;
    if (where) *where = &a->ints[a->ni];
    return parac__rt_arg(a, &a->ints[a->ni++], sizeof(int), kernel);
}

parac_status parac__rt_args_box(parac__rt_args *a, int ndim, const long *lo, const long *hi, const char *kernel)
{
    for (int d = 0; d < ndim; d++) {
        PARAC_TRY(parac__rt_arg_int(a, (int)lo[d], kernel, NULL));
        PARAC_TRY(parac__rt_arg_int(a, (int)hi[d], kernel, NULL));
    }
    return PARAC_OK;
}

parac_status parac__rt_args_program(parac__rt_args *a, int nargs, const parac_device_arg *args, const char *kernel)
{
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind != PARAC_DEVICE_ARG_MATRIX) {
            PARAC_TRY(parac__rt_arg(a, args[i].value, args[i].size, kernel));
            continue;
        }
        const parac_device_matrix *m = args[i].matrix;
        if (!m->buffer) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: matrix has no buffer", kernel);
        if (a->nb >= PARAC__RT_MAX_MATRICES)
            return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "kernel %s: too many matrices", kernel);
        a->buffers[a->nb] = m->buffer;
        PARAC_TRY(parac__rt_arg(a, &a->buffers[a->nb++], sizeof(void *), kernel));
        PARAC_TRY(parac__rt_arg_int(a, (int)(m->device_pitch / m->elem_size), kernel, NULL));
        for (int d = 0; d < 3; d++) PARAC_TRY(parac__rt_arg_int(a, (int)m->dims[d], kernel, NULL));
    }
    return PARAC_OK;
}
