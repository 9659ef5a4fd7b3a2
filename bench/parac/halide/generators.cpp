// Halide 14 versions of the five ParaC example programs (examples/<app>.pc), as
// peers for the evaluation: the same arithmetic and borders as the plain-C
// references (examples/<app>_ref.c), each with a GPU schedule (stages fused
// into tiles, the intermediate rows in shared memory, in the manner of
// Halide's own apps/blur and apps/unsharp GPU schedules) and a CPU schedule
// (tiles over all cores, vectorised). Images are Halide buffers with x the
// column (innermost), y the row and, for unsharp, c the channel.
// Compiled ahead of time by bench/parac/halide/build.sh with Debian's
// libhalide14-0-dev; the generated libraries need no Halide to run.
#include <functional>

#include "Halide.h"

using namespace Halide;

namespace {

Var x("x"), y("y"), c("c"), xo("xo"), yo("yo"), xi("xi"), yi("yi");

// Estimates for the autoschedulers (auto_schedule=true): Halide's apps
// size, the larger of the two the evaluation runs.
const int EST_W = 4096, EST_H = 4096;

// With auto_schedule: the estimates of a 2D input and output (the schedule is
// the autoscheduler's); else false.
template <typename In, typename Out>
bool estimates_2d(In &input, Out &output, bool auto_schedule)
{
    if (!auto_schedule) return false;
    input.set_estimates({{0, EST_W}, {0, EST_H}});
    output.set_estimates({{0, EST_W}, {0, EST_H}});
    return true;
}

// The schedules of a row pass `mid` followed by a column pass `output`. GPU:
// a 32x8 tile per block, `mid` for the tile's rows and halo in shared
// memory (fuse) or in global memory from a kernel of its own. CPU: strips of
// 32 rows over the cores, `mid` per strip, vectors of `lanes`.
void schedule_two_pass(Func output, Func mid, bool gpu, bool fuse, int lanes)
{
    if (gpu) {
        output.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        if (fuse) mid.compute_at(output, xo).gpu_threads(x, y);
        else mid.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
    } else {
        output.split(y, yo, yi, 32, TailStrategy::GuardWithIf).parallel(yo).vectorize(x, lanes, TailStrategy::GuardWithIf);
        mid.store_at(output, yo).compute_at(output, yi).vectorize(x, lanes);
    }
}

// blur.pc: the 3x1 then 1x3 mean of uint16 pixels, edges repeated.
class Blur : public Generator<Blur> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> fuse{"fuse", true}; // GPU: stages in one kernel per tile, or a kernel per stage
    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};

    void generate()
    {
        Func in = BoundaryConditions::repeat_edge(input);
        blur_x(x, y) = cast<uint16_t>((cast<int32_t>(in(x - 1, y)) + in(x, y) + in(x + 1, y)) / 3);
        output(x, y) = cast<uint16_t>((cast<int32_t>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
    }

    void schedule()
    {
        if (!estimates_2d(input, output, auto_schedule)) schedule_two_pass(output, blur_x, gpu, fuse, 16);
    }

private:
    Func blur_x{"blur_x"};
};

// gaussian.pc: the 5-tap binomial (1 4 6 4 1)/16 along rows, then columns,
// mirrored borders without repeating the edge pixel; float.
class Gaussian : public Generator<Gaussian> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> fuse{"fuse", true}; // GPU: stages in one kernel per tile, or a kernel per stage
    Input<Buffer<float, 2>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};

    void generate()
    {
        const float g[5] = {0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f};
        Func in = BoundaryConditions::mirror_interior(input);
        Expr sx = g[0] * in(x - 2, y);
        for (int k = 1; k < 5; k++) sx = sx + g[k] * in(x - 2 + k, y);
        row(x, y) = sx;
        // rows outside the image are the mirrored rows of the input, so the
        // column pass reads `row` there as the reference reads its mirrored rows
        Expr sy = g[0] * row(x, y - 2);
        for (int k = 1; k < 5; k++) sy = sy + g[k] * row(x, y - 2 + k);
        output(x, y) = sy;
    }

    void schedule()
    {
        if (!estimates_2d(input, output, auto_schedule)) schedule_two_pass(output, row, gpu, fuse, 8);
    }

private:
    Func row{"row"};
};

