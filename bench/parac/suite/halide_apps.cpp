// Halide 14 versions of the ParaC application suite (examples/apps/), as
// peers for the evaluation: the algorithms of Halide's own apps (harris, hist,
// max_filter, stencil_chain, nl_means, interpolate, local_laplacian, bilateral_grid, camera_pipe; PolyMage's pyramid_blending) with the same arithmetic as the ParaC programs,
// each with a hand-written GPU schedule in the manner of Halide's apps
// (gpu_tile; the derivatives of harris per tile; hist's cumulative sum on a
// single thread; max_filter's slices over columns) and, with
// auto_schedule=true, the Li2018 autoscheduler's. Buffers are planar: x the
// column, y the row, c the channel. Built by build.sh in this folder.
#include <algorithm>

#include "Halide.h"

// Halide 14 asks auto_schedule=true; Halide >= 15 names the autoscheduler in
// autoscheduler=<name> (Anderson2021 for GPUs), and the generator learns it so
#if defined(HALIDE_VERSION_MAJOR) && HALIDE_VERSION_MAJOR >= 15
#define AUTOSCHEDULED using_autoscheduler()
#else
#define AUTOSCHEDULED auto_schedule
#endif

using namespace Halide;

namespace {

Var x("x"), y("y"), c("c"), xi("xi"), yi("yi"), xo("xo"), yo("yo");
const int EST_W = 1536, EST_H = 2560; // the apps' own test size

// harris.pc: gray, derivatives / 12, products summed over 3 x 3, det - 0.04 trace^2;
// output (x, y) is the response at (x + 2, y + 2), W - 6 by H - 6.
class Harris : public Generator<Harris> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 2>> output{"output"};

    void generate()
    {
        gray(x, y) = 0.299f * input(x, y, 0) + 0.587f * input(x, y, 1) + 0.114f * input(x, y, 2);
        iy(x, y) = (gray(x + 1, y + 1) - gray(x + 1, y - 1)) * (1.0f / 12) + (gray(x, y + 1) - gray(x, y - 1)) * (2.0f / 12) +
                   (gray(x - 1, y + 1) - gray(x - 1, y - 1)) * (1.0f / 12);
        ix(x, y) = (gray(x + 1, y + 1) - gray(x - 1, y + 1)) * (1.0f / 12) + (gray(x + 1, y) - gray(x - 1, y)) * (2.0f / 12) +
                   (gray(x + 1, y - 1) - gray(x - 1, y - 1)) * (1.0f / 12);
        Func ixx, iyy, ixy;
        ixx(x, y) = ix(x, y) * ix(x, y);
        iyy(x, y) = iy(x, y) * iy(x, y);
        ixy(x, y) = ix(x, y) * iy(x, y);
        auto sum3 = [](Func f) {
            Expr e = 0.0f;
            for (int j = -1; j <= 1; j++)
                for (int i = -1; i <= 1; i++) e = e + f(x + i, y + j);
            return e;
        };
        Func sxx, syy, sxy;
        sxx(x, y) = sum3(ixx);
        syy(x, y) = sum3(iyy);
        sxy(x, y) = sum3(ixy);
        Expr det = sxx(x, y) * syy(x, y) - sxy(x, y) * sxy(x, y);
        Expr trace = sxx(x, y) + syy(x, y);
        response(x, y) = det - 0.04f * trace * trace;
        output(x, y) = response(x + 2, y + 2);
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            output.set_estimates({{0, EST_W - 6}, {0, EST_H - 6}});
            return;
        }
        if (check) return;
        if (!gpu) { // Halide's CPU schedule of harris: strips of 32 rows over the cores, derivatives per row
            const int lanes = natural_vector_size<float>();
            output.split(y, yo, yi, 32, TailStrategy::GuardWithIf).parallel(yo).vectorize(x, lanes, TailStrategy::GuardWithIf);
            ix.store_at(output, yo).compute_at(output, yi).vectorize(x, lanes);
            iy.store_at(output, yo).compute_at(output, yi).vectorize(x, lanes);
            return;
        }
        output.gpu_tile(x, y, xi, yi, 14, 14, TailStrategy::GuardWithIf);
        ix.compute_at(output, x).gpu_threads(x, y);
        iy.compute_at(output, x).gpu_threads(x, y);
    }

private:
    Func gray{"gray"}, ix{"ix"}, iy{"iy"}, response{"response"};
};

// stencil_chain.pc: 8 stages of the 5 x 5 sum weighted (i + 3)(j + 3) in
// wrapping uint16; output (x, y) is the last stage at (x + 16, y + 16).
class StencilChain : public Generator<StencilChain> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<uint16_t, 2>> input{"input"};
    Output<Buffer<uint16_t, 2>> output{"output"};

    void generate()
    {
        Func prev("stage0");
        prev(x, y) = input(x, y);
        stages.push_back(prev);
        for (int s = 1; s <= 8; s++) {
            Func f("stage" + std::to_string(s));
            Expr e = cast<uint16_t>(0);
            for (int j = -2; j <= 2; j++)
                for (int i = -2; i <= 2; i++) e = e + cast<uint16_t>((i + 3) * (j + 3)) * stages.back()(x + i, y + j);
            f(x, y) = e;
            stages.push_back(f);
        }
        output(x, y) = stages.back()(x + 16, y + 16);
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}});
            output.set_estimates({{0, EST_W - 32}, {0, EST_H - 32}});
            return;
        }
        if (check) { // every stage computed whole (inlined, the chain's terms multiply by 25 a stage)
            for (int k = 1; k < 8; k++) stages[k].compute_root();
            return;
        }
        if (!gpu) { // Halide's CPU schedule of the chain: 512 x 512 tiles over the cores, each stage per row of a tile
            Var t("t");
            output.compute_root().tile(x, y, xo, yo, xi, yi, 512, 512, TailStrategy::GuardWithIf).fuse(xo, yo, t).parallel(t)
                .vectorize(xi, 16, TailStrategy::GuardWithIf);
            for (int k = 1; k < 8; k++) stages[k].store_at(output, t).compute_at(output, yi).vectorize(x, 16);
            return;
        }
        // a kernel per stage (the chain's halos grow with every stage fused)
        output.gpu_tile(x, y, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        for (int s = 1; s < 8; s++) stages[s].compute_root().gpu_tile(x, y, xi, yi, 32, 8, TailStrategy::GuardWithIf);
    }

private:
    std::vector<Func> stages;
};

