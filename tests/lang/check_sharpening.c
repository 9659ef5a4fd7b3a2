/* sharpening.pc against sharpening_ref.c on random 8-bit images (sizes >= 8). */
#include "lang_check.h"

void sharpening(int H, int W, int strength, int overshoot, unsigned char *src, unsigned char *dst);
void sharpening_ref(int H, int W, int strength, int overshoot, const unsigned char *src, unsigned char *dst);

int main(void)
{
    static const int sizes[][2] = {{8, 8}, {13, 22}, {21, 9}, {36, 52}, {50, 45}};
    check_need_device();
    for (int s = 0; s < 5; s++) {
        int H = sizes[s][0], W = sizes[s][1];
        size_t n = (size_t)H * W;
        unsigned char *in = check_alloc(n), *got = check_alloc(n), *want = check_alloc(n);
        /* a smooth ramp plus noise, so edges and flat areas both occur */
        for (size_t i = 0; i < n; i++) in[i] = (unsigned char)((i % W) * 3 + check_rand() % 64);
        int strength = 3 + s, overshoot = 2 * s;
        sharpening(H, W, strength, overshoot, in, got);
        if (check_transfers("sharpening", 1, 1)) return 1;
        sharpening_ref(H, W, strength, overshoot, in, want);
        CHECK_EXACT("sharpening", got, want, H, W);
        free(in);
        free(got);
        free(want);
    }
    printf("sharpening: 5 sizes match\n");
    return 0;
}