// laplacian.pc: one Laplacian pyramid level of uint8 pixels. The [1 4 6 4 1]
// filter along rows with two extrapolated columns each side (the paper's
// formulas), then along columns of every second row and column with
// extrapolated rows (the half-size `down`), then layer = input - up(down),
// up repeating the last sample. Sums that the extrapolation makes negative
// divide as C does (towards zero) and wrap to uint8 as its casts do.
class Laplacian : public Generator<Laplacian> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> fuse{"fuse", true}; // GPU: the row pass per tile of `down`, or a kernel of its own
    Input<Buffer<uint8_t, 2>> input{"input"};
    Output<Buffer<int16_t, 2>> layer{"layer"};
    Output<Buffer<uint8_t, 2>> down{"down"};

    void generate()
    {
        const int f[5] = {1, 4, 6, 4, 1};
        Expr N = input.dim(0).extent(), M = input.dim(1).extent();
        // f(i) for i in -2 .. n+1 from a line read in bounds by `at`
        auto ext = [](const std::function<Expr(Expr)> &at, Expr i, Expr n) {
            return select(i == -2, at(3) * 4 - at(1) * 4 + at(0) * 2 - at(2), i == -1, at(1) * 2 - at(3),
                          i == n, at(n - 2) * 2 - at(n - 4),
                          i == n + 1, at(n - 4) * 4 - at(n - 2) * 4 + at(n - 1) * 2 - at(n - 3),
                          at(clamp(i, 0, n - 1)));
        };
        // the row with its extrapolated columns, once per pixel (not once per tap)
        in_ext(x, y) = ext([&](Expr c) { return cast<int32_t>(input(c, y)); }, x, N);
        Expr sx = 0;
        for (int k = 0; k < 5; k++) sx = sx + f[k] * in_ext(x - 2 + k, y);
        row(x, y) = cast<uint8_t>(div_round_to_zero(sx + 8, 16));
        // the even columns of `row` with the extrapolated rows: its own Func, so
        // that a GPU tile of `down` needs only the rows around it (written
        // inside `down`, bounds inference would take every row the formulas
        // might read, the first and last four, for every tile)
        row_ext(x, y) = ext([&](Expr r) { return cast<int32_t>(row(2 * x, r)); }, y, M);
        Expr sy = 0;
        for (int k = 0; k < 5; k++) sy = sy + f[k] * row_ext(x, 2 * y - 2 + k);
        down(x, y) = cast<uint8_t>(div_round_to_zero(sy + 8, 16));
        Expr hw = (N + 1) / 2, hh = (M + 1) / 2;
        Expr j = x / 2, i = y / 2, j1 = min(j + 1, hw - 1), i1 = min(i + 1, hh - 1);
        Expr d = cast<int32_t>(down(j, i)), r = cast<int32_t>(down(j1, i)), b = cast<int32_t>(down(j, i1)),
             g = cast<int32_t>(down(j1, i1));
        Expr up = select(y % 2 == 0 && x % 2 == 0, d, y % 2 == 0, (d + r + 1) / 2, x % 2 == 0, (d + b + 1) / 2,
                         (d + r + b + g + 2) / 4);
        layer(x, y) = cast<int16_t>(cast<int32_t>(input(x, y)) - up);
    }

    void schedule()
    {
        if (estimates_2d(input, layer, auto_schedule)) {
            down.set_estimates({{0, EST_W / 2}, {0, EST_H / 2}});
            return;
        }
        if (gpu) {
            down.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            layer.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            // fused: the 32 x 20 filtered rows of a tile in shared memory, `row`
            // recomputed in them; else `row` as a kernel of its own
            if (fuse) row_ext.compute_at(down, xo).gpu_threads(x, y);
            else row.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        } else {
            in_ext.compute_at(row, y).vectorize(x, 16);
            row.compute_root().parallel(y, 8).vectorize(x, 16, TailStrategy::GuardWithIf);
            down.parallel(y, 8).vectorize(x, 16, TailStrategy::GuardWithIf);
            layer.parallel(y, 8).vectorize(x, 16, TailStrategy::GuardWithIf);
        }
    }

private:
    Func row{"row"}, in_ext{"in_ext"}, row_ext{"row_ext"};
};