// hist.pc: Halide's hist (luma histogram, cumulative sum, equalised luma,
// chroma put back), the cumulative sum on one GPU thread.
class Hist : public Generator<Hist> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<uint8_t, 3>> input{"input"};
    Output<Buffer<uint8_t, 3>> output{"output"};

    void generate()
    {
        Expr r = cast<float>(input(x, y, 0)), g = cast<float>(input(x, y, 1)), b = cast<float>(input(x, y, 2));
        luma(x, y) = 0.299f * r + 0.587f * g + 0.114f * b;
        RDom rx(0, input.width());
        hist_rows(x, y) = 0;
        hist_rows(clamp(cast<int>(clamp(luma(rx, y), 0.0f, 255.0f)), 0, 255), y) += 1;
        ry = RDom(0, input.height());
        hist(x) = 0;
        hist(x) += hist_rows(x, ry);
        RDom bins(1, 255);
        cdf(x) = hist(0);
        cdf(bins.x) = cdf(bins.x - 1) + hist(bins.x);
        Expr scale = 255.0f / cast<float>(input.height() * input.width());
        Expr cr = (r - luma(x, y)) * 0.713f + 128, cb = (b - luma(x, y)) * 0.564f + 128;
        Expr bin = clamp(cast<int>(clamp(luma(x, y), 0.0f, 255.0f)), 0, 255);
        Expr eq = clamp(cast<float>(cdf(bin)) * scale, 0.0f, 255.0f);
        Expr red = cast<uint8_t>(clamp(eq + (cr - 128) * 1.4f, 0.0f, 255.0f));
        Expr green = cast<uint8_t>(clamp(eq - 0.343f * (cb - 128) - 0.711f * (cr - 128), 0.0f, 255.0f));
        Expr blue = cast<uint8_t>(clamp(eq + 1.765f * (cb - 128), 0.0f, 255.0f));
        output(x, y, c) = select(c == 0, red, c == 1, green, blue);
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        if (check) { // each reduction computed once, not at each use
            luma.compute_root();
            hist_rows.compute_root();
            hist.compute_root();
            cdf.compute_root();
            return;
        }
        cdf.bound(x, 0, 256);
        if (!gpu) { // Halide's CPU schedule of hist
            luma.compute_root().parallel(y, 8).vectorize(x, 8);
            hist_rows.compute_root().vectorize(x, 8).parallel(y, 8).update().parallel(y, 8);
            hist.compute_root().vectorize(x, 8).update().reorder(x, ry).vectorize(x, 8).unroll(x, 4).parallel(x).reorder(ry, x);
            cdf.compute_root();
            output.reorder(c, x, y).bound(c, 0, 3).unroll(c).parallel(y, 8).vectorize(x, 8, TailStrategy::GuardWithIf);
            return;
        }
        luma.compute_root().gpu_tile(x, y, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        hist_rows.compute_root().gpu_tile(y, yi, 16, TailStrategy::GuardWithIf).update().gpu_tile(y, yi, 16, TailStrategy::GuardWithIf);
        hist.compute_root().gpu_tile(x, xi, 16).update().gpu_tile(x, xi, 16);
        cdf.compute_root().gpu_single_thread();
        cdf.update().gpu_single_thread();
        output.compute_root().reorder(c, x, y).bound(c, 0, 3).unroll(c).gpu_tile(x, y, xi, yi, 16, 16, TailStrategy::GuardWithIf);
    }

private:
    Func luma{"luma"}, hist_rows{"hist_rows"}, hist{"hist"}, cdf{"cdf"};
    RDom ry;
};

// max_filter.pc: Halide's max_filter of radius 26 (vertical slices of 2^s
// rows, then a disc of columns), edges repeated.
class MaxFilter : public Generator<MaxFilter> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate()
    {
        const int radius = 26, slices = 6;
        Var t("t");
        Func in = BoundaryConditions::repeat_edge(input);
        vert_log(x, y, c, t) = in(x, y, c);
        r = RDom(-radius - 1, input.height() + 2 * radius + 2, 1, slices - 1);
        vert_log(x, r.x, c, r.y) = max(vert_log(x, r.x, c, r.y - 1), vert_log(x, r.x + clamp(1 << (r.y - 1), 0, 2 * radius), c, r.y - 1));
        RDom dy(0, radius + 1);
        half(x) = sum(select(16 * (x * x + dy * dy) < (4 * radius + 1) * (4 * radius + 1), 1, 0));
        Expr t_of = half(x);
        Expr s_of = cast<int>(floor(log(cast<float>(2 * t_of + 1)) / logf(2.0f)));
        slice(x) = clamp(s_of, 0, slices - 1);
        Var d("d");
        Expr tt = clamp(half(d), 0, radius + 1), ss = clamp(slice(d), 0, slices - 1);
        vert(x, y, c, d) = max(vert_log(x, y - tt, c, ss), vert_log(x, y + tt + 1 - clamp(1 << ss, 0, 2 * radius), c, ss));
        RDom dx(-radius, 2 * radius + 1);
        output(x, y, c) = maximum(vert(clamp(x + dx, 0, input.width() - 1), y, c, dx));
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        if (check) { // the tables and slices computed once
            half.compute_root();
            slice.compute_root();
            vert_log.compute_root();
            return;
        }
        if (!gpu) { // Halide's CPU schedule of max_filter: strips of 256 columns over the cores
            Var t("t"), tx("tx");
            half.compute_root();
            slice.compute_root();
            output.compute_root().split(x, tx, x, 256, TailStrategy::GuardWithIf).reorder(x, y, c, tx).fuse(c, tx, t).parallel(t)
                .vectorize(x, 8, TailStrategy::GuardWithIf);
            vert_log.compute_at(output, t).vectorize(x, 8);
            vert_log.update().reorder(x, r.x, r.y, c).vectorize(x, 8);
            vert.compute_at(output, y).vectorize(x, 8);
            return;
        }
        half.compute_root();
        slice.compute_root();
        output.split(x, xo, xi, 128, TailStrategy::GuardWithIf).reorder(xi, xo, y, c).gpu_blocks(xo, y, c).gpu_threads(xi);
        // the slices: a thread per column runs down the rows, slice after slice
        vert_log.compute_root().gpu_tile(x, y, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        vert_log.update().split(x, xo, xi, 128, TailStrategy::GuardWithIf).reorder(r.x, r.y, xi, xo, c)
            .gpu_blocks(xo, c).gpu_threads(xi);
    }

private:
    Func vert_log{"vert_log"}, half{"half"}, slice{"slice"}, vert{"vert"};
    RDom r;
};

