/* Contexts: device selection with CPU fallback, streams, threads, progress. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "core/alloc_internal.h"
#include "context_internal.h"
#include "device_internal.h"
#include "error_internal.h"
#include "parac/config.h"

const char *parac_version_string(void) { return PARAC_VERSION_STRING; }

int parac_has_opencl(void)
{
#ifdef PARAC_HAVE_OPENCL
    return 1;
#else
    return 0;
#endif
}

const char *parac_backend_name(parac_backend backend)
{
    return backend == PARAC_BACKEND_CUDA ? "cuda" : "cpu";
}

static void use_cpu(parac_context *ctx, const char *reason)
{
    ctx->backend = PARAC_BACKEND_CPU;
    ctx->cuda_device = -1;
    snprintf(ctx->device, sizeof ctx->device, "cpu");
    snprintf(ctx->reason, sizeof ctx->reason, "%s", reason);
}

static parac_status use_cuda(parac_context *ctx, int ordinal, const char *how)
{
    PARAC_TRY(parac__cuda_set_device(ordinal));
    PARAC_TRY(parac__cuda_stream_create(ordinal, &ctx->own_stream));
    ctx->stream = ctx->own_stream;
    ctx->backend = PARAC_BACKEND_CUDA;
    ctx->cuda_device = ordinal;
    ctx->workers[0] = ordinal;
    ctx->n_workers = 1;
    snprintf(ctx->device, sizeof ctx->device, "cuda:%d", ordinal);
    parac_cuda_device_info info;
    if (parac_cuda_device_query(ordinal, &info) == PARAC_OK)
        snprintf(ctx->reason, sizeof ctx->reason, "%s: CUDA device %d (%s, compute %d.%d)", how,
                 ordinal, info.name, info.compute_major, info.compute_minor);
    else
        snprintf(ctx->reason, sizeof ctx->reason, "%s: CUDA device %d", how, ordinal);
    return PARAC_OK;
}

/* Several devices: "cuda:all" or a list "cuda:0,cuda:1" (also "cuda:0,1");
 * the same device may appear twice (two workers on one GPU). Returns the
 * count, 0 when `spec` is not such a list, -1 when malformed. */
