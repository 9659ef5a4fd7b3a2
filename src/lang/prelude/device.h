/* The glue between generated host code and libparac's runtime for the
 * device targets (parac/cuda.h, parac/opencl.h), copied after failures.h and
 * the kernels' source (parac__kernel_source). The generated file defines
 * first: PARAC__RT(name), the runtime's prefix (parac_cu_##name or
 * parac_cl_##name); PARAC__API, its name in messages; PARAC__FILE, the
 * generated file's name; PARAC__PROGRAM, the program's name in the runtime's
 * caches and messages. */
/* A failed runtime step: returned by NAME_try(), else reported (see parac__raise). */
PARAC__HELPER void parac__fatal(parac_status st, const char *file, int line)
{
    char where[320];
    snprintf(where, sizeof where, "%s:%d: " PARAC__API ": %s", file, line, parac_status_string(st));
    parac__raise((int)st, where, parac_error_message());
}

PARAC__HELPER void parac__release_dev(void *m) { PARAC__RT(matrix_release)((PARAC__RT(matrix) *)m); }

PARAC__HELPER void parac__drop_dev(PARAC__RT(matrix) *m)
{
    parac__unhold(m);
    PARAC__RT(matrix_release)(m);
}

/* A runtime failure inside generated code. */
#define PARAC__CHECK(call) \
    do { \
        parac_status parac__st = (call); \
        if (parac__st != PARAC_OK) parac__fatal(parac__st, PARAC__FILE, __LINE__); \
    } while (0)

/* The host copy of a matrix, inside an expression (loop conditions). */
PARAC__HELPER int parac__host_copy(PARAC__RT(matrix) *m, int line)
{
    parac_status st = PARAC__RT(to_host)(m);
    if (st != PARAC_OK) parac__fatal(st, PARAC__FILE, line);
    return 0;
}

/* One session per program, opened on first use (the device from
 * PARAC_CUDA_DEVICE or PARAC_OPENCL_DEVICE). */
static PARAC__RT(session) *parac__session_handle;

PARAC__HELPER PARAC__RT(session) *parac__session(void)
{
    if (!parac__session_handle)
        PARAC__CHECK(PARAC__RT(session_open)(&parac__session_handle, PARAC__PROGRAM, parac__kernel_source, NULL));
    return parac__session_handle;
}

/* Closed when the program, or a shared object holding this code, unloads. */
#if defined(__GNUC__)
__attribute__((destructor)) static void parac__session_release(void)
{
    PARAC__RT(session_close)(parac__session_handle);
    parac__session_handle = NULL;
}
#endif