// nl_means.pc: Halide's nl_means (patch and search area 7 x 7, sigma 0.12),
// edges repeated: per offset of the search area the squared colour
// difference summed down the patch's rows, then across, weighs the moved
// image by exp(-sum / (sigma^2 7^2)); the weighted mean clamped to 0..1.
class NlMeans : public Generator<NlMeans> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate()
    {
        const int patch = 7, search = 7;
        const float sigma = 0.12f;
        Func in = BoundaryConditions::repeat_edge(input);
        Expr e0 = in(x, y, 0) - in(x + dx, y + dy, 0), e1 = in(x, y, 1) - in(x + dx, y + dy, 1),
             e2 = in(x, y, 2) - in(x + dx, y + dy, 2);
        d(x, y, dx, dy) = e0 * e0 + e1 * e1 + e2 * e2;
        RDom p(-patch / 2, patch);
        blur_y(x, y, dx, dy) = sum(d(x, y + p, dx, dy));
        blur(x, y, dx, dy) = sum(blur_y(x + p, y, dx, dy));
        w(x, y, dx, dy) = exp(blur(x, y, dx, dy) * (-1.0f / (sigma * sigma * patch * patch)));
        s = RDom(-search / 2, search, -search / 2, search); // s.x the column offset, inner
        acc(x, y, c) = 0.0f;
        acc(x, y, c) += w(x, y, s.x, s.y) * select(c == 3, 1.0f, in(x + s.x, y + s.y, clamp(c, 0, 2)));
        output(x, y, c) = clamp(acc(x, y, c) / acc(x, y, 3), 0.0f, 1.0f);
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        if (check) { // the differences summed once per offset
            blur_y.compute_root();
            acc.compute_root();
            return;
        }
        Var t("t");
        if (!gpu) { // rows over the cores, vectors along x
            blur_y.compute_root().fuse(dx, dy, t).parallel(t).vectorize(x, 8, TailStrategy::GuardWithIf);
            acc.compute_root().bound(c, 0, 4).reorder(c, x, y).unroll(c).parallel(y).vectorize(x, 8, TailStrategy::GuardWithIf);
            acc.update().reorder(c, x, s.x, s.y, y).unroll(c).parallel(y).vectorize(x, 8, TailStrategy::GuardWithIf);
            output.compute_root().parallel(y).vectorize(x, 8, TailStrategy::GuardWithIf);
            return;
        }
        // each offset's patch sums down the rows, a kernel per offset; then a
        // thread per pixel adds its 49 weighted neighbours, four sums at once
        blur_y.compute_root().fuse(dx, dy, t).gpu_tile(x, y, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        acc.compute_root().bound(c, 0, 4).reorder(c, x, y).unroll(c).gpu_tile(x, y, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        acc.update().reorder(c, s.x, s.y, x, y).unroll(c).gpu_tile(x, y, xi, yi, 32, 8, TailStrategy::GuardWithIf);
        output.compute_root().reorder(c, x, y).bound(c, 0, 3).unroll(c).gpu_tile(x, y, xi, yi, 32, 8, TailStrategy::GuardWithIf);
    }

private:
    Var dx{"dx"}, dy{"dy"};
    Func d{"d"}, blur_y{"blur_y"}, blur{"blur"}, w{"w"}, acc{"acc"};
    RDom s;
};

// interpolate.pc: Halide's interpolate (10 levels) with each pyramid level
// of its own size, ceil(W / 2^l) x ceil(H / 2^l), its edge repeated (Halide's
// app reads its levels' functions past their edges, with a clamp at level
// 4; the ParaC program's levels are matrices): the colours premultiplied by
// alpha, and alpha, brought down by [1 2 1] / 4 with 2x downsampling, back up
// by averages of neighbours, each level filling what its own alpha leaves
// open; the colours divided by the result's alpha.
class Interpolate : public Generator<Interpolate> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    GeneratorParam<int> levels{"levels", 10};
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate()
    {
        const int L = levels;
        std::vector<Expr> w(L), h(L);
        w[0] = input.width();
        h[0] = input.height();
        for (int l = 1; l < L; l++) {
            w[l] = (w[l - 1] + 1) / 2;
            h[l] = (h[l - 1] + 1) / 2;
        }
        // level l read at (xx, yy), its edge repeated (clamped in the
        // expression: a Func for the clamp trips Adams2019's unrolling)
        auto at = [&](Func f, int l, Expr xx, Expr yy, Expr cc) {
            return f(clamp(xx, 0, w[l] - 1), clamp(yy, 0, h[l] - 1), cc);
        };
        for (int l = 0; l < L; l++) {
            down.emplace_back("down_" + std::to_string(l));
            interp.emplace_back("interp_" + std::to_string(l));
        }
        // (the edge repeated for schedules that compute past it; the reads the
        // algorithm makes are inside)
        Func in = BoundaryConditions::repeat_edge(input);
        down[0](x, y, c) = select(c < 3, in(x, y, c) * in(x, y, 3), in(x, y, 3));
        for (int l = 1; l < L; l++) {
            Func dx("downx_" + std::to_string(l));
            const Func &p = down[l - 1];
            dx(x, y, c) = (at(p, l - 1, x * 2 - 1, y, c) + 2.0f * at(p, l - 1, x * 2, y, c) + at(p, l - 1, x * 2 + 1, y, c)) * 0.25f;
            down[l](x, y, c) = (dx(x, y * 2 - 1, c) + 2.0f * dx(x, y * 2, c) + dx(x, y * 2 + 1, c)) * 0.25f;
        }
        interp[L - 1](x, y, c) = down[L - 1](x, y, c);
        for (int l = L - 2; l >= 0; l--) {
            Func ux("upx_" + std::to_string(l));
            const Func &q = interp[l + 1];
            ux(x, y, c) = (at(q, l + 1, x / 2, y, c) + at(q, l + 1, (x + 1) / 2, y, c)) / 2.0f;
            Expr up = (ux(x, y / 2, c) + ux(x, (y + 1) / 2, c)) / 2.0f;
            interp[l](x, y, c) = down[l](x, y, c) + (1.0f - down[l](x, y, 3)) * up;
        }
        output(x, y, c) = interp[0](x, y, c) / interp[0](x, y, 3);
    }

    void schedule()
    {
        const int L = levels;
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 4}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        if (check) { // every level whole
            for (int l = 1; l < L; l++) down[l].compute_root();
            for (int l = 1; l < L; l++) interp[l].compute_root();
            return;
        }
        Var xii("xii"), yii("yii");
        if (!gpu) { // Halide's CPU schedule of the app: the levels down whole, the levels up per strip of 32 rows
            const int vec = natural_vector_size<float>();
            for (int l = 1; l < L; l++)
                down[l].compute_root().bound(c, 0, 4).reorder(x, c, y).split(y, yo, yi, 8).parallel(yo)
                    .vectorize(x, vec, TailStrategy::GuardWithIf);
            output.bound(c, 0, 3).split(x, xo, xi, vec, TailStrategy::GuardWithIf).split(y, yo, yi, 32, TailStrategy::GuardWithIf)
                .reorder(xi, c, xo, yi, yo).unroll(c).vectorize(xi).parallel(yo);
            for (int l = 1; l < L; l++)
                interp[l].store_at(output, yo).compute_at(output, yi).vectorize(x, vec, TailStrategy::GuardWithIf);
            return;
        }
        // Halide's GPU schedule of the app, but for its levels 1 and 2: each
        // level down a kernel; the odd levels up from 3 a kernel (the even ones
        // inlined into them); the output 2 x 2 pixels a thread. The app
        // computes levels 1 and 2 up per tile of the output, in shared memory:
        // with each level's edge repeated, that kernel fails to launch
        // (CUDA_ERROR_INVALID_VALUE on the H200), so here they are kernels too
        auto tiles = [&](Func f) {
            f.reorder(c, x, y).tile(x, y, xi, yi, 32, 32, TailStrategy::GuardWithIf)
                .tile(xi, yi, xii, yii, 2, 2, TailStrategy::GuardWithIf).gpu_blocks(x, y).gpu_threads(xi, yi)
                .unroll(xii).unroll(yii).unroll(c);
        };
        output.bound(c, 0, 3);
        tiles(output);
        for (int l = 1; l < L; l++)
            down[l].compute_root().bound(c, 0, 4).reorder(c, x, y).unroll(c).gpu_tile(x, y, xi, yi, 16, 16, TailStrategy::GuardWithIf);
        for (int l = 1; l < L; l++)
            if (l <= 2 || l % 2 == 1) {
                interp[l].compute_root().bound(c, 0, 4);
                tiles(interp[l]);
            }
    }

