/* windows.pc (windows of run-time length) against plain C, and the run-time
 * check of a length below 1. */
#include <math.h>
#include <string.h>

#include "lang_check.h"

void windows_conv(int H, int W, int r, float *in, float *k, float *out);
void windows_boxes(int H, int W, int a, int b, unsigned char *in, int *sum, float *mean, int *low, int *step);
void windows_wide(int H, int W, int r, int *in, long *sum, float *mean);
int windows_wide_try(int H, int W, int r, int *in, long *sum, float *mean);
const char *windows_wide_error(void);

/* a mean's division: OpenCL allows its float division 2.5 units in the last place */
static int close_to(float got, float want)
{
    return fabsf(got - want) <= 4e-7f * fabsf(want);
}

static int fail(const char *what, int H, int W, int x, int y)
{
    fprintf(stderr, "%s differs at %dx%d, element (%d, %d)\n", what, H, W, x, y);
    return 1;
}

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        const int H = check_sizes[s][0], W = check_sizes[s][1];
        const size_t n = (size_t)H * W;
        /* radii 0..3 and the rectangles' half sizes from the size */
        const int r = s % 4, a = s % 3, b = (s + 1) % 4;
        float *in = check_alloc(n * 4), *out = check_alloc(n * 4), *k = check_alloc((size_t)(2 * r + 1) * 4);
        for (size_t i = 0; i < n; i++) in[i] = (float)(check_rand() % 1000) / 16.0f - 20.0f;
        for (int i = 0; i < 2 * r + 1; i++) k[i] = (float)(check_rand() % 9) / 4.0f - 1.0f;
        for (size_t i = 0; i < n; i++) out[i] = 12345.0f;
        windows_conv(H, W, r, in, k, out);
        for (int x = 0; x < H; x++)
            for (int y = 0; y < W; y++) {
                float want = 12345.0f;
                if (x >= r && x < H - r && y >= r && y < W - r) {
                    float c = k[0] * in[(long)x * W + y - r], m = in[(long)(x - r) * W + y];
                    for (int i = 1; i < 2 * r + 1; i++) {
                        c = c + k[i] * in[(long)x * W + y - r + i];
                        const float v = in[(long)(x - r + i) * W + y];
                        m = v > m ? v : m;
                    }
                    want = c + m;
                }
                const float got = out[(long)x * W + y];
                if (fabsf(got - want) > 1e-5f * (fabsf(want) + 10.0f)) return fail("windows_conv", H, W, x, y);
            }
        unsigned char *u = check_alloc(n);
        int *sum = check_alloc(n * 4), *low = check_alloc(n * 4), *step = check_alloc(n * 4);
        float *mean = check_alloc(n * 4);
        for (size_t i = 0; i < n; i++) u[i] = (unsigned char)(check_rand() % 256);
        windows_boxes(H, W, a, b, u, sum, mean, low, step);
        for (int x = a + 1; x < H - a - 1; x++)
            for (int y = b + 1; y < W - b - 1; y++) {
                int sm = 0, mn = 256, st = 0;
                for (int i = -a; i <= a; i++)
                    for (int j = -b; j <= b; j++) sm += u[(long)(x + i) * W + y + j];
                for (int i = -1; i <= 1; i++)
                    for (int j = -b; j <= b; j++) mn = u[(long)(x + i) * W + y + j] < mn ? u[(long)(x + i) * W + y + j] : mn;
                for (int j = 0; j < b + 1; j++) st += u[(long)x * W + y - b + 2 * j];
                const long at = (long)x * W + y;
                const float mw = (float)sm / (float)((2 * a + 1) * (2 * b + 1));
                if (sum[at] != sm) return fail("windows_boxes (sum)", H, W, x, y);
                if (!close_to(mean[at], mw)) return fail("windows_boxes (mean)", H, W, x, y);
                if (low[at] != (sm > 1000 ? mn : -1)) return fail("windows_boxes (min)", H, W, x, y);
                if (step[at] != st) return fail("windows_boxes (stride 2)", H, W, x, y);
            }
        int *wi = check_alloc(n * 4);
        long *wsum = check_alloc(n * 8);
        for (size_t i = 0; i < n; i++) wi[i] = (int)(check_rand() % 2000000001u) - 1000000000;
        if (W > 2 * r) {
            windows_wide(H, W, r, wi, wsum, mean);
            for (int x = 0; x < H; x++)
                for (int y = r; y < W - r; y++) {
                    long long sm = 0;
                    for (int j = -r; j <= r; j++) sm += wi[(long)x * W + y + j];
                    const long at = (long)x * W + y;
                    if (wsum[at] != (long)sm) return fail("windows_wide (sum)", H, W, x, y);
                    if (!close_to(mean[at], (float)sm / (float)(2 * r + 1))) return fail("windows_wide (mean)", H, W, x, y);
                }
        }
        free(in);
        free(out);
        free(k);
        free(u);
        free(sum);
        free(low);
        free(step);
        free(mean);
        free(wi);
        free(wsum);
    }
    /* a length below 1: an error, and nothing computed */
    int in[64] = {0};
    long sum[64];
    float mean[64];
    if (windows_wide_try(8, 8, -1, in, sum, mean) == 0 || !strstr(windows_wide_error(), "run-time length -1")) {
        fprintf(stderr, "a window of length -1 was not refused: %s\n", windows_wide_error());
        return 1;
    }
    printf("windows: ok\n");
    return 0;
}
