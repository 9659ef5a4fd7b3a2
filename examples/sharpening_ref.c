/* Reference for sharpening.pc in plain C. The bilinear weights are
 * multiples of 1/8, so every upsampled value is exact in float and double
 * alike; the rest is integer arithmetic. */
#include <stdlib.h>

static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Up pixel r along one axis of n4 samples: sample index and its two weights. */
static void weights(int r, int n4, int *i0, double *a, double *b)
{
    if (r < 2) {
        *i0 = 0, *a = 1, *b = 0;
    } else if (r >= 4 * n4 - 2) {
        *i0 = n4 - 1, *a = 1, *b = 0;
    } else {
        int k = (r - 2) % 4;
        *i0 = (r - 2) / 4;
        *a = (7 - 2 * k) / 8.0;
        *b = (1 + 2 * k) / 8.0;
    }
}

void sharpening_ref(int H, int W, int strength, int overshoot, const unsigned char *src, unsigned char *dst)
{
    int Md = H / 4, Nd = W / 4;
    size_t n = (size_t)H * W;
    unsigned char *down = malloc((size_t)Md * Nd), *up = malloc(n);
    int *error = malloc(n * sizeof *error), *edge = malloc(n * sizeof *edge);
    for (int i = 0; i < Md; i++)
        for (int j = 0; j < Nd; j++) {
            int s = 0;
            for (int a = 0; a < 4; a++)
                for (int b = 0; b < 4; b++) s += src[(size_t)(4 * i + a) * W + 4 * j + b];
            down[(size_t)i * Nd + j] = (unsigned char)((s + 8) >> 4);
        }
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++) {
            int i0, j0;
            double ra, rb, ca, cb;
            weights(r < 4 * Md ? r : 4 * Md - 1, Md, &i0, &ra, &rb);
            weights(c < 4 * Nd ? c : 4 * Nd - 1, Nd, &j0, &ca, &cb);
            int i1 = i0 + 1 < Md ? i0 + 1 : i0, j1 = j0 + 1 < Nd ? j0 + 1 : j0;
#define D(i, j) ((double)down[(size_t)(i) * Nd + (j)])
            double v = ra * (ca * D(i0, j0) + cb * D(i0, j1)) + rb * (ca * D(i1, j0) + cb * D(i1, j1));
#undef D
            up[(size_t)r * W + c] = (unsigned char)v;
        }
    long sum = 0;
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            size_t i = (size_t)x * W + y;
            error[i] = src[i] - up[i];
            int gx = 0, gy = 0;
            static const int sx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}};
            static const int sy[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) {
                    int p = src[(size_t)clampi(x - 1 + a, 0, H - 1) * W + clampi(y - 1 + b, 0, W - 1)];
                    gx += sx[a][b] * p;
                    gy += sy[a][b] * p;
                }
            edge[i] = abs(gx) + abs(gy);
            sum += edge[i];
        }
    int mean = (int)(sum / (H * W));
    for (int x = 0; x < H; x++)
        for (int y = 0; y < W; y++) {
            size_t i = (size_t)x * W + y;
            int gain = edge[i] * strength / (mean + 1);
            if (gain > 4 * strength) gain = 4 * strength;
            int prelim = (short)(up[i] + error[i] + error[i] * gain / 16);
            int lo = 255, hi = 0;
            for (int a = -1; a <= 1; a++)
                for (int b = -1; b <= 1; b++) {
                    int p = src[(size_t)clampi(x + a, 0, H - 1) * W + clampi(y + b, 0, W - 1)];
                    if (p < lo) lo = p;
                    if (p > hi) hi = p;
                }
            lo -= overshoot;
            hi += overshoot;
            int v = prelim < lo ? lo : prelim > hi ? hi : prelim;
            dst[i] = (unsigned char)clampi(v, 0, 255);
        }
    free(down);
    free(up);
    free(error);
    free(edge);
}
