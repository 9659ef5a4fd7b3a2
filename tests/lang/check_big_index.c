/* big_index.pc on a 32769 x 65536 u8 image (2^31 + 2^16 elements): the
 * pixels past element 2^31 must be right. Needs about 9 GB of host and device
 * memory together, so it runs only with PARAC_TEST_BIG=1 (exit 77: skipped). */
#include "lang_check.h"

void big_index(int H, int W, unsigned char *in, unsigned char *out);

int main(void)
{
    const char *big = getenv("PARAC_TEST_BIG");
    if (!big || strcmp(big, "1")) {
        printf("big_index: set PARAC_TEST_BIG=1 to run (needs about 9 GB)\n");
        return 77;
    }
    check_need_device();
    const int H = 32769, W = 65536;
    const size_t n = (size_t)H * W;
    unsigned char *in = calloc(n, 1), *out = malloc(n);
    if (!in || !out) {
        printf("big_index: not enough host memory\n");
        return 77;
    }
    /* marks on the last row, beyond element 2^31 */
    const size_t last = (size_t)(H - 1) * W;
    in[last + 5] = 7;
    in[last + W - 1] = 9;
    in[100] = 3;
    big_index(H, W, in, out);
    int bad = 0;
    bad |= out[last + 4] != 7 || out[last + 5] != 7 || out[last + 6] != 7 || out[last + 7] != 0;
    bad |= out[last + W - 2] != 9 || out[last + W - 1] != 9 || out[last + W - 3] != 0;
    bad |= out[99] != 3 || out[101] != 3 || out[102] != 0 || out[(size_t)1 << 31] != 0;
    free(in);
    free(out);
    if (bad) {
        fprintf(stderr, "big_index: wrong pixels past element 2^31\n");
        return 1;
    }
    printf("big_index: %zu elements, the last row is right\n", n);
    return 0;
}
