/* features.pc against plain C. */
#include <math.h>
#include <string.h>

#include "lang_check.h"

void features_stats(int H, int W, int *A, double *stats);
void features_point(int H, int W, int *a_data, int *B, int *out, int *half);
void features_vector(int N, float *v, float *r);
void features_matrix(int C, int H, int W, float *img, float *gain, float *A, float *B, float *P, float *Q, float *S);
void features_blocks(int H, int W, int *A, int *D);

static int fail(const char *what, int H, int W)
{
    fprintf(stderr, "%s differs at %dx%d\n", what, H, W);
    return 1;
}

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        int H = check_sizes[s][0], W = check_sizes[s][1];
        size_t n = (size_t)H * W;
        int *A = check_alloc(n * 4), *B = check_alloc(n * 4), *out = check_alloc(n * 4);
        int hh = (H + 1) / 2, hw = (W + 1) / 2;
        int *half = check_alloc((size_t)hh * hw * 4);
        for (size_t i = 0; i < n; i++) {
            A[i] = (int)(check_rand() % 200) - 50;
            B[i] = (int)(check_rand() % 100);
        }
        /* independent operators */
        double st[4];
        features_stats(H, W, A, st);
        long sum = 0;
        int lo = A[0], hi = A[0];
        for (size_t i = 0; i < n; i++) {
            sum += A[i];
            lo = A[i] < lo ? A[i] : lo;
            hi = A[i] > hi ? A[i] : hi;
        }
        if (st[0] != (double)sum || st[1] != lo || st[2] != hi ||
            fabs(st[3] - (double)((float)sum / (float)n)) > 1e-5 * fabs((double)sum / n) + 1e-6)
            return fail("stats", H, W);
        /* point operations, C function, loop, pointer-bound reference, strides */
        features_point(H, W, A, B, out, half);
        for (int x = 0; x < H; x++)
            for (int y = 0; y < W; y++) {
                int v = 3 * A[x * W + y] + B[x * W + y];
                v = v < 0 ? 0 : v > 255 ? 255 : v;
                if (out[x * W + y] != v) return fail("point", H, W);
                if (x % 2 == 0 && y % 2 == 0 && half[(x / 2) * hw + y / 2] != A[x * W + y]) return fail("stride", H, W);
            }
        /* vectors */
        float *v = check_alloc((size_t)W * 4), *r = check_alloc((size_t)W * 4);
        for (int i = 0; i < W; i++) v[i] = (float)(check_rand() % 1000) / 10.0f;
        features_vector(W, v, r);
        for (int i = 0; i < W; i++) {
            float a = v[i - 2 < 0 ? 0 : i - 2], b = v[i], c = v[i + 2 >= W ? W - 1 : i + 2];
            float want = 0.25f * a + 0.5f * b + 0.25f * c;
            if (fabsf(r[i] - want) > 1e-5f * fabsf(want) + 1e-6f) return fail("vector", H, W);
        }
        /* matrices */
        int C = 4;
        float *img = check_alloc(n * C * 4), *gain = check_alloc(n * C * 4);
        float *fa = check_alloc(n * 4), *fb = check_alloc(n * 4), *P = check_alloc(n * 4), *Q = check_alloc(n * 4),
              *S = check_alloc(n * 4);
        for (size_t i = 0; i < n * C; i++) img[i] = (float)(check_rand() % 1000) / 7.0f;
        for (size_t i = 0; i < n; i++) {
            fa[i] = (float)(check_rand() % 100) / 8.0f;
            fb[i] = (float)(check_rand() % 100) / 4.0f;
        }
        features_matrix(C, H, W, img, gain, fa, fb, P, Q, S);
        static const float wt[3] = {0.5f, 1.0f, 2.0f};
        for (int c = 0; c < C; c++)
            for (size_t i = 0; i < n; i++)
                if (gain[c * n + i] != img[c * n + i] * wt[c % 3]) return fail("3-D", H, W);
        for (int x = 0; x + 1 < H - H % 2 + 1 && x < (H / 2) * 2; x++)
            for (int y = 0; y < (W / 2) * 2; y++) {
                size_t i = (size_t)x * W + y;
                if (P[i] != fa[i] * fb[i]) return fail(".*", H, W);
                /* (m * A2 * m^T)(i,j) with A2 the 2x2 block */
                int bx = x / 2 * 2, by = y / 2 * 2, a = x - bx, b = y - by;
                float m[2][2] = {{1, 2}, {3, 4}}, want = 0;
                for (int k = 0; k < 2; k++) {
                    float t = 0;
                    for (int l = 0; l < 2; l++) t += m[a][l] * fa[(size_t)(bx + l) * W + by + k];
                    want += t * m[b][k];
                }
                want -= fb[i];
                if (fabsf(Q[i] - want) > 1e-5f * fabsf(want) + 1e-5f) return fail("product", H, W);
            }
        for (size_t i = 0; i < n; i++) {
            float want = fa[i] * fb[i] + fa[i] * 2.0f - fb[i];
            if (fabsf(S[i] - want) > 1e-5f * fabsf(want) + 1e-6f) return fail("whole-image", H, W);
        }
        /* iter_element */
        int *D = check_alloc((size_t)(H / 2) * (W / 2) * 4 + 4);
        features_blocks(H, W, A, D);
        for (int i = 0; i < H / 2; i++)
            for (int j = 0; j < W / 2; j++) {
                int mx = -1000, mn = 1000;
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++) {
                        int t = A[(size_t)(2 * i + a) * W + 2 * j + b];
                        mx = t > mx ? t : mx;
                        mn = t < mn ? t : mn;
                    }
                if (D[i * (W / 2) + j] != mx - mn) return fail("iter_element", H, W);
            }
        free(A); free(B); free(out); free(half); free(v); free(r); free(img); free(gain);
        free(fa); free(fb); free(P); free(Q); free(S); free(D);
    }
    printf("features: %d sizes match\n", CHECK_NSIZES);
    return 0;
}
