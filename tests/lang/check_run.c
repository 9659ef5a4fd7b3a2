/* `parac run examples/sharpen_run.pc IN OUT`: OUT must be the 3x3 sharpening
 * of IN (edges repeated, clamped to 0..255), computed here independently.
 * Usage: check_run PARAC PROGRAM TMPDIR TARGET */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parac/parac.h"

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    char in[4096], out[4096], cmd[16384];
    snprintf(in, sizeof in, "%s/run_in_%s.png", argv[3], argv[4]);
    snprintf(out, sizeof out, "%s/run_out_%s.png", argv[3], argv[4]);
    int W = 41, H = 29, C = 3;
    parac_image *img = NULL, *res = NULL;
    if (parac_image_create(&img, W, H, 1, C, PARAC_U8, PARAC_MEMORY_HOST, -1) != PARAC_OK) return 2;
    unsigned s = 12345;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W * C; x++) {
            s = s * 1103515245u + 12345u;
            ((unsigned char *)img->data)[y * img->row_pitch + x] = (unsigned char)(s >> 16);
        }
    if (parac_image_write(in, img, NULL) != PARAC_OK) return 2;
    snprintf(cmd, sizeof cmd, "'%s' run '%s' '%s' '%s' --target %s", argv[1], argv[2], in, out, argv[4]);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "'%s' failed (%d)\n", cmd, rc);
        return 1;
    }
    if (parac_image_read(out, NULL, &res) != PARAC_OK) return 1;
    if (res->width != W || res->height != H || res->channels != C || res->dtype != PARAC_U8) return 1;
    for (int c = 0; c < C; c++)
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
#define P(yy, xx) ((int)((unsigned char *)img->data)[clampi(yy, 0, H - 1) * img->row_pitch + clampi(xx, 0, W - 1) * C + c])
                int want = clampi(5 * P(y, x) - P(y - 1, x) - P(y + 1, x) - P(y, x - 1) - P(y, x + 1), 0, 255);
                int got = ((unsigned char *)res->data)[y * res->row_pitch + x * C + c];
                if (got != want) {
                    fprintf(stderr, "channel %d (%d,%d): got %d want %d\n", c, x, y, got, want);
                    return 1;
                }
            }
    printf("parac run (%s): output matches\n", argv[4]);
    parac_image_destroy(img);
    parac_image_destroy(res);
    return 0;
}
