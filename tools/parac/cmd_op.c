/* Registry operations as commands: parac OP IN... OUT... [--param value ...]. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "cli_batch.h"

static const char *type_name(parac_param_type t)
{
    switch (t) {
    case PARAC_PARAM_BOOL: return "bool";
    case PARAC_PARAM_INT: return "int";
    case PARAC_PARAM_DOUBLE: return "number";
    case PARAC_PARAM_STRING: return "text";
    case PARAC_PARAM_CHOICE: return "choice";
    case PARAC_PARAM_PATH: return "file";
    case PARAC_PARAM_LIST: return "text...";
    }
    return "?";
}

/* Print `text` wrapped at 78 columns with `indent` spaces. */
static void wrap(FILE *out, const char *text, int indent, int first_col)
{
    int col = first_col;
    const char *p = text;
    while (*p) {
        const char *w = p;
        while (*w && *w != ' ') w++;
        int len = (int)(w - p);
        if (col > indent && col + 1 + len > 78) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', out);
            col++;
        } else if (col < indent) {
            fprintf(out, "%*s", indent - col, "");
            col = indent;
        }
        fwrite(p, 1, (size_t)len, out);
        col += len;
        p = *w ? w + 1 : w;
    }
    fputc('\n', out);
}

void cli_op_help(const parac_op *op, FILE *out)
{
    fprintf(out, "usage: parac %s %s [options]\n\n", op->name, op->usage_args);
    wrap(out, op->summary, 0, 0);
    if (op->description) {
        fputc('\n', out);
        wrap(out, op->description, 0, 0);
    }
    fprintf(out, "\nparameters:\n");
    for (int i = 0; i < op->n_params; i++) {
        const parac_param_spec *s = &op->params[i];
        char head[96];
        snprintf(head, sizeof head, "  --%s %s", s->name,
                 s->type == PARAC_PARAM_BOOL ? "" : type_name(s->type));
        fprintf(out, "%-26s", head);
        char extra[512] = "";
        if ((s->type == PARAC_PARAM_CHOICE || s->type == PARAC_PARAM_INT) && s->choices)
            snprintf(extra, sizeof extra, " [%s]", s->choices);
        else if (s->min < s->max)
            snprintf(extra, sizeof extra, " [%g..%g]", s->min, s->max);
        char line[2048];
        snprintf(line, sizeof line, "%s%s%s%s%s", s->help, extra,
                 s->default_value ? " (default: " : "", s->default_value ? s->default_value : "",
                 s->default_value ? ")" : "");
        wrap(out, line, 26, 26);
    }
    if (op->n_methods > 0) {
        fprintf(out, "  %-24s", "--method NAME");
        wrap(out, "auto (default: the operation chooses) or one of the methods below", 26, 26);
        fprintf(out, "  %-24s", "--explain");
        wrap(out, "print which method ran on which device, and why", 26, 26);
        fprintf(out, "\nmethods:\n");
        for (int i = 0; i < op->n_methods; i++) {
            char head[96];
            snprintf(head, sizeof head, "  %s (%s)", op->methods[i].name,
                     parac_backend_name(op->methods[i].backend));
            fprintf(out, "%-26s", head);
            wrap(out, op->methods[i].help ? op->methods[i].help : "", 26, 26);
        }
    }
    fprintf(out,
            "\nfile options:\n"
            "  --layout hwc|dhw        how to read a 3-axis .npy/NRRD array (default: a last axis\n"
            "                          of 1..4 means channels)\n"
            "  --quality Q             JPEG quality of written files, 1..100 (default 95)\n"
            "  --compress              deflate-compress written TIFF files\n"
            "  --gzip                  gzip written NRRD data\n"
            "  --ascii                 write PGM/PPM as text (P2/P3)\n"
            "  --fortran-order         write .npy in Fortran order\n"
            "\nmany images (operations with one input and one output):\n"
            "  --out-dir DIR           every IN (files, directories, glob patterns) is read and\n"
            "                          written as DIR/<its file name>; a progress bar on a terminal\n"
            "  --workers N             images in flight at once, each worker with its own stream\n"
            "                          (default 4)\n"
            "\nglobal options: --device D, -v, -q, --progress (see 'parac --help')\n");
}

