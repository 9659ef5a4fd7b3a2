/* OpenCL: device discovery and the runtime used by code that paracc
 * generates. Available when parac_has_opencl() is true. */
#ifndef PARAC_OPENCL_H
#define PARAC_OPENCL_H

#include <stdint.h>

#include "parac/export.h"
#include "parac/status.h"

PARAC_BEGIN_DECLS

typedef struct parac_opencl_device_info {
    char platform[128];
    char name[128];
    char type[16];        /* "cpu", "gpu", "accelerator", "other" */
    char version[64];     /* device OpenCL version string */
    uint64_t global_memory;
    int compute_units;
} parac_opencl_device_info;

/* Fill up to `capacity` entries; *count receives how many devices exist. */
PARAC_API parac_status parac_opencl_devices(parac_opencl_device_info *list, int capacity,
                                            int *count);

PARAC_END_DECLS

#endif
