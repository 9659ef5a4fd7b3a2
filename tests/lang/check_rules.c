/* rules.pc (several border rules on one iterator) against plain C: each
 * read outside a matrix takes the value its rule gives there. */
#include <math.h>

#include "lang_check.h"

void rules_two(int H, int W, int *A, int *B, int *out);
void rules_merged(int H, int W, float *A, float *out, float *conv);
void rules_sizes(int H, int W, int *A, int *S, int *out);
void rules_channels(int C, int H, int W, float *img, float *out, float *green);
void rules_volume(int D, int H, int W, int *vol, int *out, int *across, int *pairs);
void rules_radius(int H, int W, int r, float *in, float *k, float *out, float *out2);
void rules_planes_any(int D, int H, int W, int r, int *vol, int *out);

/* rules_radius's in outside: the columns mirrored at every distance but the
 * first before (-3), the rows repeated (plus the distance above) */
static float radius_col(const float *in, int W, int x, int y)
{
    if (y == -1) return -3.0f;
    if (y < 0) return in[(long)x * W - y];
    if (y >= W) return in[(long)x * W + W - 1 - (y - (W - 1))];
    return in[(long)x * W + y];
}

/* rules_planes_any's vol outside its planes */
static long plane_at(const int *vol, int D, int H, int W, int p, int y, int z)
{
    if (p < 0) return (long)vol[(long)y * W + z] * 10;
    if (p >= D) return -(long)(p - (D - 1));
    return vol[((long)p * H + y) * W + z];
}

static float radius_row(const float *in, int H, int W, int x, int y)
{
    if (x < 0) return in[y] + (float)-x;
    if (x >= H) return in[(long)(H - 1) * W + y];
    return in[(long)x * W + y];
}

static int fail(const char *what, int H, int W, int x, int y)
{
    fprintf(stderr, "%s differs at %dx%d, element (%d, %d)\n", what, H, W, x, y);
    return 1;
}

/* a 3-D result differs: in plane x of D planes, at (y, z) */
static int fail_plane(const char *what, int x, int D, int H, int W, int y, int z)
{
    fprintf(stderr, "plane %d of %d: ", x, D);
    return fail(what, H, W, y, z);
}

