/* parac bench: time every operation (or some) on the selected device with
 * its demo inputs. The detailed benchmarks with peers live in bench/. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "op_timing.h"

void cmd_bench_help(FILE *out)
{
    fprintf(out,
            "usage: parac bench [--runs N] [--only OP] [--json FILE]\n\n"
            "Times each operation on its demo inputs on the selected device (--device):\n"
            "inputs are moved to the device first, one warm-up run, then N timed runs\n"
            "(default 10), each synchronised; prints median and minimum per operation.\n"
            "  --json FILE   also write one JSON object per operation to FILE\n"
            "For kernel-level timings against peer libraries, see bench/README.md.\n");
}

int cmd_bench(int argc, char **argv)
{
    int runs = 10;
    const char *only = NULL, *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
            if (runs < 1 || runs > 100000) {
                cli_error("bench: --runs must be 1..100000");
                return CLI_USER_ERROR;
            }
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
            json = argv[++i];
        } else {
            cli_error("bench: unknown argument '%s' (see 'parac bench --help')", argv[i]);
            return CLI_USER_ERROR;
        }
    }
    if (only && !parac_op_find(only)) {
        cli_error("bench: unknown operation '%s'", only);
        return CLI_USER_ERROR;
    }
    FILE *jf = NULL;
    if (json && !(jf = fopen(json, "w"))) {
        cli_error("bench: cannot write '%s'", json);
        return CLI_USER_ERROR;
    }
    parac_context *ctx = NULL;
    parac_status st = cli_context(&ctx);
    if (st != PARAC_OK) {
        if (jf) fclose(jf);
        return cli_fail(st, "bench");
    }
    printf("device %s: %s\n", parac_context_device(ctx), parac_context_reason(ctx));
    printf("%-27s %12s %12s %12s  %s\n", "operation", "median ms", "min ms", "upload ms", "method");
    int rc = CLI_OK;
    for (int i = 0; i < parac_op_count(); i++) {
        const parac_op *op = parac_op_at(i);
        if (!op->demo || (only && strcmp(only, op->name) != 0)) continue;
        parac_image *inputs[8] = {0}, *outputs[8] = {0};
        parac_args *args = NULL;
        op_timing t;
        st = parac_args_create(&args);
        if (st == PARAC_OK) st = op->demo(ctx, inputs, args);
        if (st == PARAC_OK) st = cli_time_op(ctx, op, inputs, args, runs, outputs, &t);
        if (st == PARAC_OK) {
            printf("%-27s %12.4f %12.4f %12.4f  %s\n", op->name, t.median_ms, t.min_ms,
                   t.upload_ms, t.method);
            if (jf)
                fprintf(jf,
                        "{\"bench\":\"parac-bench\",\"op\":\"%s\",\"device\":\"%s\","
                        "\"median_ms\":%.6f,\"min_ms\":%.6f,\"upload_ms\":%.6f,\"runs\":%d}\n",
                        op->name, parac_context_device(ctx), t.median_ms, t.min_ms, t.upload_ms,
                        runs);
        } else {
            rc = cli_fail(st, op->name);
        }
        for (int k = 0; k < 8; k++) {
            parac_image_destroy(inputs[k]);
            parac_image_destroy(outputs[k]);
        }
        parac_args_destroy(args);
    }
    if (jf) fclose(jf);
    parac_context_destroy(ctx);
    return rc;
}
