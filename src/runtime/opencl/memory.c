/* Device memory of the OpenCL backend: buffers made and released, filled,
 * and copied by rows to and from the host through the session's queue. */
#include "core/error_internal.h"
#include "runtime/opencl/runtime_internal.h"

static parac_cl_session *cl(parac__rt_session *s) { return (parac_cl_session *)s; }

parac_status parac__cl_alloc(parac__rt_session *s, size_t bytes, void **buffer)
{
    cl_int err = CL_SUCCESS;
    cl_mem b = clCreateBuffer(cl(s)->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    *buffer = err == CL_SUCCESS ? (void *)b : NULL;
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "clCreateBuffer of %zu bytes failed (error %d)", bytes, (int)err);
    return PARAC_OK;
}

/* the in-order queue runs the kernels that use it first */
void parac__cl_free(parac__rt_session *s, void *buffer)
{
    (void)s;
    clReleaseMemObject((cl_mem)buffer);
}

parac_status parac__cl_fill_zeros(parac__rt_session *s, void *buffer, size_t bytes)
{
    const cl_uchar zero = 0;
    const cl_int err = clEnqueueFillBuffer(cl(s)->queue, (cl_mem)buffer, &zero, sizeof zero, 0, bytes, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "filling a %zu-byte matrix with zeros failed (error %d)", bytes,
                           (int)err);
    return PARAC_OK;
}

parac_status parac__cl_copy_rows(parac__rt_session *s, void *buffer, size_t device_pitch, void *host,
                                 size_t host_pitch, size_t width, size_t rows, int to_device)
{
    const size_t origin[3] = {0, 0, 0}, region[3] = {width, rows, 1};
    cl_command_queue q = cl(s)->queue;
    const cl_int err = to_device ? clEnqueueWriteBufferRect(q, (cl_mem)buffer, CL_TRUE, origin, origin, region,
                                                            device_pitch, 0, host_pitch, 0, host, 0, NULL, NULL)
                                 : clEnqueueReadBufferRect(q, (cl_mem)buffer, CL_TRUE, origin, origin, region,
                                                           device_pitch, 0, host_pitch, 0, host, 0, NULL, NULL);
    /* a driver that allocates a buffer's memory at its first use (NVIDIA's)
     * reports the allocation failing here */
    if (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES || err == CL_OUT_OF_HOST_MEMORY)
        return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "%s of a %zux%zu-byte matrix failed: the device could not "
                           "allocate it (error %d)", to_device ? "upload" : "download", rows, width, (int)err);
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "%s of a %zux%zu-byte matrix failed (error %d)",
                           to_device ? "upload" : "download", rows, width, (int)err);
    return PARAC_OK;
}

parac_status parac__cl_wait(parac__rt_session *s)
{
    PARAC_CL_TRY(clFinish(cl(s)->queue), "fusion choice: clFinish");
    return PARAC_OK;
}