static int clampi(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

/* B mirrored on its columns (B[*][-k] = B[*][k], B[*][W-1+k] = B[*][W-1-k]) */
static int mirror(int y, int W) { return y < 0 ? -y : y >= W ? 2 * (W - 1) - y : y; }

/* rules_merged's A outside: rows, columns and corners as rules.pc gives them */
static float merged_a(const float *A, int H, int W, int x, int y)
{
    if (x >= 0 && x < H && y >= 0 && y < W) return A[(long)x * W + y];
    if (x < 0 && y < 0) return 10.0f;
    if (x < 0 && y >= W) return 20.0f;
    if (x >= H && y < 0) return 30.0f;
    if (x >= H && y >= W) return 40.0f;
    if (x < 0) return A[1L * W + y];                       /* A[-1][*] = A[1][*] */
    if (x >= H) return A[(long)(H - 2) * W + y] * 0.5f;    /* A[+1][*] = A[H-2][*] * 0.5 */
    if (y == -2) return -1.0f;
    if (y == -1) return A[(long)x * W] + 1.0f;
    if (y == W) return 3.0f;
    return A[(long)x * W + W - 1] * 2.0f;                  /* A[*][+2] */
}

/* rules_channels' img outside a plane */
static float channel_at(const float *img, int H, int W, int c, int x, int y)
{
    const float *p = img + (long)c * H * W;
    if (x < 0) return y < 0 || y >= W ? -5.0f : 0.0f;
    if (x >= H) return y < 0 || y >= W ? 7.0f : p[(long)(H - 1) * W + y] * 0.25f;
    return p[(long)x * W + clampi(y, W)];
}

/* rules_volume's vol outside it (faces, the edges it names, one vertex) */
static int volume_at(const int *vol, int D, int H, int W, int x, int y, int z)
{
    const int ox = x < 0 ? -1 : x >= D, oy = y < 0 ? -1 : y >= H, oz = z < 0 ? -1 : z >= W;
#define V(a, b, c) vol[((long)(a) * H + (b)) * W + (c)]
    if (ox == 1 && oy == 1 && oz == 1) return 1000;
    if (ox == -1 && oy == -1 && !oz) return V(0, 0, z) * 2;
    if (ox == -1 && oy == 1 && !oz) return V(0, H - 1, z) * 3;
    if (ox == 1 && oy && !oz) return -1;
    if (!ox && oy == 1 && oz == 1) return V(x, H - 1, W - 1) - 7;
    if (ox == 1 && !oy && oz == 1) return 55;
    if (ox == -1) return V(0, y, z);
    if (ox == 1) return 0;
    if (oy == -1) return V(x, 1, z);
    if (oy == 1) return V(x, H - 2, z);
    if (oz == -1) return 100;
    if (oz == 1) return V(x, y, W - 1) + 1;
    return V(x, y, z);
#undef V
}

int main(void)
{
    check_need_device();
    static const float k[3][5] = {{1, 2, 3, 2, 1}, {0.5f, 1, 4, 1, 0.5f}, {1, 2, 3, 2, 1}};
    for (int s = 0; s < CHECK_NSIZES; s++) {
        const int H = check_sizes[s][0], W = check_sizes[s][1];
        const size_t n = (size_t)H * W;
        int *A = check_alloc(n * 4), *B = check_alloc(n * 4), *out = check_alloc(n * 4);
        for (size_t i = 0; i < n; i++) {
            A[i] = (int)(check_rand() % 2000) - 1000;
            B[i] = (int)(check_rand() % 1000);
        }
        /* two matrices, a rule each (B's mirror needs W >= 3) */
        if (W >= 3) {
            rules_two(H, W, A, B, out);
            for (int x = 0; x < H; x++)
                for (int y = 0; y < W; y++) {
                    long want = 0;
                    for (int i = -1; i <= 1; i++)
                        for (int j = -1; j <= 1; j++) want += A[(long)clampi(x + i, H) * W + clampi(y + j, W)];
                    for (int j = -2; j <= 2; j++) want += B[(long)x * W + mirror(y + j, W)];
                    if (out[(long)x * W + y] != want) return fail("rules_two", H, W, x, y);
                }
        }
        /* one matrix, three rules named together; a whole-image convolution too */
        if (H >= 2) {
            float *fa = check_alloc(n * 4), *fo = check_alloc(n * 4), *fc = check_alloc(n * 4);
            for (size_t i = 0; i < n; i++) fa[i] = (float)(check_rand() % 1000) / 8.0f - 60.0f;
            rules_merged(H, W, fa, fo, fc);
            for (int x = 0; x < H; x++)
                for (int y = 0; y < W; y++) {
                    float mx = -INFINITY, sum = 0.0f;
                    for (int i = -1; i <= 1; i++)
                        for (int j = -2; j <= 2; j++) {
                            const float v = merged_a(fa, H, W, x + i, y + j);
                            mx = v > mx ? v : mx;
                        }
                    if (fo[(long)x * W + y] != mx - fa[(long)x * W + y]) return fail("rules_merged", H, W, x, y);
                    for (int i = -1; i <= 1; i++)
                        for (int j = -2; j <= 2; j++) sum += k[i + 1][j + 2] * merged_a(fa, H, W, x + i, y + j);
                    const float got = fc[(long)x * W + y];
                    if (fabsf(got - sum) > 1e-5f * (fabsf(sum) + 100.0f)) return fail("rules_merged (convolution)", H, W, x, y);
                }
            free(fa);
            free(fo);
            free(fc);
        }
        /* a half-size matrix and a full-size one read at twice the index */
        {
            int *big = check_alloc(4 * n * 4), *small = check_alloc(n * 4);
            for (size_t i = 0; i < 4 * n; i++) big[i] = (int)(check_rand() % 50);
            for (size_t i = 0; i < n; i++) small[i] = (int)(check_rand() % 9) - 4;
            rules_sizes(H, W, big, small, out);
            for (int x = 0; x < H; x++)
                for (int y = 0; y < W; y++) {
                    long sm = 0, bg = 0;
                    for (int i = -1; i <= 1; i++)
                        for (int j = -1; j <= 1; j++)
                            if (x + i >= 0 && x + i < H && y + j >= 0 && y + j < W) sm += small[(long)(x + i) * W + y + j];
                    for (int i = -1; i <= 2; i++)
                        for (int j = -1; j <= 2; j++)
                            bg += big[(long)clampi(2 * x + i, 2 * H) * 2 * W + clampi(2 * y + j, 2 * W)];
                    if (out[(long)x * W + y] != sm * 100 + bg) return fail("rules_sizes", H, W, x, y);
                }
            free(big);
            free(small);
        }
        /* 3-D rules: channels (3-D and 2-D iterators), a volume of H planes */
        {
            const int C = 3;
            float *img = check_alloc(C * n * 4), *fo = check_alloc(C * n * 4), *green = check_alloc(n * 4);
            for (size_t i = 0; i < C * n; i++) img[i] = (float)(check_rand() % 512) / 4.0f;
            rules_channels(C, H, W, img, fo, green);
            for (int c = 0; c < C; c++)
                for (int x = 0; x < H; x++)
                    for (int y = 0; y < W; y++) {
                        float want = 0.0f;
                        for (int i = -1; i <= 1; i++)
                            for (int j = -2; j <= 2; j++) want += channel_at(img, H, W, c, x + i, y + j);
                        const float got = fo[((long)c * H + x) * W + y];
                        if (fabsf(got - want) > 1e-5f * (fabsf(want) + 10.0f)) return fail("rules_channels", H, W, x, y);
                    }
            for (int x = 0; x < H; x++)
                for (int y = 0; y < W; y++) {
                    float want = -INFINITY;
                    for (int j = -2; j <= 2; j++) {
                        const float v = channel_at(img, H, W, 1, x, y + j);
                        want = v > want ? v : want;
                    }
                    if (green[(long)x * W + y] != want) return fail("rules_channels (2-D)", H, W, x, y);
                }
            free(img);
            free(fo);
            free(green);
            /* the volume's mirrors read rows 1 and H - 2: two rows at least */
            const int D = 1 + s % 4;
            int *vol = check_alloc((size_t)D * n * 4), *vo = check_alloc((size_t)D * n * 4);
            int *across = check_alloc((size_t)D * n * 4), *pairs = check_alloc((size_t)D * n * 4);
            for (size_t i = 0; i < (size_t)D * n; i++) pairs[i] = -12345; /* an odd D's last plane stays */
            for (size_t i = 0; i < (size_t)D * n; i++) vol[i] = (int)(check_rand() % 200) - 100;
            if (H >= 2) {
                rules_volume(D, H, W, vol, vo, across, pairs);
                static const int w[12] = {1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31};
                static const int o[12][3] = {{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1},
                                             {-1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {1, -1, 0}, {0, 1, 1}, {1, 1, 1}};
                for (int x = 0; x < D; x++)
                    for (int y = 0; y < H; y++)
                        for (int z = 0; z < W; z++) {
                            long want = 0;
                            for (int t = 0; t < 12; t++)
                                want += (long)w[t] * volume_at(vol, D, H, W, x + o[t][0], y + o[t][1], z + o[t][2]);
                            const long at = ((long)x * H + y) * W + z;
                            if (vo[at] != want) return fail_plane("rules_volume", x, D, H, W, y, z);
                            long conv = 0;
                            int mx = -(1 << 30);
                            for (int i = -1; i <= 1; i++) {
                                conv += (i == -1 ? 1 : i == 0 ? -2 : 4) * volume_at(vol, D, H, W, x + i, y, z);
                                for (int j = -1; j <= 1; j++) {
                                    const int v = volume_at(vol, D, H, W, x + i, y + j, z);
                                    mx = v > mx ? v : mx;
                                }
                            }
                            if (across[at] != conv * 1000 + mx)
                                return fail_plane("rules_volume (windows across planes)", x, D, H, W, y, z);
                            const int pw = x < D / 2 * 2 ? vol[at] * 3 : -12345;
                            if (pairs[at] != pw)
                                return fail_plane("rules_volume (a window written across planes)", x, D, H, W, y, z);
                        }
            }
            free(vol);
            free(vo);
            free(across);
            free(pairs);
        }
        /* rules at every distance, under windows of run-time and constant length */
        {
            const int r = s % 4;
            float *fi = check_alloc(n * 4), *o1 = check_alloc(n * 4), *o2 = check_alloc(n * 4);
            float *kv = check_alloc((size_t)(2 * r + 1) * 4);
            for (size_t i = 0; i < n; i++) fi[i] = (float)(check_rand() % 800) / 8.0f - 50.0f;
            for (int i = 0; i < 2 * r + 1; i++) kv[i] = (float)(check_rand() % 7) / 2.0f - 1.5f;
            if (W > r + 1) {
                rules_radius(H, W, r, fi, kv, o1, o2);
                for (int x = 0; x < H; x++)
                    for (int y = 0; y < W; y++) {
                        float c = kv[0] * radius_col(fi, W, x, y - r), m = radius_row(fi, H, W, x - r, y), sm = 0.0f;
                        for (int i = 1; i < 2 * r + 1; i++) {
                            c = c + kv[i] * radius_col(fi, W, x, y - r + i);
                            const float v = radius_row(fi, H, W, x - r + i, y);
                            m = v > m ? v : m;
                        }
                        for (int i = -2; i <= 2; i++) sm += radius_row(fi, H, W, x + i, y);
                        const long at = (long)x * W + y;
                        if (fabsf(o1[at] - c) > 1e-5f * (fabsf(c) + 100.0f)) return fail("rules_radius (columns)", H, W, x, y);
                        if (fabsf(o2[at] - (m + sm)) > 1e-5f * (fabsf(m + sm) + 100.0f))
                            return fail("rules_radius (rows)", H, W, x, y);
                    }
            }
            const int D = 1 + s % 3;
            int *vol = check_alloc((size_t)D * n * 4), *vo = check_alloc((size_t)D * n * 4);
            for (size_t i = 0; i < (size_t)D * n; i++) vol[i] = (int)(check_rand() % 100) - 50;
            rules_planes_any(D, H, W, r, vol, vo);
            for (int x = 0; x < D; x++)
                for (int y = 0; y < H; y++)
                    for (int z = 0; z < W; z++) {
                        long want = plane_at(vol, D, H, W, x + 3, y, z);
                        for (int i = -r; i <= r; i++) want += plane_at(vol, D, H, W, x + i, y, z);
                        if (vo[((long)x * H + y) * W + z] != want)
                            return fail_plane("rules_planes_any", x, D, H, W, y, z);
                    }
            free(fi);
            free(o1);
            free(o2);
            free(kv);
            free(vol);
            free(vo);
        }
        free(A);
        free(B);
        free(out);
    }
    printf("rules: ok\n");
    return 0;
}