private:
    std::vector<Func> down, interp;
};

// local_laplacian.pc: Halide's local_laplacian (8 pyramid levels, 8
// intensity levels, alpha = beta = 1, here generator parameters where the app
// takes them at run time) with each pyramid level of its own size, its edge
// repeated (Halide's app reads its pyramids past their edges).
class LocalLaplacian : public Generator<LocalLaplacian> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    GeneratorParam<int> pyramid_levels{"pyramid_levels", 8};
    GeneratorParam<int> levels{"levels", 8};
    GeneratorParam<float> alpha{"alpha", 1.0f};
    GeneratorParam<float> beta{"beta", 1.0f};
    Input<Buffer<uint16_t, 3>> input{"input"};
    Output<Buffer<uint16_t, 3>> output{"output"};

    void generate()
    {
        const int J = pyramid_levels, K = levels;
        const float a = alpha, b = beta;
        w.resize(J);
        h.resize(J);
        w[0] = input.width();
        h[0] = input.height();
        for (int j = 1; j < J; j++) {
            w[j] = (w[j - 1] + 1) / 2;
            h[j] = (h[j - 1] + 1) / 2;
        }
        Expr fx = cast<float>(x) / 256.0f;
        remap(x) = a * fx * exp(-fx * fx / 2.0f);
        // (the edge repeated for schedules that compute past it; the reads the
        // algorithm makes are inside)
        Func in = BoundaryConditions::repeat_edge(input);
        floating(x, y, c) = in(x, y, c) / 65535.0f;
        gray(x, y) = 0.299f * floating(x, y, 0) + 0.587f * floating(x, y, 1) + 0.114f * floating(x, y, 2);
        for (int j = 0; j < J; j++) {
            gP.emplace_back("gPyramid_" + std::to_string(j));
            lP.emplace_back("lPyramid_" + std::to_string(j));
            inG.emplace_back("inGPyramid_" + std::to_string(j));
            outL.emplace_back("outLPyramid_" + std::to_string(j));
            outG.emplace_back("outGPyramid_" + std::to_string(j));
        }
        Expr level = k * (1.0f / (K - 1));
        Expr idx = clamp(cast<int>(gray(x, y) * cast<float>(K - 1) * 256.0f), 0, (K - 1) * 256);
        gP[0](x, y, k) = b * (gray(x, y) - level) + level + remap(idx - 256 * k);
        inG[0](x, y) = gray(x, y);
        for (int j = 1; j < J; j++) {
            gP[j](x, y, k) = down(gP[j - 1], j - 1, {k});
            inG[j](x, y) = down(inG[j - 1], j - 1, {});
        }
        lP[J - 1](x, y, k) = gP[J - 1](x, y, k);
        for (int j = J - 2; j >= 0; j--) lP[j](x, y, k) = gP[j](x, y, k) - up(gP[j + 1], j + 1, {k});
        for (int j = 0; j < J; j++) {
            Expr lv = inG[j](x, y) * cast<float>(K - 1);
            Expr li = clamp(cast<int>(lv), 0, K - 2);
            Expr lf = lv - cast<float>(li);
            outL[j](x, y) = (1.0f - lf) * lP[j](x, y, li) + lf * lP[j](x, y, li + 1);
        }
        outG[J - 1](x, y) = outL[J - 1](x, y);
        for (int j = J - 2; j >= 0; j--) outG[j](x, y) = up(outG[j + 1], j + 1, {}) + outL[j](x, y);
        Expr color = outG[0](x, y) * (floating(x, y, c) + 0.01f) / (gray(x, y) + 0.01f);
        output(x, y, c) = cast<uint16_t>(clamp(color, 0.0f, 1.0f) * 65535.0f);
    }

    void schedule()
    {
        const int J = pyramid_levels;
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        remap.compute_root();
        if (check) { // every level whole
            for (int j = 0; j < J; j++) {
                gP[j].compute_root();
                inG[j].compute_root();
                outG[j].compute_root();
            }
            return;
        }
        if (!gpu) { // Halide's CPU schedule of the app
            Var yo("yo");
            output.reorder(c, x, y).split(y, yo, y, 64, TailStrategy::GuardWithIf).parallel(yo)
                .vectorize(x, 8, TailStrategy::GuardWithIf);
            gray.compute_root().parallel(y, 32).vectorize(x, 8, TailStrategy::GuardWithIf);
            for (int j = 1; j < std::min(5, J); j++) {
                inG[j].compute_root().parallel(y, 32).vectorize(x, 8, TailStrategy::GuardWithIf);
                gP[j].compute_root().reorder_storage(x, k, y).reorder(k, y).parallel(y, 8).vectorize(x, 8, TailStrategy::GuardWithIf);
                outG[j].store_at(output, yo).compute_at(output, y).vectorize(x, 8, TailStrategy::GuardWithIf);
            }
            outG[0].compute_at(output, y).vectorize(x, 8, TailStrategy::GuardWithIf);
            for (int j = 5; j < J; j++) {
                inG[j].compute_root();
                gP[j].compute_root().parallel(k);
                outG[j].compute_root();
            }
            return;
        }
        // Halide's GPU schedule of the app: every level of the three pyramids a
        // kernel, 16 x 8 threads a block, 2 x 2 from level 4
        output.compute_root().reorder(c, x, y).gpu_tile(x, y, xi, yi, 16, 8, TailStrategy::GuardWithIf);
        for (int j = 0; j < J; j++) {
            const int bw = j > 3 ? 2 : 16, bh = j > 3 ? 2 : 8;
            if (j > 0) {
                inG[j].compute_root().gpu_tile(x, y, xi, yi, bw, bh, TailStrategy::GuardWithIf);
                gP[j].compute_root().reorder(k, x, y).gpu_tile(x, y, xi, yi, bw, bh, TailStrategy::GuardWithIf);
            }
            outG[j].compute_root().gpu_tile(x, y, xi, yi, bw, bh, TailStrategy::GuardWithIf);
        }
    }

