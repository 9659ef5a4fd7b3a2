/* The CPU labelling called from C, without Python around it: 15 calls of
 * parac_label on an 8K (7680 x 4320) image, each with a fresh output, and the
 * minimum and median. The images are bench_label.py's spiral (one component
 * winding through the whole image) and noise at 50 % (rand(), so not the
 * same pixels as NumPy's). The threads follow OMP_NUM_THREADS.
 *
 *     bench_label_cpu spiral|noise
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "parac/parac.h"

enum { W = 7680, H = 4320, CALLS = 15 };

typedef struct labelling {
    parac_context *ctx;
    const parac_image *in;
    int64_t count;
} labelling;

/* One call, its output freed: every call gets a fresh one. */
static int label_once(void *user, int iteration)
{
    (void)iteration;
    labelling *l = user;
    parac_image *out = NULL;
    if (parac_label(l->ctx, l->in, &out, &l->count, NULL) != PARAC_OK) return -1;
    parac_image_destroy(out);
    return 0;
}

static void set(parac_image *im, int x, int y) { ((uint8_t *)im->data)[(size_t)y * (size_t)im->row_pitch + (size_t)x] = 1; }

/* Square rings two pixels apart, each joined to the next inside it. */
static void spiral(parac_image *im)
{
    for (int k = 0; k < H / 2; k += 2) {
        const int t = k, b = H - 1 - k, l = k, r = W - 1 - k;
        if (b - t < 4 || r - l < 4) break;
        for (int x = l; x <= r; x++) set(im, x, t), set(im, x, b);
        for (int y = t; y <= b; y++) set(im, r, y);
        for (int y = t + 2; y <= b; y++) set(im, l, y);
        for (int x = l; x < l + 3; x++) set(im, x, t + 2);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "spiral") && strcmp(argv[1], "noise"))) {
        fprintf(stderr, "usage: bench_label_cpu spiral|noise\n");
        return 1;
    }
    parac_context *ctx = NULL;
    parac_image *im = NULL;
    if (parac_context_create(&ctx, "cpu") != PARAC_OK ||
        parac_image_create(&im, W, H, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1) != PARAC_OK) {
        fprintf(stderr, "bench_label_cpu: %s\n", parac_error_message());
        return 1;
    }
    memset(im->data, 0, (size_t)im->row_pitch * H);
    if (!strcmp(argv[1], "spiral")) {
        spiral(im);
    } else {
        srand(1);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                if (rand() < RAND_MAX / 2) set(im, x, y);
    }
    labelling l = {ctx, im, 0};
    bench_stats st;
    if (bench_time_cpu(label_once, &l, 0, CALLS, &st)) {
        fprintf(stderr, "bench_label_cpu: %s\n", parac_error_message());
        return 1;
    }
    printf("%s: %lld components, min %.1f ms, median %.1f ms\n", argv[1], (long long)l.count, st.min_ms,
           st.median_ms);
    parac_image_destroy(im);
    parac_context_destroy(ctx);
    return 0;
}
