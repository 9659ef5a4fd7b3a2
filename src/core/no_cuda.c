/* The CUDA entry points of a build without the CUDA backend: every request
 * for device memory or a device fails with a clear reason. */
#include <stdio.h>

#include "device_internal.h"
#include "error_internal.h"
#include "parac/context.h"

static parac_status not_built(void)
{
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no CUDA backend");
}

parac_status parac__cuda_probe(int *count, char *why, size_t why_size)
{
    *count = 0;
    if (why) snprintf(why, why_size, "built without CUDA");
    return not_built();
}
parac_status parac__cuda_alloc(int device, size_t bytes, void **ptr) { return not_built(); }
void parac__cuda_release(int device, void *ptr, size_t bytes) {}
void parac__cuda_pool_trim(void) {}
long parac__cuda_blocks_out(void) { return 0; }
void parac__cuda_fft_cache_clear(void) {}
parac_status parac__pinned_alloc(size_t bytes, void **ptr) { return not_built(); }
void parac__pinned_free(void *ptr) {}
parac_status parac__cuda_stream_create(int device, void **stream) { return not_built(); }
void parac__cuda_stream_destroy(void *stream) {}
parac_status parac__cuda_stream_sync(void *stream) { return stream ? not_built() : PARAC_OK; }
parac_status parac__cuda_set_device(int device) { return not_built(); }
parac_status parac__cuda_copy_rows(void *dst, int64_t dst_pitch, const void *src,
                                   int64_t src_pitch, size_t row_bytes, size_t rows, void *stream)
{
    return not_built();
}
parac_status parac__cuda_copy_strided(const parac_image *dst, const parac_image *src, void *stream)
{
    return not_built();
}
parac_status parac__cuda_zero_rows(void *dst, int64_t pitch, size_t row_bytes, size_t rows,
                                   void *stream)
{
    return not_built();
}
parac_status parac__cuda_stream_rows(parac_op_call *call, int64_t reach, int64_t rows) { return not_built(); }
int parac_has_cuda(void) { return 0; }
parac_status parac_cuda_device_count(int *count)
{
    *count = 0;
    return not_built();
}
parac_status parac_cuda_device_query(int ordinal, parac_cuda_device_info *info)
{
    return not_built();
}
parac_status parac_cuda_pointer_device(const void *ptr, int *device)
{
    (void)ptr;
    *device = -1;
    return not_built();
}

#include "convert_internal.h"
#include "stats_internal.h"

parac_status parac__stats_cuda(const parac_image *image, parac_image_stats *stats, void *stream)
{
    return not_built();
}
parac_status parac__convert_cuda(parac_image *out, const parac_image *in, double scale,
                                 double offset, void *stream)
{
    return not_built();
}
