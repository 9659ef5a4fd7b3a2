/* Program build with an on-disk cache of device binaries.
 *
 * Key: FNV-1a 64 of the source, the build options, the platform and device
 * names and the driver version. Files are written to a temporary name and
 * renamed, so concurrent processes never read a half-written binary. A
 * missing, unreadable or rejected cache entry means a build from source.
 *
 * Not on PoCL: it keeps built programs in its own cache (POCL_CACHE_DIR),
 * and asking it for a program's binary makes it compile every kernel again
 * for work-groups of any size, beside the sizes the launches use: a first
 * run took 1.7x as long for nothing. PARAC_CL_BINARY_CACHE=1 stores them
 * there too (the tests of the cache). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_internal.h"
#include "runtime/common/disk_cache.h"
#include "core/error_internal.h"
#include "runtime/opencl/runtime_internal.h"

static parac_status build_log(parac_cl_session *s, cl_program prog, const char *name, cl_int err)
{
    size_t n = 0;
    clGetProgramBuildInfo(prog, s->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *log = parac__malloc(n + 1);
    if (log) {
        log[0] = 0;
        clGetProgramBuildInfo(prog, s->device, CL_PROGRAM_BUILD_LOG, n, log, NULL);
        log[n] = 0;
    }
    parac_status st = parac__fail(PARAC_ERR_OPENCL, "building the kernels of '%s' for %s failed (error %d):\n%s",
                                  name, s->rt.label, (int)err, log ? log : "");
    free(log);
    return st;
}

parac_status parac__cl_build_program(parac_cl_session *s, const char *name, const char *source,
                                     const char *options)
{
    char pname[256] = "", dname[256] = "", driver[128] = "";
    clGetPlatformInfo(s->platform, CL_PLATFORM_NAME, sizeof pname - 1, pname, NULL);
    clGetDeviceInfo(s->device, CL_DEVICE_NAME, sizeof dname - 1, dname, NULL);
    clGetDeviceInfo(s->device, CL_DRIVER_VERSION, sizeof driver - 1, driver, NULL);
    uint64_t h = 0xcbf29ce484222325ULL;
    h = parac__fnv(h, source);
    h = parac__fnv(h, options);
    h = parac__fnv(h, pname);
    h = parac__fnv(h, dname);
    h = parac__fnv(h, driver);
    s->rt.program_key = h;
    char dir[1024], path[1100];
    const char *force = getenv("PARAC_CL_BINARY_CACHE");
    int have_dir = (!strstr(pname, "Portable Computing Language") || (force && !strcmp(force, "1"))) &&
                   parac__cache_dir(dir, sizeof dir);
    if (have_dir) snprintf(path, sizeof path, "%s/%s-%016llx.bin", dir, name, (unsigned long long)h);
    cl_int err;
    if (have_dir) {
        size_t len = 0;
        unsigned char *bin = parac__read_all(path, &len);
        if (bin) {
            const unsigned char *bins[1] = {bin};
            cl_int bstatus = 0;
            cl_program p = clCreateProgramWithBinary(s->context, 1, &s->device, &len, bins, &bstatus, &err);
            free(bin);
            if (err == CL_SUCCESS && bstatus == CL_SUCCESS &&
                clBuildProgram(p, 1, &s->device, options, NULL, NULL) == CL_SUCCESS) {
                s->program = p;
                s->rt.from_cache = 1;
                return PARAC_OK;
            }
            if (err == CL_SUCCESS) clReleaseProgram(p);
            /* a stale or foreign entry: rebuild below and overwrite it */
        }
    }
    cl_program p = clCreateProgramWithSource(s->context, 1, &source, NULL, &err);
    PARAC_CL_TRY(err, "clCreateProgramWithSource");
    err = clBuildProgram(p, 1, &s->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        parac_status st = build_log(s, p, name, err);
        clReleaseProgram(p);
        return st;
    }
    s->program = p;
    s->rt.from_cache = 0;
    if (have_dir) {
        size_t len = 0;
        if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) == CL_SUCCESS && len > 0) {
            unsigned char *bin = parac__malloc(len);
            unsigned char *bins[1] = {bin};
            if (bin && clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
                parac__write_atomic(path, bin, len);
            free(bin);
        }
    }
    return PARAC_OK;
}
