/* parac demo: every registry operation on synthetic inputs, on the best
 * device, with previews and timings in DIR/index.html. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "demo_preview.h"
#include "demo_report.h"
#include "op_timing.h"

enum { DEMO_RUNS = 7 };

void cmd_demo_help(FILE *out)
{
    fprintf(out,
            "usage: parac demo [--out DIR] [--only OP]\n\n"
            "Makes synthetic inputs for every operation, runs each on the selected device\n"
            "(--device; auto = the GPU when one is usable), and writes PNG previews of the\n"
            "inputs and outputs, DIR/index.html showing them side by side with timings, and\n"
            "DIR/demo.json with DIR/data/*.npy (the same as data; tools/demo_compare.py times\n"
            "other libraries on them and adds a comparison to the page).\n"
            "  --out DIR    output folder (default: parac-demo), created if missing\n"
            "  --only OP    run only this operation\n");
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void record_args(const parac_args *args, demo_entry *e)
{
    e->n_params = 0;
    for (int i = 0; i < parac_args_count(args) && e->n_params < DEMO_MAX_PARAMS; i++, e->n_params++) {
        const char *n = parac_args_name_at(args, i);
        snprintf(e->param_names[i], sizeof e->param_names[i], "%s", n);
        snprintf(e->param_values[i], sizeof e->param_values[i], "%s", parac_args_get(args, n));
    }
}

/* The preview DIR/NAME and the data DIR/data/NAME.npy of a host image. */
static parac_status write_image(parac_context *cpu, const parac_image *img, const parac_image *base,
                                parac_demo_view view, const char *dir, const char *name)
{
    char path[4096], data[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    parac_status st = demo_preview_write(cpu, img, base, view, path);
    if (st != PARAC_OK) return st;
    demo_data_name(name, data, sizeof data);
    snprintf(path, sizeof path, "%s/%s", dir, data);
    return parac_image_write(path, img, NULL);
}

/* A table output: DIR/NAME (.csv), DIR/data/NAME.npy and its first rows as
 * HTML (names and numbers only, nothing to escape). */
static parac_status write_table(const parac_op *op, int k, const parac_image *table, int ndim, int n_in,
                                int64_t rows, const char *dir, const char *name, char *html, size_t size)
{
    const char *names[64];
    const int n = op->table_columns(k, ndim, n_in, names, 64);
    char path[4096], data[300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    parac_status st = parac_table_write(path, table, rows, names, n);
    demo_data_name(name, data, sizeof data);
    snprintf(path, sizeof path, "%s/%s", dir, data);
    if (st == PARAC_OK) st = parac_table_write(path, table, rows, names, n);
    if (st != PARAC_OK) return st;
    size_t len = (size_t)snprintf(html, size, "<table class=\"rows\"><tr>");
    for (int c = 0; c < n && len < size; c++) { /* names may wrap after '-' and '_' on a narrow page */
        len += (size_t)snprintf(html + len, size - len, "<th>");
        for (const char *ch = names[c]; *ch && len < size; ch++)
            len += (size_t)snprintf(html + len, size - len, "%c%s", *ch, *ch == '-' || *ch == '_' ? "<wbr>" : "");
        if (len < size) len += (size_t)snprintf(html + len, size - len, "</th>");
    }
    for (int64_t r = 0; r < rows && r < 8 && len < size; r++) {
        len += (size_t)snprintf(html + len, size - len, "</tr><tr>");
        const double *row = parac_image_at(table, 0, r, 0);
        for (int c = 0; c < n && len < size; c++) len += (size_t)snprintf(html + len, size - len, "<td>%.4g</td>", row[c]);
    }
    if (len < size) snprintf(html + len, size - len, "</tr></table>");
    if (len >= size) html[0] = 0, snprintf(html, size, "<p>(a table of %lld rows)</p>", (long long)rows);
    return PARAC_OK;
}

/* Run one operation: demo inputs, timed runs on the device, previews. */
static void demo_one(parac_context *ctx, parac_context *cpu, const parac_op *op, const char *dir,
                     demo_entry *e)
{
    parac_image *inputs[8] = {0}, *outputs[8] = {0};
    parac_args *args = NULL;
    op_timing t;
    memset(e, 0, sizeof *e);
    snprintf(e->op, sizeof e->op, "%s", op->name);
    snprintf(e->device, sizeof e->device, "%s", parac_context_device(ctx));
    snprintf(e->summary, sizeof e->summary, "%s", op->summary);
    parac_status st = parac_args_create(&args);
    if (st == PARAC_OK) st = op->demo(ctx, inputs, args);
    if (st == PARAC_OK) record_args(args, e);
    if (st == PARAC_OK) st = cli_time_op(ctx, op, inputs, args, DEMO_RUNS, outputs, &t);
    if (st == PARAC_OK) {
        e->median_ms = t.median_ms;
        e->transfer_ms = t.upload_ms;
        snprintf(e->method, sizeof e->method, "%s", t.method);
    }
    for (int i = 0; st == PARAC_OK && i < op->n_inputs && i < DEMO_MAX_IMAGES; i++) {
        snprintf(e->inputs[i], sizeof e->inputs[i], "%s-in%d.png", op->name, i);
        st = write_image(cpu, inputs[i], NULL, PARAC_DEMO_PLAIN, dir, e->inputs[i]);
        e->n_inputs = i + 1;
    }
    for (int i = 0; st == PARAC_OK && i < op->n_outputs && i < DEMO_MAX_IMAGES; i++) {
        double t0 = now_ms();
        parac_image *host = NULL;
        st = parac_image_download(&host, outputs[i], parac_context_backend(ctx) == PARAC_BACKEND_CUDA,
                                  parac_context_stream(ctx));
        if (st == PARAC_OK) st = parac_context_synchronize(ctx);
        e->transfer_ms += now_ms() - t0;
        const int ndim = inputs[0]->depth > 1 ? 3 : 2;
        const int table = op->table_columns && op->table_columns(i, ndim, op->n_inputs, NULL, 0);
        snprintf(e->outputs[i], sizeof e->outputs[i], "%s-out%d.%s", op->name, i, table ? "csv" : "png");
        if (st == PARAC_OK && table)
            st = write_table(op, i, host, ndim, op->n_inputs, (int64_t)t.results[0], dir, e->outputs[i],
                             e->tables[i], sizeof e->tables[i]);
        else if (st == PARAC_OK)
            st = write_image(cpu, host, inputs[0], op->demo_view, dir, e->outputs[i]);
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
    char data_dir[4096];
    snprintf(data_dir, sizeof data_dir, "%s/data", dir);
    const char *made[] = {dir, data_dir};
    for (int i = 0; i < 2; i++)
        if (mkdir(made[i], 0777) != 0 && errno != EEXIST) {
            cli_error("demo: cannot create '%s': %s", made[i], strerror(errno));
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
        if (only && strcmp(only, op->name) != 0) continue;
        if (op->demo) {
            demo_one(ctx, cpu, op, dir, &entries[n]);
        } else { /* every operation has a demo: one without is a defect of the registry */
            memset(&entries[n], 0, sizeof entries[n]);
            snprintf(entries[n].op, sizeof entries[n].op, "%s", op->name);
            snprintf(entries[n].error, sizeof entries[n].error, "the registry gives no demo for '%s'", op->name);
        }
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
