#include "core/error_internal.h"
#include "parac/opencl.h"

parac_status parac_opencl_devices(parac_opencl_device_info *list, int capacity, int *count)
{
    *count = 0;
    return parac__fail(PARAC_ERR_UNSUPPORTED, "this build of parac has no OpenCL runtime");
}
