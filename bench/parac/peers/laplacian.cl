/* laplacian.pc by hand in OpenCL C: one Laplacian pyramid level in two
 * kernels. laplacian_down computes each half-size pixel directly from the
 * source (the five row-filtered values it needs, recomputed);
 * laplacian_layer writes the 2x2 layer pixels of each half-size pixel. */

/* Pixel i of a line of n (step apart), extrapolated two pixels past either end. */
inline int ext(__global const uchar *line, long step, int i, int n)
{
#define P(k) ((int)line[(long)(k) * step])
    if (i >= 0 && i < n) return P(i);
    if (i == -2) return P(3) * 4 - P(1) * 4 + P(0) * 2 - P(2);
    if (i == -1) return P(1) * 2 - P(3);
    if (i == n) return P(n - 2) * 2 - P(n - 4);
    return P(n - 4) * 4 - P(n - 2) * 4 + P(n - 1) * 2 - P(n - 3);
#undef P
}

/* The row-filtered value at (r, c), rounded into a byte. */
inline int hval(__global const uchar *src, int N, int r, int c)
{
    __global const uchar *row = src + (long)r * N;
    const int s = ext(row, 1, c - 2, N) + 4 * ext(row, 1, c - 1, N) + 6 * ext(row, 1, c, N) +
                  4 * ext(row, 1, c + 1, N) + ext(row, 1, c + 2, N);
    return (uchar)((s + 8) / 16);
}

/* The same at a row past either end: the extrapolation of the filtered rows. */
int hrow(__global const uchar *src, int M, int N, int r, int c)
{
    if (r >= 0 && r < M) return hval(src, N, r, c);
    if (r == -2) return hval(src, N, 3, c) * 4 - hval(src, N, 1, c) * 4 + hval(src, N, 0, c) * 2 - hval(src, N, 2, c);
    if (r == -1) return hval(src, N, 1, c) * 2 - hval(src, N, 3, c);
    if (r == M) return hval(src, N, M - 2, c) * 2 - hval(src, N, M - 4, c);
    return hval(src, N, M - 4, c) * 4 - hval(src, N, M - 2, c) * 4 + hval(src, N, M - 1, c) * 2 -
           hval(src, N, M - 3, c);
}

__kernel void laplacian_down(int M, int N, __global const uchar *restrict src, __global uchar *restrict down)
{
    const int hh = (M + 1) / 2, hw = (N + 1) / 2, j = get_global_id(0), i = get_global_id(1);
    if (i >= hh || j >= hw) return;
    const int c = 2 * j, r = 2 * i;
    const int s = hrow(src, M, N, r - 2, c) + 4 * hrow(src, M, N, r - 1, c) + 6 * hrow(src, M, N, r, c) +
                  4 * hrow(src, M, N, r + 1, c) + hrow(src, M, N, r + 2, c);
    down[(long)i * hw + j] = (uchar)((s + 8) / 16);
}

__kernel void laplacian_layer(int M, int N, __global const uchar *restrict src, __global const uchar *restrict down,
                              __global short *restrict layer)
{
    const int hh = (M + 1) / 2, hw = (N + 1) / 2, j = get_global_id(0), i = get_global_id(1);
    if (i >= hh || j >= hw) return;
    const int i1 = i + 1 < hh ? i + 1 : i, j1 = j + 1 < hw ? j + 1 : j;
    const int d = down[(long)i * hw + j], rt = down[(long)i * hw + j1];
    const int b = down[(long)i1 * hw + j], g = down[(long)i1 * hw + j1];
    const int x = 2 * i, y = 2 * j;
    const long p = (long)x * N + y;
    const bool right = y + 1 < N, below = x + 1 < M;
    layer[p] = (short)(src[p] - d);
    if (right) layer[p + 1] = (short)(src[p + 1] - (d + rt + 1) / 2);
    if (below) layer[p + N] = (short)(src[p + N] - (d + b + 1) / 2);
    if (right && below) layer[p + N + 1] = (short)(src[p + N + 1] - (d + rt + b + g + 2) / 4);
}
