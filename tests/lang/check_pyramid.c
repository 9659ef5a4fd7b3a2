/* pyramid.pc (a pyramid as one value) against plain C, and on the device
 * targets no copies but the input's and the output's. */
#include "lang_check.h"

void collapse(int H, int W, int levels, float *in, float *out);

/* out = a + 0.5 * (the level below, collapsed) brought up by repetition */
static void reference(int H, int W, int depth, const float *a, float *out)
{
    if (depth == 0 || H < 2 || W < 2) {
        memcpy(out, a, sizeof *a * (size_t)H * W);
        return;
    }
    const int h = (H + 1) / 2, w = (W + 1) / 2;
    float *d = check_alloc(sizeof *d * (size_t)h * w), *up = check_alloc(sizeof *up * (size_t)h * w);
    for (int x = 0; x < h; x++)
        for (int y = 0; y < w; y++) {
            const int x1 = 2 * x + 1 < H ? 2 * x + 1 : 2 * x, y1 = 2 * y + 1 < W ? 2 * y + 1 : 2 * y;
            d[x * w + y] = (a[2 * x * W + 2 * y] + a[2 * x * W + y1] + a[x1 * W + 2 * y] + a[x1 * W + y1]) * 0.25f;
        }
    reference(h, w, depth - 1, d, up);
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) out[x * W + y] = a[x * W + y] + 0.5f * up[(x / 2) * w + y / 2];
    free(d);
    free(up);
}

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        const int H = check_sizes[s][0], W = check_sizes[s][1];
        const size_t n = (size_t)H * W;
        float *in = check_alloc(n * 4), *out = check_alloc(n * 4), *want = check_alloc(n * 4);
        for (size_t i = 0; i < n; i++) in[i] = (float)(check_rand() % 1000) / 8.0f - 60.0f;
        for (int levels = 0; levels <= 7; levels += 1 + s % 3) {
            collapse(H, W, levels, in, out);
            if (check_transfers("pyramid", 1, 1)) return 1;
            reference(H, W, levels, in, want);
            if (check_close("pyramid", out, want, (long)n, H, W, 1e-6)) {
                fprintf(stderr, "(%d levels)\n", levels);
                return 1;
            }
        }
        free(in);
        free(out);
        free(want);
    }
    printf("pyramid: ok\n");
    return 0;
}