private:
    Var k{"k"};
    std::vector<Expr> w, h;
    Func remap{"remap"}, floating{"floating"}, gray{"gray"};
    std::vector<Func> gP, lP, inG, outL, outG;

    // level j of f at (xx, yy), its edge repeated
    Expr at(Func f, int j, Expr xx, Expr yy, std::vector<Expr> rest)
    {
        std::vector<Expr> args = {clamp(xx, 0, w[j] - 1), clamp(yy, 0, h[j] - 1)};
        args.insert(args.end(), rest.begin(), rest.end());
        return f(args);
    }

    // [1 3 3 1] / 8 along x, then y, every other pixel, of level j of f
    Expr down(Func f, int j, std::vector<Expr> rest)
    {
        auto row = [&](Expr yy) {
            return (at(f, j, 2 * x - 1, yy, rest) + 3.0f * (at(f, j, 2 * x, yy, rest) + at(f, j, 2 * x + 1, yy, rest)) +
                    at(f, j, 2 * x + 2, yy, rest)) / 8.0f;
        };
        return (row(2 * y - 1) + 3.0f * (row(2 * y) + row(2 * y + 1)) + row(2 * y + 2)) / 8.0f;
    }

    // bilinear (1/4, 3/4) along x, then y, from level j of f
    Expr up(Func f, int j, std::vector<Expr> rest)
    {
        auto row = [&](Expr yy) {
            return 0.25f * at(f, j, (x / 2) - 1 + 2 * (x % 2), yy, rest) + 0.75f * at(f, j, x / 2, yy, rest);
        };
        return 0.25f * row((y / 2) - 1 + 2 * (y % 2)) + 0.75f * row(y / 2);
    }
};

// bilateral_grid.pc: Halide's bilateral_grid (cells of 8 x 8 pixels, r_sigma
// at run time): a histogram of each cell's clamped intensities (sums and
// counts by bins of r_sigma, the cell's pixels starting half a cell before
// it, edges repeated), blurred by [1 4 6 4 1] along the bins, the columns
// and the rows of cells, read trilinearly at each pixel; the sums' ratio.
class BilateralGrid : public Generator<BilateralGrid> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<float, 2>> input{"input"};
    Input<float> r_sigma{"r_sigma"};
    Output<Buffer<float, 2>> output{"output"};

    void generate()
    {
        const int S = 8;
        Func in = BoundaryConditions::repeat_edge(input);
        Expr inv = 1.0f / r_sigma;
        r = RDom(0, S, 0, S);
        Expr v = clamp(in(x * S + r.x - S / 2, y * S + r.y - S / 2), 0.0f, 1.0f);
        histogram(x, y, z, c) = 0.0f;
        histogram(x, y, cast<int>(v * inv + 0.5f), c) += select(c == 0, v, 1.0f);
        blurz(x, y, z, c) = histogram(x, y, z - 2, c) + histogram(x, y, z - 1, c) * 4 + histogram(x, y, z, c) * 6 +
                            histogram(x, y, z + 1, c) * 4 + histogram(x, y, z + 2, c);
        blurx(x, y, z, c) = blurz(x - 2, y, z, c) + blurz(x - 1, y, z, c) * 4 + blurz(x, y, z, c) * 6 +
                            blurz(x + 1, y, z, c) * 4 + blurz(x + 2, y, z, c);
        blury(x, y, z, c) = blurx(x, y - 2, z, c) + blurx(x, y - 1, z, c) * 4 + blurx(x, y, z, c) * 6 +
                            blurx(x, y + 1, z, c) * 4 + blurx(x, y + 2, z, c);
        Expr zv = clamp(input(x, y), 0.0f, 1.0f) * inv;
        Expr zi = cast<int>(zv), xc = x / S, yc = y / S;
        Expr zf = zv - zi, xf = cast<float>(x % S) / S, yf = cast<float>(y % S) / S;
        auto plane = [&](Expr zz) {
            return lerp(lerp(blury(xc, yc, zz, c), blury(xc + 1, yc, zz, c), xf),
                        lerp(blury(xc, yc + 1, zz, c), blury(xc + 1, yc + 1, zz, c), xf), yf);
        };
        interpolated(x, y, c) = lerp(plane(zi), plane(zi + 1), zf);
        output(x, y) = interpolated(x, y, 0) / interpolated(x, y, 1);
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}});
            r_sigma.set_estimate(0.1f);
            histogram.set_estimate(z, -2, 16);
            blurz.set_estimate(z, 0, 12);
            blurx.set_estimate(z, 0, 12);
            blury.set_estimate(z, 0, 12);
            output.set_estimates({{0, EST_W}, {0, EST_H}});
            return;
        }
        if (check) { // the grid whole at each step
            histogram.compute_root();
            blurz.compute_root();
            blurx.compute_root();
            blury.compute_root();
            return;
        }
        if (!gpu) { // Halide's CPU schedule of the app
            blurz.compute_at(blurx, y).reorder(c, z, x, y).vectorize(x, 8).unroll(c);
            histogram.compute_at(blurz, y);
            histogram.update().reorder(c, r.x, r.y, x, y).unroll(c);
            blurx.compute_root().reorder(c, x, z, y).parallel(y).vectorize(x, 8).unroll(c);
            blury.compute_at(output, y).store_in(MemoryType::Stack).reorder(c, x, y, z).reorder_storage(c, z, x, y)
                .vectorize(x, 8).unroll(c);
            output.compute_root().parallel(y, 8).vectorize(x, 8);
            return;
        }
        // Halide's GPU schedule of the app: the histogram of 8 x 8 cells in
        // shared memory and their z blur one kernel, each blur across a kernel,
        // the interpolation per output pixel
        Var zi("zi");
        blurz.compute_root().reorder(c, z, x, y).gpu_tile(x, y, xi, yi, 8, 8);
        histogram.reorder(c, z, x, y).compute_at(blurz, x).gpu_threads(x, y);
        histogram.update().reorder(c, r.x, r.y, x, y).gpu_threads(x, y).unroll(c);
        blurx.compute_root().reorder(c, x, y, z).reorder_storage(c, x, y, z).vectorize(c).unroll(y, 2, TailStrategy::RoundUp)
            .gpu_tile(x, y, z, xi, yi, zi, 32, 8, 1, TailStrategy::RoundUp);
        blury.compute_root().reorder(c, x, y, z).reorder_storage(c, x, y, z).vectorize(c).unroll(y, 2, TailStrategy::RoundUp)
            .gpu_tile(x, y, z, xi, yi, zi, 32, 8, 1, TailStrategy::RoundUp);
        output.compute_root().gpu_tile(x, y, xi, yi, 32, 8);
        interpolated.compute_at(output, xi).vectorize(c);
    }

