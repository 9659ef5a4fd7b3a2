/* Reference for gaussian.pc: the same kernel and mirror borders in plain C. */
#include <stdlib.h>

static int mirror(int i, int n) { return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i; }

void gaussian_ref(int H, int W, const float *in, float *out)
{
    static const float g[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
    float *t = malloc(sizeof *t * (size_t)H * (size_t)W);
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            float s = g[0] * in[(size_t)x * W + mirror(y - 2, W)];
            for (int k = 1; k < 5; k++) s += g[k] * in[(size_t)x * W + mirror(y - 2 + k, W)];
            t[(size_t)x * W + y] = s;
        }
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            float s = g[0] * t[(size_t)mirror(x - 2, H) * W + y];
            for (int k = 1; k < 5; k++) s += g[k] * t[(size_t)mirror(x - 2 + k, H) * W + y];
            out[(size_t)x * W + y] = s;
        }
    free(t);
}
