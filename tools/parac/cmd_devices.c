/* parac devices: what this machine offers parac. */
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "cli.h"

void cmd_devices_help(FILE *out)
{
    fprintf(out,
            "usage: parac devices [--cuda-count]\n\n"
            "Lists the CPU (cores, OpenMP threads), the CUDA GPUs (name, memory, compute\n"
            "capability, multiprocessors) or why none is usable, the OpenCL platforms and\n"
            "devices, and the device 'auto' would choose.\n"
            "  --cuda-count   print only the number of usable CUDA devices (0 if none)\n");
}

static void cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            const char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ') c++;
                snprintf(buf, size, "%s", c);
                buf[strcspn(buf, "\n")] = '\0';
            }
            break;
        }
    fclose(f);
}

int cmd_devices(int argc, char **argv)
{
    int count_only = argc > 1 && strcmp(argv[1], "--cuda-count") == 0;
    if (argc > 1 && !count_only) {
        cli_error("devices: unknown option '%s'", argv[1]);
        return CLI_USER_ERROR;
    }
    int n = 0;
    parac_status st = parac_cuda_device_count(&n);
    char why[1024];
    snprintf(why, sizeof why, "%s", st == PARAC_OK ? "" : parac_error_message());
    if (count_only) {
        printf("%d\n", st == PARAC_OK ? n : 0);
        return CLI_OK;
    }
    char model[256];
    cpu_model(model, sizeof model);
    printf("cpu: %s, %ld cores online, %d OpenMP threads\n", model, sysconf(_SC_NPROCESSORS_ONLN),
           omp_get_max_threads());
    if (st != PARAC_OK) {
        printf("cuda: none (%s)\n", why);
    } else {
        for (int i = 0; i < n; i++) {
            parac_cuda_device_info info;
            if (parac_cuda_device_query(i, &info) != PARAC_OK) {
                printf("cuda:%d: query failed: %s\n", i, parac_error_message());
                continue;
            }
            printf("cuda:%d: %s, %.1f GiB (%.1f GiB free), compute %d.%d, %d SMs, L2 %d MiB",
                   i, info.name, info.total_memory / 1073741824.0, info.free_memory / 1073741824.0,
                   info.compute_major, info.compute_minor, info.multiprocessors,
                   info.l2_cache_bytes >> 20);
            if (info.peak_bandwidth_gbs > 0) printf(", %.0f GB/s peak", info.peak_bandwidth_gbs);
            printf(", driver %d, runtime %d\n", info.driver_version, info.runtime_version);
        }
    }
    parac_opencl_device_info cl[32];
    int ncl = 0;
    st = parac_opencl_devices(cl, 32, &ncl);
    if (st != PARAC_OK) printf("opencl: unavailable (%s)\n", parac_error_message());
    else if (ncl == 0) printf("opencl: no platform found (%s)\n", parac_opencl_loader_note());
    else if (cli.verbose) printf("opencl drivers: %s\n", parac_opencl_loader_note());
    for (int i = 0; i < ncl && i < 32; i++)
        printf("opencl: %s / %s (%s, %s, %d compute units, %.1f GiB)\n", cl[i].platform,
               cl[i].name, cl[i].type, cl[i].version, cl[i].compute_units,
               cl[i].global_memory / 1073741824.0);
    parac_context *ctx = NULL;
    st = parac_context_create(&ctx, cli.device);
    if (st != PARAC_OK) return cli_fail(st, "");
    printf("selected: %s (%s)\n", parac_context_device(ctx), parac_context_reason(ctx));
    parac_context_destroy(ctx);
    return CLI_OK;
}