static const parac_param_spec *find_param(const parac_op *op, const char *name)
{
    for (int i = 0; i < op->n_params; i++)
        if (strcmp(op->params[i].name, name) == 0) return &op->params[i];
    return NULL;
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int cli_run_op(const parac_op *op, int argc, char **argv)
{
    const char **positional = calloc((size_t)argc, sizeof *positional);
    if (!positional) return cli_fail(PARAC_ERR_OUT_OF_MEMORY, op->name);
    const char *out_dir = NULL;
    int n_pos = 0, explain = 0, workers = 4, rc = CLI_OK;
    parac_read_options ropt = {0};
    parac_write_options wopt = {.png_compression = -1};
    parac_args *args = NULL;
    parac_status st = parac_args_create(&args);
    if (st != PARAC_OK) return cli_fail(st, op->name);

    for (int i = 1; i < argc && rc == CLI_OK; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli_op_help(op, stdout);
            parac_args_destroy(args);
            free(positional);
            return CLI_OK;
        }
        if (a[0] != '-' || a[1] == '\0' || (a[1] != '-' && !(a[1] >= 'a' && a[1] <= 'z'))) {
            positional[n_pos++] = a;
            continue;
        }
        if (a[1] != '-') {
            cli_error("%s: unknown option '%s' (see 'parac %s --help')", op->name, a, op->name);
            rc = CLI_USER_ERROR;
            break;
        }
        char name[128];
        const char *value = NULL;
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        if (len >= sizeof name) len = sizeof name - 1;
        memcpy(name, a + 2, len);
        name[len] = '\0';
        if (eq) value = eq + 1;

        /* Flags without values. */
        if (!value && strcmp(name, "explain") == 0) { explain = 1; continue; }
        if (!value && strcmp(name, "compress") == 0) { wopt.tiff_compress = 1; continue; }
        if (!value && strcmp(name, "gzip") == 0) { wopt.nrrd_gzip = 1; continue; }
        if (!value && strcmp(name, "ascii") == 0) { wopt.pnm_ascii = 1; continue; }
        if (!value && strcmp(name, "fortran-order") == 0) { wopt.npy_fortran_order = 1; continue; }
        const parac_param_spec *spec = find_param(op, name);
        if (!value && spec && spec->type == PARAC_PARAM_BOOL) value = "true";
        if (!value) {
            if (i + 1 >= argc) {
                cli_error("%s: option --%s needs a value", op->name, name);
                rc = CLI_USER_ERROR;
                break;
            }
            value = argv[++i];
        }
        if (strcmp(name, "layout") == 0) {
            if (strcmp(value, "hwc") == 0) ropt.layout = PARAC_LAYOUT_HWC;
            else if (strcmp(value, "dhw") == 0) ropt.layout = PARAC_LAYOUT_DHW;
            else if (strcmp(value, "auto") == 0) ropt.layout = PARAC_LAYOUT_AUTO;
            else {
                cli_error("%s: --layout must be hwc, dhw or auto, got '%s'", op->name, value);
                rc = CLI_USER_ERROR;
            }
            continue;
        }
        if (strcmp(name, "out-dir") == 0) {
            out_dir = value;
            continue;
        }
        if (strcmp(name, "workers") == 0) {
            char *end;
            long w = strtol(value, &end, 10);
            if (*end || w < 1 || w > 64) {
                cli_error("%s: --workers must be 1..64, got '%s'", op->name, value);
                rc = CLI_USER_ERROR;
            }
            workers = (int)w;
            continue;
        }
        if (strcmp(name, "quality") == 0) {
            char *end;
            long q = strtol(value, &end, 10);
            if (*end || q < 1 || q > 100) {
                cli_error("%s: --quality must be 1..100, got '%s'", op->name, value);
                rc = CLI_USER_ERROR;
            }
            wopt.jpeg_quality = (int)q;
            continue;
        }
        if (!spec && strcmp(name, "method") != 0) {
            cli_error("%s: unknown option '--%s' (see 'parac %s --help')", op->name, name, op->name);
            rc = CLI_USER_ERROR;
            break;
        }
        const char *before = spec && spec->type == PARAC_PARAM_LIST ? parac_args_get(args, name) : NULL;
        if (before) {
            size_t len2 = strlen(before) + strlen(value) + 2;
            char *joined = malloc(len2);
            if (!joined) {
                rc = cli_fail(PARAC_ERR_OUT_OF_MEMORY, op->name);
                break;
            }
            snprintf(joined, len2, "%s;%s", before, value);
            st = parac_args_set(args, name, joined);
            free(joined);
        } else {
            st = parac_args_set(args, name, value);
        }
        if (st != PARAC_OK) rc = cli_fail(st, op->name);
    }
    if (rc == CLI_OK && out_dir) {
        if (n_pos == 0) {
            cli_error("%s: --out-dir needs input files", op->name);
            rc = CLI_USER_ERROR;
        } else {
            const cli_batch_options bo = {out_dir, workers, explain, &ropt, &wopt};
            rc = cli_run_batch(op, args, positional, n_pos, &bo);
        }
        parac_args_destroy(args);
        free(positional);
        return rc;
    }
    const int least = op->n_inputs - op->n_optional_inputs + op->n_outputs, most = op->n_inputs + op->n_outputs;
    if (rc == CLI_OK && (n_pos < least || n_pos > most)) {
        if (least == most)
            cli_error("%s: expected %s (%d file%s), got %d (see 'parac %s --help')", op->name, op->usage_args, most,
                      most == 1 ? "" : "s", n_pos, op->name);
        else
            cli_error("%s: expected %s (%d to %d files), got %d (see 'parac %s --help')", op->name, op->usage_args,
                      least, most, n_pos, op->name);
        rc = CLI_USER_ERROR;
    }
    if (rc != CLI_OK) {
        parac_args_destroy(args);
        free(positional);
        return rc;
    }

    const int n_in = n_pos - op->n_outputs; /* the optional inputs given, if any */
    parac_image *inputs[8] = {0}, *outputs[8] = {0};
    double results[PARAC_MAX_RESULTS] = {0};
    parac_context *ctx = NULL;
    for (int i = 0; i < n_in && rc == CLI_OK; i++) {
        parac_read_options ropt_i = ropt;
        ropt_i.row = (int)(op->row_inputs >> i & 1u); /* a table of entries may be a 1-D NPY file */
        st = parac_image_read(positional[i], &ropt_i, &inputs[i]);
        if (st != PARAC_OK) rc = cli_fail(st, "");
    }
    if (rc == CLI_OK && (st = cli_context(&ctx)) != PARAC_OK) rc = cli_fail(st, "");
    if (rc == CLI_OK) {
        char why[1024] = "";
        double t0 = seconds_now();
        st = parac_op_run_results(ctx, op->name, inputs, n_in, outputs, op->n_outputs, args, results,
                                  PARAC_MAX_RESULTS, why, sizeof why);
        if (st == PARAC_OK) st = parac_context_synchronize(ctx);
        double t1 = seconds_now();
        if (st != PARAC_OK) {
            rc = cli_fail(st, "");
        } else {
            if (explain) printf("%s\n", why);
            cli_debug("%s took %.3f ms (including transfers)", why, (t1 - t0) * 1e3);
        }
    }
    for (int i = 0; i < op->n_outputs && rc == CLI_OK; i++) {
        const char *names[64];
        const int ndim = inputs[0]->depth > 1 ? 3 : 2;
        const int n_columns = op->table_columns ? op->table_columns(i, ndim, n_in, names, 64) : 0;
        st = n_columns ? parac_table_write(positional[n_in + i], outputs[i], (int64_t)results[0], names, n_columns)
                       : parac_image_write(positional[n_in + i], outputs[i], &wopt);
        if (st != PARAC_OK) rc = cli_fail(st, "");
    }
    /* the operation's numbers, one "name: value" line each on stdout */
    for (int k = 0; k < op->n_results && rc == CLI_OK; k++) printf("%s: %.17g\n", op->results[k].name, results[k]);
    for (int i = 0; i < 8; i++) {
        parac_image_destroy(inputs[i]);
        parac_image_destroy(outputs[i]);
    }
    parac_context_destroy(ctx);
    parac_args_destroy(args);
    free(positional);
    return rc;
}
