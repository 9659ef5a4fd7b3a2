/* Reference for blur.pc in plain C: the same 3x1 then 1x3 mean, edges repeated. */
#include <stdint.h>
#include <stdlib.h>

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

void blur_ref(int H, int W, const uint16_t *in, uint16_t *out)
{
    uint16_t *t = malloc(sizeof *t * (size_t)H * (size_t)W);
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            int s = 0;
            for (int k = -1; k <= 1; k++) s += in[(size_t)x * W + clampi(y + k, 0, W - 1)];
            t[(size_t)x * W + y] = (uint16_t)(s / 3);
        }
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            int s = 0;
            for (int k = -1; k <= 1; k++) s += t[(size_t)clampi(x + k, 0, H - 1) * W + y];
            out[(size_t)x * W + y] = (uint16_t)(s / 3);
        }
    free(t);
}
