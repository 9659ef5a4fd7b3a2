/* The hand-written OpenCL peers of the ParaC example programs
 * (peers/<app>.cl, built at run time): each checked against the plain-C
 * reference on odd sizes and on the timed ones, then timed on the same
 * buffers as bench_apps.c times paracc's programs: the sum of the call's
 * kernel event times, median of --runs calls, data on the device. The
 * device is the first whose "platform / device" name contains
 * $PARAC_OPENCL_DEVICE (default: NVIDIA, else the first GPU, else any).
 *
 *   bench_parac_peers_opencl [--runs N] [--sizes 1536x2560,4096x4096] [--check 37x61,...] [--json FILE]
 */
#include <CL/cl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parac/opencl.h"
#include "peers/peers_check.h"

typedef struct cl {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog[PEER_APPS];
    int runs;
    double copy_gbs;
    FILE *json;
} cl;

static int failed(const char *what, cl_int e)
{
    if (e == CL_SUCCESS) return 0;
    fprintf(stderr, "bench_parac_peers_opencl: %s: error %d\n", what, (int)e);
    return 1;
}

static int pick_device(cl *c)
{
    const char *want = getenv("PARAC_OPENCL_DEVICE");
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (failed("clGetPlatformIDs", clGetPlatformIDs(16, plats, &np))) return 1;
    cl_device_id gpu = NULL, any = NULL;
    for (cl_uint p = 0; p < np; p++) {
        cl_device_id devs[16];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 16, devs, &nd) != CL_SUCCESS) continue;
        char pname[256] = "", dname[256] = "", both[520];
        clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        for (cl_uint d = 0; d < nd; d++) {
            cl_device_type type = 0;
            clGetDeviceInfo(devs[d], CL_DEVICE_NAME, sizeof dname, dname, NULL);
            clGetDeviceInfo(devs[d], CL_DEVICE_TYPE, sizeof type, &type, NULL);
            snprintf(both, sizeof both, "%s / %s", pname, dname);
            if (strstr(both, want ? want : "NVIDIA")) {
                c->dev = devs[d];
                printf("OpenCL device: %s\n", both);
                return 0;
            }
            if (!gpu && (type & CL_DEVICE_TYPE_GPU)) gpu = devs[d];
            if (!any) any = devs[d];
        }
    }
    if (want || !(gpu || any)) {
        fprintf(stderr, "bench_parac_peers_opencl: no OpenCL device matches '%s'\n", want ? want : "NVIDIA");
        return 1;
    }
    c->dev = gpu ? gpu : any;
    return 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s && fread(s, 1, (size_t)n, f) == (size_t)n) s[n] = '\0';
    else free(s), s = NULL;
    fclose(f);
    return s;
}

static int build(cl *c)
{
    cl_int e;
    c->ctx = clCreateContext(NULL, 1, &c->dev, NULL, NULL, &e);
    if (failed("clCreateContext", e)) return 1;
    c->q = clCreateCommandQueue(c->ctx, c->dev, CL_QUEUE_PROFILING_ENABLE, &e);
    if (failed("clCreateCommandQueue", e)) return 1;
    for (int a = 0; a < PEER_APPS; a++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.cl", PARAC_PEERS_DIR, peer_names[a]);
        char *src = read_file(path);
        if (!src) {
            fprintf(stderr, "bench_parac_peers_opencl: cannot read %s\n", path);
            return 1;
        }
        const char *srcs[1] = {src};
        c->prog[a] = clCreateProgramWithSource(c->ctx, 1, srcs, NULL, &e);
        free(src);
        if (failed("clCreateProgramWithSource", e)) return 1;
        e = clBuildProgram(c->prog[a], 1, &c->dev, "-cl-std=CL1.2", NULL, NULL);
        if (e != CL_SUCCESS) {
            char log[8192] = "";
            clGetProgramBuildInfo(c->prog[a], c->dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            fprintf(stderr, "bench_parac_peers_opencl: %s: build failed:\n%s\n", path, log);
            return 1;
        }
    }
    return 0;
}

/* The device's copy rate (read + write bytes, GB/s): a 256 MiB buffer copy, best of 5. */
static double copy_rate(cl *c)
{
    const size_t bytes = (size_t)256 << 20;
    cl_int e;
    cl_mem a = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e), b = NULL;
    if (e == CL_SUCCESS) b = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, bytes, NULL, &e);
    double best = 0;
    for (int r = 0; e == CL_SUCCESS && r < 6; r++) {
        cl_event ev;
        cl_ulong t0 = 0, t1 = 0;
        if (clEnqueueCopyBuffer(c->q, a, b, 0, 0, bytes, 0, NULL, &ev) != CL_SUCCESS) break;
        clWaitForEvents(1, &ev);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
        clReleaseEvent(ev);
        const double gbs = t1 > t0 ? 2.0 * (double)bytes / (double)(t1 - t0) : 0;
        if (r > 0 && gbs > best) best = gbs;
    }
    if (a) clReleaseMemObject(a);
    if (b) clReleaseMemObject(b);
    return best;
}