// unsharp.pc (Halide's apps/unsharp): gray, a 7-tap Gaussian along rows
// then columns (edges repeated), sharpen = 2 gray - blur, ratio = sharpen /
// gray, every channel times ratio. Planar float, channels outermost.
class Unsharp : public Generator<Unsharp> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> fuse{"fuse", true}; // GPU: stages in one kernel per tile, or a kernel per stage
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate()
    {
        const float k[7] = {0.0366328454f, 0.111280758f, 0.216745321f, 0.270682149f,
                            0.216745321f, 0.111280758f, 0.0366328454f};
        // edges repeated on the input: gray and the row pass outside the
        // image then equal their values at the nearest row and column, as the
        // reference's clamped reads of gray and of the row pass give, and the
        // stages stay tileable (a clamp on an intermediate would make every
        // tile need all of it)
        Func in = BoundaryConditions::repeat_edge(input);
        gray(x, y) = 0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2);
        Expr sx = k[0] * gray(x - 3, y);
        for (int t = 1; t < 7; t++) sx = sx + k[t] * gray(x - 3 + t, y);
        blur_x(x, y) = sx;
        Expr sy = k[0] * blur_x(x, y - 3);
        for (int t = 1; t < 7; t++) sy = sy + k[t] * blur_x(x, y - 3 + t);
        ratio(x, y) = (2.0f * gray(x, y) - sy) / gray(x, y);
        output(x, y, c) = ratio(x, y) * input(x, y, c);
        output.dim(2).set_bounds(0, 3);
        input.dim(2).set_bounds(0, 3);
    }

    void schedule()
    {
        if (auto_schedule) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        if (gpu) {
            // one 32x8 tile per block: gray and blur_x of the tile and its
            // halo in shared memory, ratio per pixel, the three channels unrolled
            output.reorder(c, x, y).unroll(c).gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            ratio.compute_at(output, xi);
            if (fuse) {
                blur_x.compute_at(output, xo).gpu_threads(x, y);
                gray.compute_at(output, xo).gpu_threads(x, y);
            } else {
                blur_x.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
                gray.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            }
        } else {
            output.reorder(c, x, y).unroll(c).split(y, yo, yi, 32, TailStrategy::GuardWithIf).parallel(yo).vectorize(x, 8, TailStrategy::GuardWithIf);
            gray.store_at(output, yo).compute_at(output, yi).vectorize(x, 8);
            blur_x.store_at(output, yo).compute_at(output, yi).vectorize(x, 8);
            ratio.compute_at(output, yi).vectorize(x, 8);
        }
    }

private:
    Func gray{"gray"}, blur_x{"blur_x"}, ratio{"ratio"};
};


