/* laplacian.pc against laplacian_ref.c on random 8-bit images. */
#include "lang_check.h"

int laplacian_level(int M, int N, unsigned char *Src, short *layer, unsigned char *down);
int laplacian_level_ref(int M, int N, const unsigned char *Src, short *layer, unsigned char *down);

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        int H = check_sizes[s][0], W = check_sizes[s][1];
        int hh = (H + 1) / 2, hw = (W + 1) / 2;
        size_t n = (size_t)H * W;
        unsigned char *in = check_alloc(n), *dg = check_alloc((size_t)hh * hw), *dw = check_alloc((size_t)hh * hw);
        short *got = check_alloc(n * 2), *want = check_alloc(n * 2);
        for (size_t i = 0; i < n; i++) in[i] = (unsigned char)check_rand();
        if (laplacian_level(H, W, in, got, dg) != 0) return 1;
        if (check_transfers("laplacian", 2, 2)) return 1;
        laplacian_level_ref(H, W, in, want, dw);
        CHECK_EXACT("laplacian down", dg, dw, hh, hw);
        CHECK_EXACT("laplacian layer", got, want, H, W);
        free(in);
        free(dg);
        free(dw);
        free(got);
        free(want);
    }
    printf("laplacian: %d sizes match\n", CHECK_NSIZES);
    return 0;
}