typedef struct bufs {
    cl_mem in, out, aux, scratch;
} bufs;

static size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

/* Queue one kernel over a 2D range; adds its event time to *ns. */
static int launch(cl *c, cl_kernel k, size_t gx, size_t gy, size_t lx, size_t ly, double *ns)
{
    const size_t global[2] = {round_up(gx, lx), round_up(gy, ly)}, local[2] = {lx, ly};
    cl_event ev;
    if (failed("clEnqueueNDRangeKernel", clEnqueueNDRangeKernel(c->q, k, 2, NULL, global, local, 0, NULL, &ev))) return 1;
    clWaitForEvents(1, &ev);
    cl_ulong t0 = 0, t1 = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
    clReleaseEvent(ev);
    *ns += (double)(t1 - t0);
    return 0;
}

static cl_kernel kernel(cl *c, int app, const char *name)
{
    cl_int e;
    cl_kernel k = clCreateKernel(c->prog[app], name, &e);
    return failed(name, e) ? NULL : k;
}

#define ARG(k, i, v) clSetKernelArg(k, i, sizeof(v), &(v))

/* One call of program `app`: its kernels' event time in *ns. */
static int run(cl *c, int app, int H, int W, bufs *b, double *ns)
{
    *ns = 0;
    cl_kernel k[3] = {NULL, NULL, NULL};
    int rc = 0;
    const int strength = 8, overshoot = 4;
    switch (app) {
    case PEER_BLUR:
    case PEER_GAUSSIAN:
    case PEER_UNSHARP: {
        const int unsharp = app == PEER_UNSHARP;
        k[0] = kernel(c, app, peer_names[app]);
        rc = !k[0] || ARG(k[0], 0, H) || ARG(k[0], 1, W) || ARG(k[0], 2, b->in) || ARG(k[0], 3, b->out) ||
             launch(c, k[0], (size_t)W, (size_t)(H + (unsharp ? 63 : 31)) / (unsharp ? 64 : 32), 128, 1, ns);
        break;
    }
    case PEER_LAPLACIAN: {
        k[0] = kernel(c, app, "laplacian_down");
        k[1] = kernel(c, app, "laplacian_layer");
        const size_t hw = (size_t)(W + 1) / 2, hh = (size_t)(H + 1) / 2;
        rc = !k[0] || !k[1] || ARG(k[0], 0, H) || ARG(k[0], 1, W) || ARG(k[0], 2, b->in) || ARG(k[0], 3, b->aux) ||
             ARG(k[1], 0, H) || ARG(k[1], 1, W) || ARG(k[1], 2, b->in) || ARG(k[1], 3, b->aux) ||
             ARG(k[1], 4, b->out) || launch(c, k[0], hw, hh, 32, 8, ns) || launch(c, k[1], hw, hh, 32, 8, ns);
        break;
    }
    default: {
        k[0] = kernel(c, app, "sharpening_down");
        k[1] = kernel(c, app, "sharpening_edges");
        k[2] = kernel(c, app, "sharpening_out");
        const cl_ulong zero = 0;
        rc = !k[0] || !k[1] || !k[2] ||
             failed("clEnqueueFillBuffer",
                    clEnqueueFillBuffer(c->q, b->scratch, &zero, sizeof zero, 0, sizeof zero, 0, NULL, NULL)) ||
             ARG(k[0], 0, H) || ARG(k[0], 1, W) || ARG(k[0], 2, b->in) || ARG(k[0], 3, b->aux) ||
             ARG(k[1], 0, H) || ARG(k[1], 1, W) || ARG(k[1], 2, b->in) || ARG(k[1], 3, b->scratch) ||
             ARG(k[2], 0, H) || ARG(k[2], 1, W) || ARG(k[2], 2, strength) || ARG(k[2], 3, overshoot) ||
             ARG(k[2], 4, b->in) || ARG(k[2], 5, b->aux) || ARG(k[2], 6, b->scratch) || ARG(k[2], 7, b->out) ||
             launch(c, k[0], (size_t)W / 4, (size_t)H / 4, 32, 8, ns) ||
             launch(c, k[1], (size_t)W, (size_t)(H + 31) / 32, 128, 1, ns) ||
             launch(c, k[2], (size_t)W, (size_t)(H + 31) / 32, 128, 1, ns);
        break;
    }
    }
    for (int i = 0; i < 3; i++)
        if (k[i]) clReleaseKernel(k[i]);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int one(int app, int H, int W, void *user)
{
    cl *c = user;
    size_t in_b, out_b, aux_b;
    peer_sizes(app, H, W, &in_b, &out_b, &aux_b);
    if (app == PEER_SHARPENING) aux_b = (size_t)(H / 4) * (size_t)(W / 4); /* the down-sampled image */
    void *in = malloc(in_b), *want = calloc(1, out_b), *got = calloc(1, out_b);
    void *want_aux = calloc(1, aux_b + 1), *got_aux = calloc(1, aux_b + 1);
    bufs b = {NULL, NULL, NULL, NULL};
    cl_int e = CL_SUCCESS;
    int rc = !in || !want || !got || !want_aux || !got_aux;
    if (rc) fprintf(stderr, "bench_parac_peers_opencl: out of memory at %dx%d\n", H, W);
    if (!rc) {
        peer_fill_random(app, in, in_b);
        peer_reference(app, H, W, in, want, want_aux);
        b.in = clCreateBuffer(c->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_b, in, &e);
        if (e == CL_SUCCESS) b.out = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, out_b, NULL, &e);
        if (e == CL_SUCCESS) b.aux = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, aux_b + 1, NULL, &e);
        if (e == CL_SUCCESS) b.scratch = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 8, NULL, &e);
        rc = failed("clCreateBuffer", e);
    }
    double ns = 0;
    if (!rc) rc = run(c, app, H, W, &b, &ns);
    if (!rc)
        rc = failed("read", clEnqueueReadBuffer(c->q, b.out, CL_TRUE, 0, out_b, got, 0, NULL, NULL)) ||
             (app == PEER_LAPLACIAN &&
              failed("read", clEnqueueReadBuffer(c->q, b.aux, CL_TRUE, 0, aux_b, got_aux, 0, NULL, NULL)));
    if (!rc)
        rc = peer_compare(app, H, W, got, want, out_b) ||
             (app == PEER_LAPLACIAN && peer_compare(app, H, W, got_aux, want_aux, aux_b));
    if (!rc && c->runs > 0) {
        double *ms = malloc(sizeof *ms * (size_t)c->runs);
        for (int r = 0; !rc && r < 2; r++) rc = run(c, app, H, W, &b, &ns);
        for (int r = 0; !rc && ms && r < c->runs; r++) {
            rc = run(c, app, H, W, &b, &ns);
            ms[r] = ns / 1e6;
        }
        if (!rc && ms) {
            qsort(ms, (size_t)c->runs, sizeof *ms, cmp_double);
            peer_report(c->json, "opencl", app, H, W, ms[c->runs / 2], c->copy_gbs);
        }
        free(ms);
    } else if (!rc) {
        printf("  %-11s %5dx%-5d  matches the reference\n", peer_names[app], H, W);
    }
    if (b.in) clReleaseMemObject(b.in);
    if (b.out) clReleaseMemObject(b.out);
    if (b.aux) clReleaseMemObject(b.aux);
    if (b.scratch) clReleaseMemObject(b.scratch);
    free(in), free(want), free(got), free(want_aux), free(got_aux);
    return rc;
}