// sharpening.pc with strength 8 and overshoot 4 (as the benchmarks call it):
// the rounded 4x4 mean `down`; the bilinear `up` with the samples at 4i + 1.5,
// the edges and the rows and columns past the last block repeated (weights
// in eighths: exact in float); error = src - up; the Sobel magnitude with
// edges repeated; its mean over the image, summed by bands of 64 rows per
// column, then per column, then by bands of 64 columns (each a kernel on the
// GPU); the gain; the clamp to the 3x3 range widened by the overshoot. C's
// integer division (towards zero) where a value may be negative.
class Sharpening : public Generator<Sharpening> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> fuse{"fuse", true}; // GPU: up computed in the output's tiles, or a kernel of its own
    Input<Buffer<uint8_t, 2>> input{"input"};
    Output<Buffer<uint8_t, 2>> output{"output"};

    void generate()
    {
        const int strength = 8, overshoot = 4, band = 64;
        Expr W = input.dim(0).extent(), H = input.dim(1).extent(), Nd = W / 4, Md = H / 4;
        RDom b(0, 4, 0, 4);
        down(x, y) = cast<uint8_t>((sum(cast<int32_t>(input(4 * x + b.x, 4 * y + b.y))) + 8) >> 4);
        // the sample and its two weights along one axis (the reference's weights())
        auto axis = [](Expr r, Expr n4, Expr &i0, Expr &wa, Expr &wb) {
            Expr edge = r < 2 || r >= 4 * n4 - 2, k = (r - 2) % 4;
            // clamped for bounds inference (the select already keeps it inside)
            i0 = clamp(select(r < 2, 0, r >= 4 * n4 - 2, n4 - 1, (r - 2) / 4), 0, n4 - 1);
            wa = select(edge, 1.0f, cast<float>(7 - 2 * k) / 8.0f);
            wb = select(edge, 0.0f, cast<float>(1 + 2 * k) / 8.0f);
        };
        Expr i0, ra, rb, j0, ca, cb;
        axis(min(y, 4 * Md - 1), Md, i0, ra, rb);
        axis(min(x, 4 * Nd - 1), Nd, j0, ca, cb);
        Expr i1 = min(i0 + 1, Md - 1), j1 = min(j0 + 1, Nd - 1);
        auto D = [&](Expr i, Expr j) { return cast<float>(down(j, i)); };
        up(x, y) = cast<uint8_t>(ra * (ca * D(i0, j0) + cb * D(i0, j1)) + rb * (ca * D(i1, j0) + cb * D(i1, j1)));
        Func in = BoundaryConditions::repeat_edge(input);
        const int kx[3][3] = {{-1, 0, 1}, {-2, 0, 2}, {-1, 0, 1}}, ky[3][3] = {{-1, -2, -1}, {0, 0, 0}, {1, 2, 1}};
        Expr gx = 0, gy = 0, lo = 255, hi = 0;
        for (int a = 0; a < 3; a++)
            for (int d = 0; d < 3; d++) {
                Expr p = cast<int32_t>(in(x - 1 + d, y - 1 + a));
                if (kx[a][d]) gx = gx + kx[a][d] * p;
                if (ky[a][d]) gy = gy + ky[a][d] * p;
                lo = min(lo, p);
                hi = max(hi, p);
            }
        edge(x, y) = abs(gx) + abs(gy);
        RDom rb_(0, band);
        Expr yy = v * band + rb_;
        part(x, v) = sum(select(yy < H, cast<int64_t>(edge(x, min(yy, H - 1))), cast<int64_t>(0)));
        RDom rv(0, (H + band - 1) / band);
        colsum(x) = sum(part(x, rv));
        Expr xx = u * band + rb_;
        cband(u) = sum(select(xx < W, colsum(min(xx, W - 1)), cast<int64_t>(0)));
        RDom ru(0, (W + band - 1) / band);
        total() = sum(cband(ru));
        Expr mean = cast<int32_t>(total() / cast<int64_t>(H * W));
        Expr err = cast<int32_t>(input(x, y)) - cast<int32_t>(up(x, y));
        Expr gain = min(edge(x, y) * strength / (mean + 1), 4 * strength);
        Expr prelim = cast<int32_t>(cast<int16_t>(cast<int32_t>(up(x, y)) + err + div_round_to_zero(err * gain, 16)));
        output(x, y) = cast<uint8_t>(clamp(clamp(prelim, lo - overshoot, hi + overshoot), 0, 255));
    }

    void schedule()
    {
        if (estimates_2d(input, output, auto_schedule)) return;
        down.compute_root();
        edge.compute_root();
        part.compute_root();
        colsum.compute_root();
        cband.compute_root();
        total.compute_root();
        if (gpu) {
            down.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            edge.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            part.gpu_tile(x, v, xo, yo, xi, yi, 64, 4, TailStrategy::GuardWithIf);
            colsum.gpu_tile(x, xo, xi, 128, TailStrategy::GuardWithIf);
            cband.gpu_tile(u, xo, xi, 64, TailStrategy::GuardWithIf);
            total.gpu_single_thread();
            output.gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
            if (fuse) up.compute_at(output, xo).gpu_threads(x, y);
            else up.compute_root().gpu_tile(x, y, xo, yo, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        } else {
            down.parallel(y, 8).vectorize(x, 16, TailStrategy::GuardWithIf);
            edge.parallel(y, 8).vectorize(x, 16, TailStrategy::GuardWithIf);
            part.parallel(v).vectorize(x, 8, TailStrategy::GuardWithIf);
            colsum.vectorize(x, 8, TailStrategy::GuardWithIf);
            up.compute_at(output, y).vectorize(x, 16);
            output.parallel(y, 8).vectorize(x, 16, TailStrategy::GuardWithIf);
        }
    }

private:
    Var v{"v"}, u{"u"};
    Func down{"down"}, up{"up"}, edge{"edge"}, part{"part"}, colsum{"colsum"}, cband{"cband"}, total{"total"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(Blur, parac_blur)
HALIDE_REGISTER_GENERATOR(Gaussian, parac_gaussian)
HALIDE_REGISTER_GENERATOR(Laplacian, parac_laplacian)
HALIDE_REGISTER_GENERATOR(Unsharp, parac_unsharp)
HALIDE_REGISTER_GENERATOR(Sharpening, parac_sharpening)
