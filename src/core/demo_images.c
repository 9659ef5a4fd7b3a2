/* Synthetic inputs for `parac demo` (see demo_images.h). */
#include <math.h>

#include "core/demo_images.h"
#include "core/error_internal.h"

/* A well-mixed 32-bit hash of a lattice point (the finaliser of MurmurHash3). */
static uint32_t hash3(int64_t x, int64_t y, uint32_t seed)
{
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ seed * 0xcb1ab31fu;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

static double lattice(int64_t x, int64_t y, uint32_t seed)
{
    return hash3(x, y, seed) / 4294967295.0;
}

/* Value noise: lattice values blended with a smoothstep, so no seams show. */
static double value_noise(double x, double y, uint32_t seed)
{
    const double fx = floor(x), fy = floor(y);
    const int64_t ix = (int64_t)fx, iy = (int64_t)fy;
    double tx = x - fx, ty = y - fy;
    tx = tx * tx * (3 - 2 * tx);
    ty = ty * ty * (3 - 2 * ty);
    const double a = lattice(ix, iy, seed), b = lattice(ix + 1, iy, seed);
    const double c = lattice(ix, iy + 1, seed), d = lattice(ix + 1, iy + 1, seed);
    return (a + (b - a) * tx) + ((c + (d - c) * tx) - (a + (b - a) * tx)) * ty;
}

double parac__demo_noise(double x, double y, double scale, uint32_t seed)
{
    double sum = 0, weight = 1, norm = 0, f = 1 / scale;
    for (int octave = 0; octave < 4; octave++) {
        sum += weight * value_noise(x * f, y * f, seed + (uint32_t)octave * 7919u);
        norm += weight;
        weight *= 0.5;
        f *= 2;
    }
    return sum / norm;
}

static uint8_t clamp_u8(double v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
}

static parac_status new_u8(parac_image **out, int64_t width, int64_t height)
{
    return parac_image_create_zeroed(out, width, height, 1, 1, PARAC_U8, PARAC_MEMORY_HOST, -1);
}

static void put(parac_image *im, int64_t x, int64_t y, double v)
{
    *(uint8_t *)parac_image_at(im, x, y, 0) = clamp_u8(v);
}

parac_status parac__demo_terrain(parac_image **out, int64_t width, int64_t height, double scale, int lo,
                                 int hi, uint32_t seed)
{
    PARAC_TRY(new_u8(out, width, height));
    for (int64_t y = 0; y < height; y++)
        for (int64_t x = 0; x < width; x++) {
            /* stretch the middle of noise's range, where most values lie */
            double n = (parac__demo_noise((double)x, (double)y, scale, seed) - 0.2) / 0.6;
            n = n < 0 ? 0 : n > 1 ? 1 : n;
            put(*out, x, y, lo + (hi - lo) * n);
        }
    return PARAC_OK;
}

/* Cells on a jittered grid, so that they neither overlap nor line up. */
enum { CELL_PITCH = 64 };

typedef struct cell {
    double cx, cy, radius, rim;
} cell;

static int cell_at(int64_t gx, int64_t gy, uint32_t seed, cell *c)
{
    if (lattice(gx, gy, seed ^ 0x51u) < 0.18) return 0; /* some grid places stay empty */
    c->radius = 15 + 12 * lattice(gx, gy, seed ^ 0x52u);
    const double room = CELL_PITCH / 2.0 - c->radius - 3;
    c->cx = (gx + 0.5) * CELL_PITCH + room * (2 * lattice(gx, gy, seed ^ 0x53u) - 1);
    c->cy = (gy + 0.5) * CELL_PITCH + room * (2 * lattice(gx, gy, seed ^ 0x54u) - 1);
    c->rim = 4 + 2 * lattice(gx, gy, seed ^ 0x55u);
    return 1;
}

/* The distance from (x, y) to the nearest cell's outline, scaled by its
 * radius and wobbled by noise (cells are not circles): < 1 inside. */
static double cell_distance(double x, double y, uint32_t seed, double *rim_fraction)
{
    const int64_t gx = (int64_t)floor(x / CELL_PITCH), gy = (int64_t)floor(y / CELL_PITCH);
    double best = 1e9;
    *rim_fraction = 0;
    for (int64_t j = gy - 1; j <= gy + 1; j++)
        for (int64_t i = gx - 1; i <= gx + 1; i++) {
            cell c;
            if (!cell_at(i, j, seed, &c)) continue;
            const double wobble = 0.85 + 0.3 * parac__demo_noise(x, y, 18, seed ^ 0x99u);
            const double d = hypot(x - c.cx, y - c.cy) / (c.radius * wobble);
            if (d < best) {
                best = d;
                *rim_fraction = c.rim / (c.radius * wobble);
            }
        }
    return best;
}

parac_status parac__demo_cells(parac_image **out, int64_t width, int64_t height, int solid, uint32_t seed)
{
    PARAC_TRY(new_u8(out, width, height));
    /* shift the grid so that cells are cut by the image border */
    const double off = CELL_PITCH * 0.4;
    for (int64_t y = 0; y < height; y++)
        for (int64_t x = 0; x < width; x++) {
            double rim;
            const double d = cell_distance(x + off, y + off, seed, &rim);
            const double grain = parac__demo_noise((double)x, (double)y, 6, seed ^ 0x77u);
            double v;
            if (solid) v = d < 1 ? 255 : 0;
            else if (d < 1 - rim) v = 70 + 40 * grain;           /* the core */
            else if (d < 1) v = 185 + 60 * grain;                /* the rim */
            else v = 30;                 /* between cells: flat, so its only holes are the cores */
            put(*out, x, y, v);
        }
    return PARAC_OK;
}

parac_status parac__demo_serpentine(parac_image **out, int64_t width, int64_t height, int64_t *start_x,
                                    int64_t *start_y)
{
    PARAC_TRY(new_u8(out, width, height));
    const int64_t lane = 32, half = 7, margin = 20; /* lanes 32 px apart, 15 px wide */
    const int64_t lanes = (height - 2 * margin) / lane + 1;
    for (int64_t y = 0; y < height; y++)
        for (int64_t x = 0; x < width; x++) {
            const double grain = parac__demo_noise((double)x, (double)y, 8, 0x5e7u);
            double v = 15 + 35 * grain; /* the floor */
            const int64_t k = (y - margin + half) / lane, in_lane = (y - margin + half) % lane;
            const int on_lane = y >= margin - half && k < lanes && in_lane <= 2 * half &&
                                x >= margin - half && x <= width - margin + half;
            /* a turn joins lane k to lane k+1 at the right end for even k, at the left for odd k */
            const int64_t turn_x = (k % 2 == 0) ? width - margin : margin;
            const int on_turn = y >= margin && k + 1 < lanes && in_lane > 2 * half &&
                                x >= turn_x - half && x <= turn_x + half;
            if (on_lane || on_turn) v = 170 + 60 * grain;
            /* blobs between the lanes' ends and in the middle, joined to nothing */
            for (int64_t b = 0; b < lanes - 1; b++) {
                const double bx = margin + (width - 2 * margin) * (0.3 + 0.4 * lattice(b, 1, 0x9bu));
                const double by = margin + b * lane + lane / 2.0;
                if (fabs(x - bx) < 18 && fabs(y - by) < 4) v = 215 + 30 * grain;
            }
            put(*out, x, y, v);
        }
    *start_x = margin;
    *start_y = margin;
    return PARAC_OK;
}

parac_status parac__demo_specks(parac_image **out, int64_t width, int64_t height, int inverted, uint32_t seed)
{
    PARAC_TRY(new_u8(out, width, height));
    for (int64_t y = 0; y < height; y++)
        for (int64_t x = 0; x < width; x++) {
            /* shading of one octave, whose bumps are far larger than any speck */
            const double shade = value_noise(x / 140.0, y / 140.0, seed);
            double v = 30 + 40 * shade;
            /* large shapes: where slow noise is high */
            const double shape = parac__demo_noise((double)x, (double)y, 90, seed ^ 0x3u);
            if (shape > 0.55) v = 150 + 70 * shade;
            /* specks of 1 to 3 pixels on a 17-pixel lattice, one in three places */
            const int64_t gx = x / 17, gy = y / 17;
            if (lattice(gx, gy, seed ^ 0x5u) < 0.33) {
                const int64_t sx = gx * 17 + 3 + (int64_t)(lattice(gx, gy, seed ^ 0x6u) * 11);
                const int64_t sy = gy * 17 + 3 + (int64_t)(lattice(gx, gy, seed ^ 0x7u) * 11);
                const int64_t size = 1 + (int64_t)(lattice(gx, gy, seed ^ 0x8u) * 3);
                if (x >= sx && x < sx + size && y >= sy && y < sy + size) v = 240;
            }
            put(*out, x, y, inverted ? 255 - v : v);
        }
    return PARAC_OK;
}
