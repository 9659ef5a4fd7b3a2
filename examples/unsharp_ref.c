/* Reference for unsharp.pc in plain C (planar float, channels first). */
#include <stdlib.h>

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

void unsharp_ref(int H, int W, const float *in, float *out)
{
    static const float k[7] = {0.0366328454f, 0.111280758f, 0.216745321f, 0.270682149f,
                               0.216745321f, 0.111280758f, 0.0366328454f};
    size_t n = (size_t)H * W;
    float *gray = malloc(n * sizeof *gray), *hb = malloc(n * sizeof *hb);
    for (size_t i = 0; i < n; i++) gray[i] = 0.299f * in[i] + 0.587f * in[n + i] + 0.114f * in[2 * n + i];
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            float s = k[0] * gray[(size_t)x * W + clampi(y - 3, 0, W - 1)];
            for (int t = 1; t < 7; t++) s += k[t] * gray[(size_t)x * W + clampi(y - 3 + t, 0, W - 1)];
            hb[(size_t)x * W + y] = s;
        }
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            float s = k[0] * hb[(size_t)clampi(x - 3, 0, H - 1) * W + y];
            for (int t = 1; t < 7; t++) s += k[t] * hb[(size_t)clampi(x - 3 + t, 0, H - 1) * W + y];
            size_t i = (size_t)x * W + y;
            float sharpen = 2.0f * gray[i] - s;
            float ratio = sharpen / gray[i];
            for (int c = 0; c < 3; c++) out[c * n + i] = ratio * in[c * n + i];
        }
    free(gray);
    free(hb);
}