int main(int argc, char **argv)
{
    cl c = {0};
    c.runs = 20;
    const char *sizes = "1536x2560,4096x4096", *check = "37x61,101x203,64x9", *json_path = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs")) c.runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--check")) check = argv[i + 1];
        else if (!strcmp(argv[i], "--json")) json_path = argv[i + 1];
        else {
            fprintf(stderr, "bench_parac_peers_opencl: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (c.runs < 1 || c.runs > 1000) c.runs = 20;
    /* the project's loader first: it makes drivers that no ICD file names visible */
    parac_opencl_device_info info[8];
    int found = 0;
    parac_opencl_devices(info, 8, &found);
    if (pick_device(&c) || build(&c)) return 1;
    c.json = json_path ? fopen(json_path, "a") : NULL;
    c.copy_gbs = copy_rate(&c);
    printf("hand-written OpenCL peers; copy rate %.0f GB/s (read + write)\n", c.copy_gbs);
    int rc = peer_check_then_time(check, sizes, &c.runs, one, &c);
    if (c.json) fclose(c.json);
    for (int a = 0; a < PEER_APPS; a++)
        if (c.prog[a]) clReleaseProgram(c.prog[a]);
    if (c.q) clReleaseCommandQueue(c.q);
    if (c.ctx) clReleaseContext(c.ctx);
    return rc;
}
