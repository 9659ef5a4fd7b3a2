/* gaussian.pc against gaussian_ref.c on random float images. */
#include "lang_check.h"

void gaussian(int H, int W, float *in, float *out);
void gaussian_ref(int H, int W, const float *in, float *out);

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        int H = check_sizes[s][0], W = check_sizes[s][1];
        size_t n = (size_t)H * W;
        float *in = check_alloc(n * 4), *got = check_alloc(n * 4), *want = check_alloc(n * 4);
        for (size_t i = 0; i < n; i++) in[i] = (float)(check_rand() % 100000) / 1000.0f - 20.0f;
        gaussian(H, W, in, got);
        if (check_transfers("gaussian", 1, 1)) return 1;
        gaussian_ref(H, W, in, want);
        if (check_close("gaussian", got, want, (long)n, H, W, 1e-5)) return 1;
        free(in);
        free(got);
        free(want);
    }
    printf("gaussian: %d sizes match\n", CHECK_NSIZES);
    return 0;
}
