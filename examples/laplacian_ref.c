/* Reference for laplacian.pc: the same level in plain C, border values
 * computed by the same extrapolation formulas. */
#include <stdlib.h>

/* pixel at column y of a row of n, with the two-pixel extrapolation of figure 7 */
static int ext(const unsigned char *row, long step, int i, int n)
{
#define P(k) ((int)row[(long)(k) * step])
    if (i == -2) return P(3) * 4 - P(1) * 4 + P(0) * 2 - P(2);
    if (i == -1) return P(1) * 2 - P(3);
    if (i == n) return P(n - 2) * 2 - P(n - 4);
    if (i == n + 1) return P(n - 4) * 4 - P(n - 2) * 4 + P(n - 1) * 2 - P(n - 3);
    return P(i);
#undef P
}

int laplacian_level_ref(int M, int N, const unsigned char *Src, short *layer, unsigned char *down)
{
    static const int f[5] = {1, 4, 6, 4, 1};
    unsigned char *h = malloc((size_t)M * N);
    for (int x = 0; x < M; x++)
        for (int y = 0; y < N; y++) {
            int s = 0;
            for (int k = 0; k < 5; k++) s += f[k] * ext(Src + (long)x * N, 1, y - 2 + k, N);
            h[(long)x * N + y] = (unsigned char)((s + 8) / 16);
        }
    int hh = (M + 1) / 2, hw = (N + 1) / 2;
    for (int i = 0; i < hh; i++)
        for (int j = 0; j < hw; j++) {
            int s = 0;
            for (int k = 0; k < 5; k++) s += f[k] * ext(h + 2 * j, N, 2 * i - 2 + k, M);
            down[(long)i * hw + j] = (unsigned char)((s + 8) / 16);
        }
    for (int x = 0; x < M; x++)
        for (int y = 0; y < N; y++) {
            int i = x / 2, j = y / 2;
            int i1 = i + 1 < hh ? i + 1 : i, j1 = j + 1 < hw ? j + 1 : j;
            int d = down[(long)i * hw + j], r = down[(long)i * hw + j1], b = down[(long)i1 * hw + j],
                g = down[(long)i1 * hw + j1];
            int up;
            if (x % 2 == 0 && y % 2 == 0) up = d;
            else if (x % 2 == 0) up = (d + r + 1) / 2;
            else if (y % 2 == 0) up = (d + b + 1) / 2;
            else up = (d + r + b + g + 2) / 4;
            layer[(long)x * N + y] = (short)(Src[(long)x * N + y] - up);
        }
    free(h);
    return 0;
}