private:
    Var z{"z"};
    Func histogram{"histogram"}, blurz{"blurz"}, blurx{"blurx"}, blury{"blury"}, interpolated{"interpolated"};
    RDom r;
};

// pyramid_blending.pc: PolyMage's pyramid_blending (4 levels) with each
// level of its own size, its edge repeated: Gaussian pyramids of two RGB
// images and a mask by [1 4 6 4 1] / 16 with 2x downsampling, Laplacian
// levels (less the level below expanded: (1, 6, 1) / 8 at even indices,
// (4, 4) / 8 at odd ones), blended by the mask's level, collapsed. Input:
// 7 planes (a: 0-2, b: 3-5, the mask: 6).
class PyramidBlending : public Generator<PyramidBlending> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    GeneratorParam<int> levels{"levels", 4};
    Input<Buffer<float, 3>> input{"input"};
    Output<Buffer<float, 3>> output{"output"};

    void generate()
    {
        const int L = levels;
        w.resize(L);
        h.resize(L);
        w[0] = input.width();
        h[0] = input.height();
        for (int l = 1; l < L; l++) {
            w[l] = (w[l - 1] + 1) / 2;
            h[l] = (h[l - 1] + 1) / 2;
        }
        for (int l = 0; l < L; l++) {
            gA.emplace_back("gA_" + std::to_string(l));
            gB.emplace_back("gB_" + std::to_string(l));
            gM.emplace_back("gM_" + std::to_string(l));
            O.emplace_back("O_" + std::to_string(l));
        }
        gA[0](x, y, c) = input(x, y, c);
        gB[0](x, y, c) = input(x, y, c + 3);
        gM[0](x, y, c) = input(x, y, 6);
        for (int l = 1; l < L; l++) {
            gA[l](x, y, c) = down(gA[l - 1], l - 1);
            gB[l](x, y, c) = down(gB[l - 1], l - 1);
            gM[l](x, y, c) = down(gM[l - 1], l - 1);
        }
        const int T = L - 1;
        O[T](x, y, c) = gA[T](x, y, c) * gM[T](x, y, 0) + gB[T](x, y, c) * (1.0f - gM[T](x, y, 0));
        for (int l = T - 1; l >= 0; l--) {
            Expr m = gM[l](x, y, 0);
            O[l](x, y, c) = up(O[l + 1], l + 1) + ((gA[l](x, y, c) - up(gA[l + 1], l + 1)) * m +
                                                   (gB[l](x, y, c) - up(gB[l + 1], l + 1)) * (1.0f - m));
        }
        output(x, y, c) = O[0](x, y, c);
    }

    void schedule()
    {
        const int L = levels;
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W}, {0, EST_H}, {0, 7}});
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        if (check) { // every level whole
            for (int l = 1; l < L; l++) {
                gA[l].compute_root();
                gB[l].compute_root();
                gM[l].compute_root();
                O[l].compute_root();
            }
            return;
        }
        if (!gpu) { // each level whole, rows over the cores, vectors along x
            for (int l = 1; l < L; l++)
                for (Func f : {gA[l], gB[l], gM[l], O[l]})
                    f.compute_root().parallel(y, 8).vectorize(x, 8, TailStrategy::GuardWithIf);
            output.parallel(y, 8).vectorize(x, 8, TailStrategy::GuardWithIf);
            return;
        }
        // a kernel per level of each pyramid and of the collapse, the three
        // colours of a pixel by one thread (in the manner of local_laplacian's)
        output.reorder(c, x, y).bound(c, 0, 3).unroll(c).gpu_tile(x, y, xi, yi, 16, 8, TailStrategy::GuardWithIf);
        for (int l = 1; l < L; l++) {
            gA[l].compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xi, yi, 16, 8, TailStrategy::GuardWithIf);
            gB[l].compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xi, yi, 16, 8, TailStrategy::GuardWithIf);
            gM[l].compute_root().bound(c, 0, 1).gpu_tile(x, y, xi, yi, 16, 8, TailStrategy::GuardWithIf);
            O[l].compute_root().bound(c, 0, 3).reorder(c, x, y).unroll(c).gpu_tile(x, y, xi, yi, 16, 8, TailStrategy::GuardWithIf);
        }
    }

private:
    std::vector<Expr> w, h;
    std::vector<Func> gA, gB, gM, O;

    // level j of f at (xx, yy), its edge repeated
    Expr at(Func f, int j, Expr xx, Expr yy) { return f(clamp(xx, 0, w[j] - 1), clamp(yy, 0, h[j] - 1), c); }

    // [1 4 6 4 1] along x of five rows, then along y, every other pixel of level j of f
    Expr down(Func f, int j)
    {
        const float t[5] = {1, 4, 6, 4, 1};
        Expr s = 0.0f;
        for (int jj = 0; jj < 5; jj++) {
            Expr row = 0.0f;
            for (int i = 0; i < 5; i++) row = row + t[i] * at(f, j, 2 * x - 2 + i, 2 * y - 2 + jj);
            s = s + t[jj] * row;
        }
        return s / 256.0f;
    }

    // level j of f expanded to the level above: along y, then along x
    Expr up(Func f, int j)
    {
        Expr ox = x % 2 == 1, oy = y % 2 == 1, ix = x / 2, iy = y / 2;
        Expr cx[3] = {ix - 1 + select(ox, 1, 0), ix + select(ox, 1, 0), ix + 1};
        Expr cy[3] = {iy - 1 + select(oy, 1, 0), iy + select(oy, 1, 0), iy + 1};
        Expr wx[3] = {select(ox, 0.5f, 0.125f), select(ox, 0.5f, 0.75f), select(ox, 0.0f, 0.125f)};
        Expr wy[3] = {select(oy, 0.5f, 0.125f), select(oy, 0.5f, 0.75f), select(oy, 0.0f, 0.125f)};
        Expr s = 0.0f;
        for (int a = 0; a < 3; a++) {
            Expr col = wy[0] * at(f, j, cx[a], cy[0]) + wy[1] * at(f, j, cx[a], cy[1]) + wy[2] * at(f, j, cx[a], cy[2]);
            s = s + wx[a] * col;
        }
        return s;
    }
};

} // namespace

