/* parac info FILE...: what a file holds, with per-channel statistics. */
#include <string.h>

#include "cli.h"

void cmd_info_help(FILE *out)
{
    fprintf(out,
            "usage: parac info [--layout hwc|dhw] FILE...\n\n"
            "Prints the format, size (width x height x depth), channels, dtype and the\n"
            "minimum, maximum and mean of every channel (NaNs are counted, not averaged).\n"
            "Statistics are computed on the selected device (--device).\n");
}

static int info_one(parac_context *ctx, const char *path, const parac_read_options *ropt)
{
    parac_format fmt = PARAC_FORMAT_AUTO;
    parac_status st = parac_format_detect(path, &fmt);
    if (st != PARAC_OK) return cli_fail(st, "");
    parac_image *img = NULL, *dev = NULL;
    st = parac_image_read(path, ropt, &img);
    if (st != PARAC_OK) return cli_fail(st, "");
    const parac_image *target = img;
    if (parac_context_backend(ctx) == PARAC_BACKEND_CUDA) {
        st = parac_image_upload(&dev, img, parac_context_cuda_device(ctx), parac_context_stream(ctx));
        target = dev;
    }
    parac_image_stats s;
    if (st == PARAC_OK) st = parac_image_compute_stats(ctx, target, &s);
    if (st == PARAC_OK) {
        printf("file: %s\n", path);
        printf("format: %s\n", parac_format_name(fmt));
        printf("size: %lldx%lldx%lld\n", (long long)img->width, (long long)img->height,
               (long long)img->depth);
        printf("channels: %d\n", img->channels);
        printf("dtype: %s\n", parac_dtype_name(img->dtype));
        for (int c = 0; c < s.channels; c++) {
            printf("  channel %d: min %.17g max %.17g mean %.17g", c, s.min[c], s.max[c], s.mean[c]);
            if (s.nan_count[c]) printf(" nan %lld", (long long)s.nan_count[c]);
            printf("\n");
        }
    }
    parac_image_destroy(dev);
    parac_image_destroy(img);
    return st == PARAC_OK ? CLI_OK : cli_fail(st, path);
}

int cmd_info(int argc, char **argv)
{
    parac_read_options ropt = {0};
    const char *files[256];
    int n = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "hwc") == 0) ropt.layout = PARAC_LAYOUT_HWC;
            else if (strcmp(v, "dhw") == 0) ropt.layout = PARAC_LAYOUT_DHW;
            else if (strcmp(v, "auto") != 0) {
                cli_error("info: --layout must be hwc, dhw or auto");
                return CLI_USER_ERROR;
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            cli_error("info: unknown option '%s'", argv[i]);
            return CLI_USER_ERROR;
        } else if (n < 256) {
            files[n++] = argv[i];
        }
    }
    if (n == 0) {
        cli_error("info: no file given (usage: parac info FILE...)");
        return CLI_USER_ERROR;
    }
    parac_context *ctx = NULL;
    parac_status st = cli_context(&ctx);
    if (st != PARAC_OK) return cli_fail(st, "");
    int rc = CLI_OK;
    for (int i = 0; i < n; i++) {
        int r = info_one(ctx, files[i], &ropt);
        if (r > rc) rc = r;
        if (i + 1 < n) printf("\n");
    }
    parac_context_destroy(ctx);
    return rc;
}
