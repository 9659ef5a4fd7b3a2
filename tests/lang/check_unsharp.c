/* unsharp.pc against unsharp_ref.c on random RGB float images in (0.05, 1]. */
#include "lang_check.h"

void unsharp(int H, int W, float *in, float *out);
void unsharp_ref(int H, int W, const float *in, float *out);

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        int H = check_sizes[s][0], W = check_sizes[s][1];
        size_t n = (size_t)H * W * 3;
        float *in = check_alloc(n * 4), *got = check_alloc(n * 4), *want = check_alloc(n * 4);
        for (size_t i = 0; i < n; i++) in[i] = 0.05f + (float)(check_rand() % 95000) / 100000.0f;
        unsharp(H, W, in, got);
        if (check_transfers("unsharp", 1, 1)) return 1;
        unsharp_ref(H, W, in, want);
        if (check_close("unsharp", got, want, (long)n, H, W, 1e-5)) return 1;
        free(in);
        free(got);
        free(want);
    }
    printf("unsharp: %d sizes match\n", CHECK_NSIZES);
    return 0;
}