// camera_pipe.pc: Halide's camera_pipe (FCam's raw pipeline): hot pixels
// clamped to the largest same-colour neighbour at distance 2, the GRBG mosaic
// split into its four colours at half resolution, demosaiced (green by the
// direction of the smaller difference, red and blue corrected by green's
// error, the diagonals by the smaller difference), in wrapping 16-bit
// arithmetic read as signed; a Q8.8 colour matrix interpolated by inverse
// colour temperature; a 1024-entry tone curve; the [1 2 1] unsharp mask times
// the strength in 1/32. Output (x, y) is raw pixel (x + 16, y + 12), the
// output 32 columns and 24 rows smaller than the raw image. The schedules are
// the app's: on the GPU 28 x 12 tiles computing every stage per tile; on the
// CPU strips of 32 rows with the stencil stages stored folded per strip.
class CameraPipe : public Generator<CameraPipe> {
public:
    GeneratorParam<bool> gpu{"gpu", true};
    GeneratorParam<bool> check{"check", false}; // the default schedule, for checking the algorithm on the host
    Input<Buffer<uint16_t, 2>> input{"input"};
    Input<Buffer<float, 2>> matrix_3200{"matrix_3200"}, matrix_7000{"matrix_7000"};
    Input<float> color_temp{"color_temp"}, gamma{"gamma"}, contrast{"contrast"}, sharpen_strength{"sharpen_strength"};
    Input<int> black_level{"black_level"}, white_level{"white_level"};
    Output<Buffer<uint8_t, 3>> output{"output"};

    // the mean of two unsigned values, rounded up, in their own type
    static Expr mean_up(Expr a, Expr b)
    {
        return cast(a.type(), (cast(a.type().with_bits(a.type().bits() * 2), a) + b + 1) / 2);
    }

    void generate()
    {
        Func raw("raw");
        raw(x, y) = input(x + 16, y + 12);
        denoised(x, y) = min(raw(x, y), max(max(raw(x - 2, y), raw(x + 2, y)), max(raw(x, y - 2), raw(x, y + 2))));
        deinterleaved(x, y, c) = mux(c, {denoised(2 * x, 2 * y), denoised(2 * x + 1, 2 * y), denoised(2 * x, 2 * y + 1),
                                         denoised(2 * x + 1, 2 * y + 1)});
        Func gr("gr"), rr("rr"), bb("bb"), gb("gb");
        gr(x, y) = deinterleaved(x, y, 0);
        rr(x, y) = deinterleaved(x, y, 1);
        bb(x, y) = deinterleaved(x, y, 2);
        gb(x, y) = deinterleaved(x, y, 3);
        // green at red sites (across: gr's, down: gb's) and at blue sites, by the smaller difference
        g_r(x, y) = select(absd(gr(x + 1, y), gr(x, y)) < absd(gb(x, y - 1), gb(x, y)), mean_up(gr(x + 1, y), gr(x, y)),
                           mean_up(gb(x, y - 1), gb(x, y)));
        g_b(x, y) = select(absd(gb(x - 1, y), gb(x, y)) < absd(gr(x, y + 1), gr(x, y)), mean_up(gb(x - 1, y), gb(x, y)),
                           mean_up(gr(x, y + 1), gr(x, y)));
        // a colour at a site from two neighbours, corrected by green's error there
        auto corrected_at = [](Expr green, Expr g0, Expr g1, Expr v0, Expr v1) {
            return green - mean_up(g0, g1) + mean_up(v0, v1);
        };
        Func r_gr, b_gr, r_gb, b_gb, r_b, b_r;
        r_gr(x, y) = corrected_at(gr(x, y), g_r(x, y), g_r(x - 1, y), rr(x, y), rr(x - 1, y));
        b_gr(x, y) = corrected_at(gr(x, y), g_b(x, y), g_b(x, y - 1), bb(x, y), bb(x, y - 1));
        r_gb(x, y) = corrected_at(gb(x, y), g_r(x, y), g_r(x, y + 1), rr(x, y), rr(x, y + 1));
        b_gb(x, y) = corrected_at(gb(x, y), g_b(x, y), g_b(x + 1, y), bb(x, y), bb(x + 1, y));
        r_b(x, y) = select(absd(rr(x, y), rr(x - 1, y + 1)) < absd(rr(x - 1, y), rr(x, y + 1)),
                           corrected_at(g_b(x, y), g_r(x, y), g_r(x - 1, y + 1), rr(x, y), rr(x - 1, y + 1)),
                           corrected_at(g_b(x, y), g_r(x - 1, y), g_r(x, y + 1), rr(x - 1, y), rr(x, y + 1)));
        b_r(x, y) = select(absd(bb(x, y), bb(x + 1, y - 1)) < absd(bb(x + 1, y), bb(x, y - 1)),
                           corrected_at(g_r(x, y), g_b(x, y), g_b(x + 1, y - 1), bb(x, y), bb(x + 1, y - 1)),
                           corrected_at(g_r(x, y), g_b(x + 1, y), g_b(x, y - 1), bb(x + 1, y), bb(x, y - 1)));
        // the 2 x 2 block's pixels: even row (even, odd column), odd row
        auto block = [](Func ee, Func eo, Func oe, Func oo) {
            return select(y % 2 == 0, select(x % 2 == 0, ee(x / 2, y / 2), eo(x / 2, y / 2)),
                          select(x % 2 == 0, oe(x / 2, y / 2), oo(x / 2, y / 2)));
        };
        demosaiced(x, y, c) = cast<int16_t>(mux(c, {block(r_gr, rr, r_b, r_gb), block(gr, g_r, g_b, gb),
                                                    block(b_gr, b_r, bb, b_gb)}));

        Expr alpha = (1.0f / color_temp - 1.0f / 3200) / (1.0f / 7000 - 1.0f / 3200);
        matrix(x, y) = cast<int16_t>((matrix_3200(x, y) * alpha + matrix_7000(x, y) * (1 - alpha)) * 256.0f);
        std::vector<Expr> rgb;
        for (int k = 0; k < 3; k++)
            rgb.push_back(cast<int16_t>((matrix(3, k) + matrix(0, k) * cast<int32_t>(demosaiced(x, y, 0)) +
                                         matrix(1, k) * cast<int32_t>(demosaiced(x, y, 1)) +
                                         matrix(2, k) * cast<int32_t>(demosaiced(x, y, 2))) / 256));
        corrected(x, y, c) = mux(c, rgb);

        Expr inv_range = 1.0f / (white_level - black_level);
        Expr cb = 2.0f - pow(2.0f, contrast / 100.0f), ca = 2.0f - 2.0f * cb;
        Expr xf = clamp(cast<float>(x - black_level) * inv_range, 0.0f, 1.0f);
        Expr g = pow(xf, 1.0f / gamma);
        Expr z = select(g > 0.5f, 1.0f - (ca * (1.0f - g) * (1.0f - g) + cb * (1.0f - g)), ca * g * g + cb * g);
        Expr v = cast<uint8_t>(clamp(z * 255.0f + 0.5f, 0.0f, 255.0f));
        curve(x) = select(x <= black_level, cast<uint8_t>(0), select(x > white_level, cast<uint8_t>(255), v));
        curved(x, y, c) = curve(clamp(corrected(x, y, c), 0, 1023));

        strength_x32() = saturating_cast<uint8_t>(sharpen_strength * 32);
        Func unsharp_y("unsharp_y"), unsharp("unsharp");
        unsharp_y(x, y, c) = mean_up(mean_up(curved(x, y - 1, c), curved(x, y + 1, c)), curved(x, y, c));
        unsharp(x, y, c) = mean_up(mean_up(unsharp_y(x - 1, y, c), unsharp_y(x + 1, y, c)), unsharp_y(x, y, c));
        Expr mask = cast<int16_t>(curved(x, y, c)) - cast<int16_t>(unsharp(x, y, c));
        output(x, y, c) = saturating_cast<uint8_t>(curved(x, y, c) + (mask * strength_x32()) / 32);
    }

