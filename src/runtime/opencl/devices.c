/* OpenCL device discovery. */
#include <stdio.h>
#include <string.h>

#include <CL/cl.h>

#include "core/error_internal.h"
#include "runtime/opencl/runtime_internal.h"
#include "parac/opencl.h"

static const char *type_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU) return "gpu";
    if (t & CL_DEVICE_TYPE_CPU) return "cpu";
    if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
    return "other";
}

parac_status parac_opencl_devices(parac_opencl_device_info *list, int capacity, int *count)
{
    *count = 0;
    parac__opencl_prepare_loader();
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || np == 0) return PARAC_OK; /* no platform: empty list */
    if (err != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "clGetPlatformIDs failed (error %d)", (int)err);
    cl_platform_id platforms[16];
    if (np > 16) np = 16;
    if ((err = clGetPlatformIDs(np, platforms, NULL)) != CL_SUCCESS)
        return parac__fail(PARAC_ERR_OPENCL, "clGetPlatformIDs failed (error %d)", (int)err);
    for (cl_uint p = 0; p < np; p++) {
        char pname[128] = "";
        clGetPlatformInfo(platforms[p], CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS) continue;
        cl_device_id devices[32];
        if (nd > 32) nd = 32;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nd, devices, NULL) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd; d++, (*count)++) {
            if (*count >= capacity) continue;
            parac_opencl_device_info *info = &list[*count];
            memset(info, 0, sizeof *info);
            snprintf(info->platform, sizeof info->platform, "%s", pname);
            clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof info->name - 1, info->name, NULL);
            clGetDeviceInfo(devices[d], CL_DEVICE_VERSION, sizeof info->version - 1, info->version, NULL);
            cl_device_type t = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof t, &t, NULL);
            snprintf(info->type, sizeof info->type, "%s", type_name(t));
            cl_ulong mem = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_GLOBAL_MEM_SIZE, sizeof mem, &mem, NULL);
            info->global_memory = mem;
            cl_uint cu = 0;
            clGetDeviceInfo(devices[d], CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
            info->compute_units = (int)cu;
        }
    }
    return PARAC_OK;
}
