/* parac demo: every registry operation on synthetic inputs, on the best
 * device, with previews and timings in DIR/index.html. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "demo_report.h"
#include "op_timing.h"

enum { DEMO_RUNS = 7 };

void cmd_demo_help(FILE *out)
{
    fprintf(out,
            "usage: parac demo [--out DIR] [--only OP]\n\n"
            "Makes synthetic inputs for every operation, runs each on the selected device\n"
            "(--device; auto = the GPU when one is usable), and writes PNG previews of the\n"
            "inputs and outputs and DIR/index.html showing them side by side with timings.\n"
            "  --out DIR    output folder (default: parac-demo), created if missing\n"
            "  --only OP    run only this operation\n");
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* A u8 image that a browser can show: the middle slice of a volume, integer
 * types scaled by their nominal range, floats stretched from min..max. */
static parac_status write_preview(parac_context *cpu, const parac_image *img, const char *path)
{
    parac_image *host = NULL, *slice = NULL, *u8 = NULL;
    parac_status st = parac_image_clone(&host, img, PARAC_MEMORY_HOST, -1, NULL);
    if (st == PARAC_OK) st = parac_image_view_slice(&slice, host, host->depth / 2);
    parac_args *args = NULL;
    if (st == PARAC_OK) st = parac_args_create(&args);
    if (st == PARAC_OK) st = parac_args_set(args, "dtype", "u8");
    if (st == PARAC_OK)
        st = parac_args_set(args, "scale", parac_dtype_is_float(img->dtype) || img->dtype == PARAC_I32
                                                ? "minmax" : "full");
    if (st == PARAC_OK) st = parac_op_run(cpu, "convert", &slice, 1, &u8, 1, args, NULL, 0);
    if (st == PARAC_OK) st = parac_image_write(path, u8, NULL);
    parac_args_destroy(args);
    parac_image_destroy(u8);
    parac_image_destroy(slice);
    parac_image_destroy(host);
    return st;
}

static void describe_args(const parac_args *args, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < parac_args_count(args) && used < size; i++) {
        const char *n = parac_args_name_at(args, i);
        int w = snprintf(buf + used, size - used, "%s--%s %s", used ? " " : "", n,
                         parac_args_get(args, n));
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* Run one operation: demo inputs, timed runs on the device, previews. */
static void demo_one(parac_context *ctx, parac_context *cpu, const parac_op *op, const char *dir,
                     demo_entry *e)
{
    parac_image *inputs[8] = {0}, *outputs[8] = {0};
    parac_args *args = NULL;
    char path[4096];
    op_timing t;
    memset(e, 0, sizeof *e);
    snprintf(e->op, sizeof e->op, "%s", op->name);
    snprintf(e->device, sizeof e->device, "%s", parac_context_device(ctx));
    parac_status st = parac_args_create(&args);
    if (st == PARAC_OK) st = op->demo(ctx, inputs, args);
    if (st == PARAC_OK) describe_args(args, e->params, sizeof e->params);
    if (st == PARAC_OK) st = cli_time_op(ctx, op, inputs, args, DEMO_RUNS, outputs, &t);
    if (st == PARAC_OK) {
        e->median_ms = t.median_ms;
        e->transfer_ms = t.upload_ms;
        snprintf(e->method, sizeof e->method, "%s", t.method);
    }
    for (int i = 0; st == PARAC_OK && i < op->n_inputs; i++) {
        snprintf(e->inputs[i], sizeof e->inputs[i], "%s-in%d.png", op->name, i);
        snprintf(path, sizeof path, "%s/%s", dir, e->inputs[i]);
        st = write_preview(cpu, inputs[i], path);
        e->n_inputs = i + 1;
    }
    for (int i = 0; st == PARAC_OK && i < op->n_outputs; i++) {
        double t0 = now_ms();
        parac_image *host = NULL;
        st = parac_image_download(&host, outputs[i], parac_context_backend(ctx) == PARAC_BACKEND_CUDA,
                                  parac_context_stream(ctx));
        if (st == PARAC_OK) st = parac_context_synchronize(ctx);
        e->transfer_ms += now_ms() - t0;
        snprintf(e->outputs[i], sizeof e->outputs[i], "%s-out%d.png", op->name, i);
        snprintf(path, sizeof path, "%s/%s", dir, e->outputs[i]);
        if (st == PARAC_OK) st = write_preview(cpu, host, path);
        parac_image_destroy(host);
        e->n_outputs = i + 1;
    }
    if (st != PARAC_OK) snprintf(e->error, sizeof e->error, "%s", parac_error_message());
    for (int i = 0; i < 8; i++) {
        parac_image_destroy(inputs[i]);
        parac_image_destroy(outputs[i]);
    }
    parac_args_destroy(args);
}

int cmd_demo(int argc, char **argv)
{
    const char *dir = "parac-demo", *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) dir = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
        else {
            cli_error("demo: unknown argument '%s' (see 'parac demo --help')", argv[i]);
            return CLI_USER_ERROR;
        }
    }
    if (only && !parac_op_find(only)) {
        cli_error("demo: unknown operation '%s'", only);
        return CLI_USER_ERROR;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error("demo: cannot create '%s': %s", dir, strerror(errno));
        return CLI_USER_ERROR;
    }
    parac_context *ctx = NULL, *cpu = NULL;
    parac_status st = cli_context(&ctx);
    if (st == PARAC_OK) st = parac_context_create(&cpu, "cpu");
    if (st != PARAC_OK) {
        parac_context_destroy(ctx);
        return cli_fail(st, "demo");
    }
    char device_line[700];
    snprintf(device_line, sizeof device_line, "device %s: %s", parac_context_device(ctx),
             parac_context_reason(ctx));
    cli_info("parac demo on %s", device_line);
    demo_entry *entries = calloc((size_t)parac_op_count(), sizeof *entries);
    int n = 0, failures = 0;
    for (int i = 0; entries && i < parac_op_count(); i++) {
        const parac_op *op = parac_op_at(i);
        if (!op->demo || (only && strcmp(only, op->name) != 0)) continue;
        demo_one(ctx, cpu, op, dir, &entries[n]);
        if (entries[n].error[0]) {
            failures++;
            cli_error("demo: %s failed: %s", op->name, entries[n].error);
        } else {
            cli_info("  %-27s %9.3f ms  %s", op->name, entries[n].median_ms, entries[n].method);
        }
        n++;
    }
    int rc = CLI_OK;
    if (!entries || demo_write_report(dir, entries, n, device_line, parac_version_string()) != 0) {
        cli_error("demo: cannot write %s/index.html", dir);
        rc = CLI_USER_ERROR;
    } else {
        cli_info("wrote %s/index.html (%d operations)", dir, n);
    }
    free(entries);
    parac_context_destroy(cpu);
    parac_context_destroy(ctx);
    return failures ? CLI_INTERNAL_ERROR : rc;
}
