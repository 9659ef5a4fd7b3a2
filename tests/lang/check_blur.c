/* blur.pc against blur_ref.c on random 16-bit images. */
#include "lang_check.h"

void blur(int H, int W, uint16_t *in, uint16_t *out);
void blur_ref(int H, int W, const uint16_t *in, uint16_t *out);

int main(void)
{
    check_need_device();
    for (int s = 0; s < CHECK_NSIZES; s++) {
        int H = check_sizes[s][0], W = check_sizes[s][1];
        size_t n = (size_t)H * W;
        uint16_t *in = check_alloc(n * 2), *got = check_alloc(n * 2), *want = check_alloc(n * 2);
        for (size_t i = 0; i < n; i++) in[i] = (uint16_t)check_rand();
        blur(H, W, in, got);
        if (check_transfers("blur", 1, 1)) return 1;
        blur_ref(H, W, in, want);
        CHECK_EXACT("blur", got, want, H, W);
        free(in);
        free(got);
        free(want);
    }
    printf("blur: %d sizes match\n", CHECK_NSIZES);
    return 0;
}