    void schedule()
    {
        if (AUTOSCHEDULED) {
            input.set_estimates({{0, EST_W + 32}, {0, EST_H + 24}});
            matrix_3200.set_estimates({{0, 4}, {0, 3}});
            matrix_7000.set_estimates({{0, 4}, {0, 3}});
            color_temp.set_estimate(3700);
            gamma.set_estimate(2.0f);
            contrast.set_estimate(50);
            sharpen_strength.set_estimate(1.0f);
            black_level.set_estimate(25);
            white_level.set_estimate(1023);
            output.set_estimates({{0, EST_W}, {0, EST_H}, {0, 3}});
            return;
        }
        matrix.compute_root();
        curve.compute_root();
        strength_x32.compute_root();
        if (check) return;
        output.bound(c, 0, 3);
        if (!gpu) { // the app's CPU schedule: strips of 32 rows over the cores, vectors of 2 x 16 16-bit values
            const int vec = natural_vector_size<uint16_t>(), strip = 32;
            Var yii("yii");
            output.bound(x, 0, (output.width() / (2 * vec)) * (2 * vec)).bound(y, 0, (output.height() / strip) * strip);
            output.reorder(c, x, y).split(y, yi, yii, 2, TailStrategy::RoundUp).split(yi, yo, yi, strip / 2)
                .vectorize(x, 2 * vec, TailStrategy::RoundUp).unroll(c).parallel(yo);
            denoised.compute_at(output, yi).store_at(output, yo).prefetch(input, y, y, 2).fold_storage(y, 4)
                .tile(x, y, x, y, xi, yi, 2 * vec, 2).vectorize(xi).unroll(yi);
            deinterleaved.compute_at(output, yi).store_at(output, yo).fold_storage(y, 4).reorder(c, x, y)
                .vectorize(x, 2 * vec, TailStrategy::RoundUp).unroll(c);
            curved.compute_at(output, yi).store_at(output, yo).reorder(c, x, y)
                .tile(x, y, x, y, xi, yi, 2 * vec, 2, TailStrategy::RoundUp).vectorize(xi).unroll(yi).unroll(c);
            corrected.compute_at(curved, x).reorder(c, x, y).vectorize(x).unroll(c);
            g_r.compute_at(output, yi).store_at(output, yo).vectorize(x, 2 * vec, TailStrategy::RoundUp).fold_storage(y, 4);
            g_b.compute_at(output, yi).store_at(output, yo).vectorize(x, 2 * vec, TailStrategy::RoundUp).fold_storage(y, 4);
            g_b.compute_with(g_r, x, {{x, LoopAlignStrategy::AlignStart}, {y, LoopAlignStrategy::AlignStart}});
            demosaiced.compute_at(curved, x).vectorize(x).unroll(y).reorder(c, x, y).unroll(c);
            return;
        }
        // the app's GPU schedule: 28 x 12 tiles of pairs of columns, every stage computed per tile
        output.bound(x, 0, (output.width() / 2) * 2).bound(y, 0, (output.height() / 2) * 2);
        matrix.gpu_single_thread();
        strength_x32.gpu_single_thread();
        curve.gpu_tile(x, xi, 32);
        output.reorder(c, x, y).unroll(x, 2).gpu_tile(x, y, xi, yi, 28, 12);
        curved.compute_at(output, x).unroll(x, 2).gpu_threads(x, y);
        corrected.compute_at(output, x).unroll(x, 2).gpu_threads(x, y);
        demosaiced.compute_at(output, x).unroll(x, 2).gpu_threads(x, y).reorder(c, x, y).unroll(c);
        g_r.compute_at(output, x).gpu_threads(x, y);
        g_b.compute_at(output, x).gpu_threads(x, y);
        denoised.compute_at(output, x).tile(x, y, xi, yi, 2, 2).unroll(xi).unroll(yi).gpu_threads(x, y);
        deinterleaved.compute_at(output, x).unroll(x, 2).gpu_threads(x, y).reorder(c, x, y).unroll(c);
    }

private:
    Func denoised{"denoised"}, deinterleaved{"deinterleaved"}, g_r{"g_r"}, g_b{"g_b"}, demosaiced{"demosaiced"};
    Func matrix{"matrix"}, corrected{"corrected"}, curve{"curve"}, curved{"curved"}, strength_x32{"strength_x32"};
};

HALIDE_REGISTER_GENERATOR(Harris, suite_harris)
HALIDE_REGISTER_GENERATOR(StencilChain, suite_stencil_chain)
HALIDE_REGISTER_GENERATOR(Hist, suite_hist)
HALIDE_REGISTER_GENERATOR(MaxFilter, suite_max_filter)
HALIDE_REGISTER_GENERATOR(NlMeans, suite_nl_means)
HALIDE_REGISTER_GENERATOR(Interpolate, suite_interpolate)
HALIDE_REGISTER_GENERATOR(LocalLaplacian, suite_local_laplacian)
HALIDE_REGISTER_GENERATOR(BilateralGrid, suite_bilateral_grid)
HALIDE_REGISTER_GENERATOR(PyramidBlending, suite_pyramid_blending)
HALIDE_REGISTER_GENERATOR(CameraPipe, suite_camera_pipe)