static int parse_cuda_list(const char *spec, int n_devices, int out[16])
{
    if (strcmp(spec, "cuda:all") == 0) {
        int n = n_devices < 16 ? n_devices : 16;
        for (int i = 0; i < n; i++) out[i] = i;
        return n;
    }
    if (!strchr(spec, ',') || strncmp(spec, "cuda:", 5) != 0) return 0;
    int n = 0;
    const char *p = spec + 5;
    while (*p) {
        if (strncmp(p, "cuda:", 5) == 0) p += 5;
        if (!isdigit((unsigned char)*p) || n == 16) return -1;
        char *end;
        long v = strtol(p, &end, 10);
        if (v > 1000000 || (*end && *end != ',')) return -1;
        out[n++] = (int)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

/* Parse "cuda", "cuda:N"; returns the ordinal or -1 when malformed. */
static int parse_cuda_ordinal(const char *spec)
{
    if (strcmp(spec, "cuda") == 0 || strcmp(spec, "gpu") == 0) return 0;
    const char *p = NULL;
    if (strncmp(spec, "cuda:", 5) == 0) p = spec + 5;
    else if (strncmp(spec, "gpu:", 4) == 0) p = spec + 4;
    if (!p || !*p) return -1;
    for (const char *q = p; *q; q++)
        if (!isdigit((unsigned char)*q)) return -1;
    long v = strtol(p, NULL, 10);
    return v > 1000000 ? -1 : (int)v;
}

parac_status parac_context_create(parac_context **out, const char *device)
{
    if (!out) return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "output pointer is NULL");
    *out = NULL;
    const char *origin = "requested";
    if (!device || !*device) {
        device = getenv("PARAC_DEVICE");
        origin = "PARAC_DEVICE";
        if (!device || !*device) {
            device = "auto";
            origin = "default";
        }
    }
    parac_context *ctx = parac__calloc(1, sizeof *ctx);
    if (!ctx) return parac__fail(PARAC_ERR_OUT_OF_MEMORY, "out of host memory");
    parac__tuning_read(&ctx->tuning);

    parac_status st = PARAC_OK;
    char why[256] = "";
    char how[96];
    if (strcmp(device, "auto") == 0) {
        int n = 0;
        snprintf(how, sizeof how, "auto (%s)", origin);
        if (parac__cuda_probe(&n, why, sizeof why) == PARAC_OK) {
            st = use_cuda(ctx, 0, how);
            if (st != PARAC_OK) {
                char msg[512];
                snprintf(msg, sizeof msg, "%s: CUDA device 0 unusable (%s); using the CPU", how,
                         parac_error_message());
                use_cpu(ctx, msg);
                st = PARAC_OK;
            }
        } else {
            char msg[512];
            snprintf(msg, sizeof msg, "%s: no CUDA device (%s); using the CPU", how, why);
            use_cpu(ctx, msg);
        }
        parac_error_clear();
    } else if (strcmp(device, "cpu") == 0) {
        char msg[96];
        snprintf(msg, sizeof msg, "cpu (%s)", origin);
        use_cpu(ctx, msg);
    } else if (strcmp(device, "cuda:all") == 0 || strchr(device, ',')) {
        int n = 0, list[16];
        if ((st = parac__cuda_probe(&n, why, sizeof why)) != PARAC_OK) {
            st = parac__fail(st, "device '%s' (%s) is not available: %s", device, origin, why);
        } else {
            int k = parse_cuda_list(device, n, list);
            if (k <= 0)
                st = parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                                 "unknown device list '%s' (%s; expected cuda:all or cuda:A,cuda:B,...)",
                                 device, origin);
            for (int i = 0; st == PARAC_OK && i < k; i++)
                if (list[i] >= n)
                    st = parac__fail(PARAC_ERR_NO_DEVICE, "device list '%s' (%s): CUDA device %d does not exist (%d found)",
                                     device, origin, list[i], n);
            if (st == PARAC_OK) {
                snprintf(how, sizeof how, "%s (%s)", device, origin);
                st = use_cuda(ctx, list[0], how);
            }
            if (st == PARAC_OK) {
                ctx->n_workers = k;
                size_t len = 0;
                for (int i = 0; i < k; i++) {
                    ctx->workers[i] = list[i];
                    len += (size_t)snprintf(ctx->device + len, sizeof ctx->device - len, "%scuda:%d",
                                            i ? "," : "", list[i]);
                    if (len >= sizeof ctx->device) len = sizeof ctx->device - 1;
                }
            }
        }
    } else {
        int ordinal = parse_cuda_ordinal(device);
        int n = 0;
        if (ordinal < 0) {
            st = parac__fail(PARAC_ERR_INVALID_ARGUMENT,
                             "unknown device '%s' (%s; expected auto, cpu, cuda or cuda:N)",
                             device, origin);
        } else if ((st = parac__cuda_probe(&n, why, sizeof why)) != PARAC_OK) {
            st = parac__fail(st, "device '%s' (%s) is not available: %s", device, origin, why);
        } else if (ordinal >= n) {
            st = parac__fail(PARAC_ERR_NO_DEVICE, "device '%s' (%s) does not exist: %d CUDA device%s found",
                             device, origin, n, n == 1 ? "" : "s");
        } else {
            snprintf(how, sizeof how, "%s (%s)", device, origin);
            st = use_cuda(ctx, ordinal, how);
        }
    }
    if (st != PARAC_OK) {
        parac_context_destroy(ctx);
        return st;
    }
    *out = ctx;
    return PARAC_OK;
}

int parac_context_cuda_workers(const parac_context *ctx, int *devices, int max)
{
    for (int i = 0; i < ctx->n_workers && i < max; i++) devices[i] = ctx->workers[i];
    return ctx->n_workers;
}

void parac_context_destroy(parac_context *ctx)
{
    if (!ctx) return;
    parac__cuda_stream_destroy(ctx->own_stream);
    free(ctx);
}

parac_backend parac_context_backend(const parac_context *ctx) { return ctx->backend; }
int parac_context_cuda_device(const parac_context *ctx) { return ctx->cuda_device; }
const char *parac_context_device(const parac_context *ctx) { return ctx->device; }
const char *parac_context_reason(const parac_context *ctx) { return ctx->reason; }

parac_status parac_context_set_stream(parac_context *ctx, void *stream)
{
    if (ctx->backend != PARAC_BACKEND_CUDA && stream)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "a CUDA stream on a CPU context");
    ctx->stream = stream ? stream : ctx->own_stream;
    return PARAC_OK;
}

void *parac_context_stream(const parac_context *ctx) { return ctx->stream; }

parac_status parac_context_synchronize(parac_context *ctx)
{
    if (ctx->backend != PARAC_BACKEND_CUDA) return PARAC_OK;
    return parac__cuda_stream_sync(ctx->stream);
}

void parac_context_set_threads(parac_context *ctx, int threads)
{
    ctx->threads = threads < 0 ? 0 : threads;
}

int parac_context_threads(const parac_context *ctx)
{
    return ctx->threads > 0 ? ctx->threads : omp_get_max_threads();
}

void parac_context_set_progress(parac_context *ctx, parac_progress_fn fn, void *user)
{
    ctx->progress = fn;
    ctx->progress_user = user;
}
