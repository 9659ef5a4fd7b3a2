/* The labelling called from C, without Python around it: calls of
 * parac_label on an 8K (7680 x 4320) u8 image, each with a fresh output, and
 * the minimum and median of their wall-clock times. On CUDA the image is on
 * the device and a call's time is all it costs its caller: its kernels, the
 * gaps between them and the count copied back (parac_label waits for it).
 * Inputs: bench_label.py's spiral (one component winding through the whole
 * image) and noise at 30, 50 or 70 % (rand(), so not the same pixels as
 * NumPy's), or any image file parac reads (bench_label.py's own images saved
 * as .npy, for the same pixels as the peers).
 *
 *     bench_label_c spiral|noise|noise30|noise70|FILE [cpu|cuda] [calls]
 *
 * The CPU's threads follow OMP_NUM_THREADS. Under a profiler, a small
 * `calls` keeps its output short (a warm-up call always comes first). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "parac/parac.h"

enum { W = 7680, H = 4320 };

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

static void noise(parac_image *im, int percent)
{
    srand(1);
    const int below = (int)((double)RAND_MAX * percent / 100.0);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (rand() < below) set(im, x, y);
}

static int fopen_exists(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static int fail(const char *what)
{
    fprintf(stderr, "bench_label_c: %s: %s\n", what, parac_error_message());
    return 1;
}

int main(int argc, char **argv)
{
    const char *input = argc > 1 ? argv[1] : "", *device = argc > 2 ? argv[2] : "cpu";
    const int calls = argc > 3 ? atoi(argv[3]) : 15;
    int percent = 0;
    if (!strcmp(input, "noise") || !strcmp(input, "noise50")) percent = 50;
    else if (!strcmp(input, "noise30")) percent = 30;
    else if (!strcmp(input, "noise70")) percent = 70;
    const int from_file = !percent && strcmp(input, "spiral") && fopen_exists(input);
    if (!percent && !from_file && strcmp(input, "spiral")) input = NULL;
    if (argc < 2 || argc > 4 || !input || (strcmp(device, "cpu") && strcmp(device, "cuda")) || calls < 1) {
        fprintf(stderr, "usage: bench_label_c spiral|noise|noise30|noise70|FILE [cpu|cuda] [calls]\n");
        return 1;
    }
    parac_context *ctx = NULL;
    parac_image *im = NULL, *on_device = NULL;
    if (parac_context_create(&ctx, device) != PARAC_OK) return fail("context");
    if (from_file) {
        if (parac_image_read(input, NULL, &im) != PARAC_OK) return fail(input);
    } else {
        if (parac_image_create_zeroed(&im, W, H, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1) != PARAC_OK) return fail("image");
        if (percent) noise(im, percent);
        else spiral(im);
    }
    const parac_image *in = im;
    if (!strcmp(device, "cuda")) {
        if (parac_image_upload(&on_device, im, parac_context_cuda_device(ctx), NULL) != PARAC_OK) return fail("upload");
        in = on_device;
    }
    labelling l = {ctx, in, 0};
    bench_stats st;
    if (bench_time_cpu(label_once, &l, 1, calls, &st)) return fail("label");
    printf("%s on %s: %lld components, min %.3f ms, median %.3f ms (%d calls)\n", argv[1], device, (long long)l.count,
           st.min_ms, st.median_ms, calls);
    parac_image_destroy(on_device);
    parac_image_destroy(im);
    parac_context_destroy(ctx);
    return 0;
}
