// The paper's GPU fill (method "seeds") and the GPU half of its CPU+GPU
// method ("hybrid").
//
// seeds: one thread per seed runs the scanline fill of the CPU method
// (fill_seeds.c) with 16-bit labels claimed by atomicCAS, a fixed stack of
// 16 runs and a fixed neighbour stack of 8 labels per thread, as the paper
// sized them. A full stack never loses work: a run that does not fit goes
// to a global overflow list that the next round takes as its seeds, and
// should that list fill up too, a repair pass re-seeds every unfilled
// pixel next to a filled one, until none is left. Neighbour pairs that do
// not fit go to a global list; if that fills up, a pass over the image
// joins every pair of adjacent labels. Union-find runs on the device (the
// paper ran it on the CPU): a parent per label, the smaller root wins.
#include <cuda_runtime.h>

#include <stdlib.h>
#include <vector>

#include "cuda/cuda_check.h"
#include "core/device_internal.h"
#include "fill/fill_seeds.h"
#include "fill_cuda.cuh"

namespace fillk {
namespace {

constexpr uint16_t CONTOUR = 0xffff;
constexpr int STACK = 16;       // runs per thread, as the paper's seed stack
constexpr int PAIRS = 8;        // neighbour labels per thread, as the paper's
constexpr uint32_t SPILL_CAP = 1u << 20;
constexpr uint32_t PAIR_CAP = 1u << 20;

struct seed_run {
    int32_t y, z, x0, x1;
    uint32_t label;
};

struct rows_d {
    int n;
    int8_t dy[8], dz[8], grow[8];
};

struct lists {
    seed_run *spill;
    uint32_t *spill_count; // [0] entries wanted, [1] some dropped
    uint32_t *pairs;       // (a << 16) | b
    uint32_t *pair_count;  // [0] entries wanted, [1] some lost
    uint16_t *thread_pairs;
    uint8_t *thread_npairs;
};

struct dims {
    int w, h, d;
};

__global__ void labels_kernel(view v, uint32_t thr, uint16_t *L)
{
    const int64_t n = (int64_t)v.w * v.h * v.d;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const int x = (int)(i % v.w), y = (int)((i / v.w) % v.h), z = (int)(i / ((int64_t)v.w * v.h));
        L[i] = in_at(v, x, y, z) >= thr ? CONTOUR : 0;
    }
}

struct filler {
    uint16_t *L;
    dims g;
    rows_d rows;
    lists li;
    uint16_t label;
    int k; // the thread's slot for neighbour labels
    seed_run stack[STACK];
    int sp;
    uint8_t np;
    uint16_t last;

    __device__ void record(uint16_t v)
    {
        if (v == label || v == 0 || v == CONTOUR || v == last) return;
        last = v;
        if (np < PAIRS) {
            li.thread_pairs[(size_t)k * PAIRS + np++] = v;
            return;
        }
        const uint32_t at = atomicAdd(&li.pair_count[0], 1u);
        if (at < PAIR_CAP) li.pairs[at] = (uint32_t)label << 16 | v;
        else atomicOr(&li.pair_count[1], 1u);
    }

    __device__ void push(int y, int z, int x0, int x1)
    {
        if (sp < STACK) {
            stack[sp++] = seed_run{y, z, x0, x1, label};
            return;
        }
        const uint32_t at = atomicAdd(&li.spill_count[0], 1u);
        if (at < SPILL_CAP) li.spill[at] = seed_run{y, z, x0, x1, label};
        else atomicOr(&li.spill_count[1], 1u);
    }

    // claim L[i] when it is 0; otherwise record what is there
    __device__ bool take(volatile uint16_t *p)
    {
        uint16_t v = *p;
        if (v == 0) {
            v = atomicCAS((unsigned short *)p, (unsigned short)0, (unsigned short)label);
            if (v == 0) return true;
        }
        record(v);
        return false;
    }

    __device__ void run(seed_run first)
    {
        sp = 0;
        push(first.y, first.z, first.x0, first.x1);
        while (sp > 0) {
            const seed_run r = stack[--sp];
            volatile uint16_t *row = L + ((int64_t)r.z * g.h + r.y) * g.w;
            for (int x = r.x0; x <= r.x1; x++) {
                if (!take(row + x)) continue;
                int l = x, e = x;
                while (l > 0 && take(row + l - 1)) l--;
                while (e < g.w - 1 && take(row + e + 1)) e++;
                for (int q = 0; q < rows.n; q++) {
                    const int ny = r.y + rows.dy[q], nz = r.z + rows.dz[q];
                    if (ny < 0 || ny >= g.h || nz < 0 || nz >= g.d) continue;
                    volatile uint16_t *n = L + ((int64_t)nz * g.h + ny) * g.w;
                    const int a = max(l - rows.grow[q], 0), b = min(e + rows.grow[q], g.w - 1);
                    for (int i = a; i <= b; i++) {
                        const uint16_t v = n[i];
                        if (v != 0) {
                            record(v);
                            continue;
                        }
                        const int j = i;
                        while (i < b && n[i + 1] == 0) i++;
                        push(ny, nz, j, i);
                    }
                }
                x = e;
            }
        }
    }
};

__global__ void fill_kernel(uint16_t *L, dims g, rows_d rows, lists li, const seed_run *seeds, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    filler f;
    f.L = L;
    f.g = g;
    f.rows = rows;
    f.li = li;
    f.label = (uint16_t)seeds[k].label;
    f.k = k;
    f.np = 0;
    f.last = 0;
    f.run(seeds[k]);
    li.thread_npairs[k] = f.np;
}

// Every unfilled background pixel next to a filled one becomes a seed of
// that label (only after runs were dropped).
__global__ void repair_kernel(const uint16_t *L, dims g, rows_d rows, lists li)
{
    const int64_t n = (int64_t)g.w * g.h * g.d;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        if (L[i] != 0) continue;
        const int x = (int)(i % g.w), y = (int)((i / g.w) % g.h), z = (int)(i / ((int64_t)g.w * g.h));
        uint16_t found = 0;
        if (x > 0 && L[i - 1] != 0 && L[i - 1] != CONTOUR) found = L[i - 1];
        if (x < g.w - 1 && L[i + 1] != 0 && L[i + 1] != CONTOUR) found = L[i + 1];
        for (int q = 0; q < rows.n && !found; q++) {
            const int ny = y + rows.dy[q], nz = z + rows.dz[q];
            if (ny < 0 || ny >= g.h || nz < 0 || nz >= g.d) continue;
            const uint16_t *row = L + ((int64_t)nz * g.h + ny) * g.w;
            for (int xx = max(x - rows.grow[q], 0); xx <= min(x + rows.grow[q], g.w - 1) && !found; xx++)
                if (row[xx] != 0 && row[xx] != CONTOUR) found = row[xx];
        }
        if (!found) continue;
        const uint32_t at = atomicAdd(&li.spill_count[0], 1u);
        if (at < SPILL_CAP) li.spill[at] = seed_run{y, z, x, x, found};
        else atomicOr(&li.spill_count[1], 1u);
    }
}


__global__ void unite_thread_pairs(uint32_t *P, lists li, const seed_run *seeds, int n)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= (int64_t)n * PAIRS) return;
    const int k = (int)(i / PAIRS), slot = (int)(i % PAIRS);
    if (slot >= li.thread_npairs[k]) return;
    unite(P, seeds[k].label, li.thread_pairs[i]);
}

__global__ void unite_list_pairs(uint32_t *P, const uint32_t *pairs, const uint32_t *count)
{
    const uint32_t n = min(count[0], PAIR_CAP);
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        unite(P, pairs[i] >> 16, pairs[i] & 0xffffu);
}

// After pairs were lost: join every two adjacent labels.
__global__ void unite_all_adjacent(uint32_t *P, const uint16_t *L, dims g, rows_d rows)
{
    const int64_t n = (int64_t)g.w * g.h * g.d;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        const uint16_t a = L[i];
        if (a == 0 || a == CONTOUR) continue;
        const int x = (int)(i % g.w), y = (int)((i / g.w) % g.h), z = (int)(i / ((int64_t)g.w * g.h));
        if (x > 0 && L[i - 1] != a && L[i - 1] != 0 && L[i - 1] != CONTOUR) unite(P, a, L[i - 1]);
        for (int q = 0; q < rows.n; q++) {
            const int ny = y + rows.dy[q], nz = z + rows.dz[q];
            if (ny < 0 || ny >= g.h || nz < 0 || nz >= g.d) continue;
            const uint16_t *row = L + ((int64_t)nz * g.h + ny) * g.w;
            for (int xx = max(x - rows.grow[q], 0); xx <= min(x + rows.grow[q], g.w - 1); xx++)
                if (row[xx] != a && row[xx] != 0 && row[xx] != CONTOUR) unite(P, a, row[xx]);
        }
    }
}

__global__ void init_parents(uint32_t *P)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 65536) P[i] = i;
}

__global__ void outside_table(const uint32_t *P, uint8_t *outside)
{
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 65536) outside[i] = i > 0 && i != CONTOUR && find_root(P, i) == 1;
}

// The paper's "invert": labels to output values.
__global__ void labels_to_output(view v, rule r, const uint16_t *L, const uint8_t *outside)
{
    const int64_t rows = (int64_t)v.h * v.d;
    for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        const int z = (int)(row / v.h), y = (int)(row % v.h);
        for (int x = blockIdx.x * blockDim.x + threadIdx.x; x < v.w; x += gridDim.x * blockDim.x) {
            const uint16_t l = L[row * v.w + x];
            const int cls = l == CONTOUR ? 2 : outside[l];
            const uint32_t value = cls == 2 && r.contour == PARAC_FILL_CONTOUR_KEEP ? in_at(v, x, y, z) : 0;
            out_put(v, r, x, y, z, cls, value);
        }
    }
}

rows_d rows_of(const parac__fill_geom &g)
{
    rows_d r{};
    r.n = g.n_rows;
    for (int i = 0; i < g.n_rows; i++) {
        r.dy[i] = (int8_t)g.rows[i].dy;
        r.dz[i] = (int8_t)g.rows[i].dz;
        r.grow[i] = (int8_t)g.rows[i].grow;
    }
    return r;
}

dim3 output_grid(const parac__fill_geom &g)
{
    const int64_t rows = g.h * g.d;
    return dim3((unsigned)((g.w + 255) / 256 < 8 ? (g.w + 255) / 256 : 8), (unsigned)(rows < 65535 ? rows : 65535));
}

// Device memory released when the method returns (after a sync).
struct pool {
    int dev;
    std::vector<std::pair<void *, size_t>> held;
    ~pool()
    {
        for (auto &h : held) parac__cuda_release(dev, h.first, h.second);
    }
    template <typename T> parac_status get(T **p, size_t count)
    {
        void *v = nullptr;
        PARAC_TRY(parac__cuda_alloc(dev, count * sizeof(T), &v));
        held.push_back({v, count * sizeof(T)});
        *p = (T *)v;
        return PARAC_OK;
    }
};

parac_status seeds_run(const parac__fill_spec *s, const parac_image *in, parac_image *out, cudaStream_t st,
                       pool &mem)
{
    parac__fill_geom g;
    PARAC_TRY(parac__fill_geometry(s, in, &g));
    const int64_t n_inner = s->seeds > 0 ? s->seeds : 32768;
    if (n_inner > PARAC__FILL_MAX_SEEDS)
        return parac__fail(PARAC_ERR_INVALID_ARGUMENT, "%s: at most %d inner seeds (16-bit labels), got %lld",
                           s->op, PARAC__FILL_MAX_SEEDS, (long long)n_inner);
    const int64_t n = g.w * g.h * g.d;
    const dims gd{(int)g.w, (int)g.h, (int)g.d};
    const rows_d rows = rows_of(g);
    // the seeds: border runs with label 1, then the inner seeds
    parac__fill_run *border = nullptr;
    int64_t n_border = 0;
    PARAC_TRY(parac__fill_border_runs(&g, &border, &n_border));
    std::vector<seed_run> seeds((size_t)(n_border + n_inner));
    for (int64_t i = 0; i < n_border; i++)
        seeds[i] = seed_run{border[i].y, border[i].z, border[i].x0, border[i].x1, 1};
    free(border);
    for (int64_t j = 0; j < n_inner; j++) {
        int64_t x, y, z;
        parac__fill_inner_seed(&g, j, n_inner, &x, &y, &z);
        seeds[n_border + j] = seed_run{(int32_t)y, (int32_t)z, (int32_t)x, (int32_t)x, (uint32_t)(j + 2)};
    }
    const int64_t max_threads = (int64_t)seeds.size() > SPILL_CAP ? (int64_t)seeds.size() : SPILL_CAP;
    uint16_t *L;
    seed_run *seed_d, *spill;
    uint32_t *counts, *pairs, *P;
    uint16_t *tpairs;
    uint8_t *tnp, *outside;
    PARAC_TRY(mem.get(&L, (size_t)n));
    PARAC_TRY(mem.get(&seed_d, (size_t)max_threads));
    PARAC_TRY(mem.get(&spill, SPILL_CAP));
    PARAC_TRY(mem.get(&counts, 4));
    PARAC_TRY(mem.get(&pairs, PAIR_CAP));
    PARAC_TRY(mem.get(&tpairs, (size_t)max_threads * PAIRS));
    PARAC_TRY(mem.get(&tnp, (size_t)max_threads));
    PARAC_TRY(mem.get(&P, 65536));
    PARAC_TRY(mem.get(&outside, 65536));
    const lists li{spill, counts, pairs, counts + 2, tpairs, tnp};
    const view v = make_view(in, out);
    labels_kernel<<<2048, 256, 0, st>>>(v, s->threshold, L);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    init_parents<<<256, 256, 0, st>>>(P);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    PARAC_CUDA_TRY(cudaMemsetAsync(counts, 0, 4 * sizeof(uint32_t), st));
    PARAC_CUDA_TRY(cudaMemcpyAsync(seed_d, seeds.data(), seeds.size() * sizeof(seed_run), cudaMemcpyHostToDevice, st));
    // rounds: fill from the seeds, then from the runs that did not fit the
    // stacks; after runs were dropped, a repair pass seeds the frontier
    int64_t count = (int64_t)seeds.size();
    bool need_repair = false;
    for (;;) {
        if (count > 0) {
            fill_kernel<<<(unsigned)((count + 63) / 64), 64, 0, st>>>(L, gd, rows, li, seed_d, (int)count);
            PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
            unite_thread_pairs<<<(unsigned)((count * PAIRS + 255) / 256), 256, 0, st>>>(P, li, seed_d, (int)count);
            PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
        }
        uint32_t c[2];
        PARAC_CUDA_TRY(cudaMemcpyAsync(c, counts, sizeof c, cudaMemcpyDeviceToHost, st));
        PARAC_CUDA_TRY(cudaStreamSynchronize(st));
        if (c[1]) need_repair = true;
        if (c[0] == 0) {
            if (!need_repair) break;
            need_repair = false;
            PARAC_CUDA_TRY(cudaMemsetAsync(counts, 0, 2 * sizeof(uint32_t), st));
            repair_kernel<<<2048, 256, 0, st>>>(L, gd, rows, li);
            PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
            PARAC_CUDA_TRY(cudaMemcpyAsync(c, counts, sizeof c, cudaMemcpyDeviceToHost, st));
            PARAC_CUDA_TRY(cudaStreamSynchronize(st));
            if (c[1]) need_repair = true;
            if (c[0] == 0) break; // no unfilled pixel touches a filled one: complete
        }
        count = c[0] < SPILL_CAP ? c[0] : SPILL_CAP;
        PARAC_CUDA_TRY(cudaMemcpyAsync(seed_d, spill, (size_t)count * sizeof(seed_run), cudaMemcpyDeviceToDevice, st));
        PARAC_CUDA_TRY(cudaMemsetAsync(counts, 0, 2 * sizeof(uint32_t), st));
    }
    unite_list_pairs<<<256, 256, 0, st>>>(P, pairs, counts + 2);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    uint32_t lost = 0;
    PARAC_CUDA_TRY(cudaMemcpyAsync(&lost, counts + 3, sizeof lost, cudaMemcpyDeviceToHost, st));
    PARAC_CUDA_TRY(cudaStreamSynchronize(st));
    if (lost) {
        unite_all_adjacent<<<2048, 256, 0, st>>>(P, L, gd, rows);
        PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    }
    outside_table<<<256, 256, 0, st>>>(P, outside);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    labels_to_output<<<output_grid(g), 256, 0, st>>>(v, make_rule(s), L, outside);
    PARAC_TRY(PARAC_CUDA_LAUNCH_CHECK());
    return PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
}

} // namespace
} // namespace fillk

using namespace fillk;

extern "C" parac_status parac__fill_seeds_cuda(const parac__fill_spec *s, const parac_image *in, parac_image *out,
                                               void *stream)
{
    pool mem{in->device, {}};
    const parac_status rc = seeds_run(s, in, out, (cudaStream_t)stream, mem);
    if (rc != PARAC_OK) cudaStreamSynchronize((cudaStream_t)stream); // before the buffers go back
    return rc;
}

extern "C" parac_status parac__fill_hybrid(const parac__fill_spec *s, const parac_image *in_host, parac_image *out,
                                           void *stream)
{
    cudaStream_t st = (cudaStream_t)stream;
    parac__fill_geom g;
    PARAC_TRY(parac__fill_geometry(s, in_host, &g));
    const int64_t n = g.w * g.h * g.d;
    std::vector<uint8_t> outside(65536);
    uint16_t *labels = nullptr;
    PARAC_TRY(parac__fill_seeds_labels(s, in_host, nullptr, &labels, outside.data()));
    pool mem{out->device, {}};
    uint16_t *L;
    uint8_t *table;
    parac_image *in_dev = nullptr;
    parac_status rc = mem.get(&L, (size_t)n);
    if (rc == PARAC_OK) rc = mem.get(&table, 65536);
    if (rc == PARAC_OK)
        rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(L, (const void *)labels, (size_t)n * 2, cudaMemcpyHostToDevice, st));
    if (rc == PARAC_OK)
        rc = PARAC_CUDA_CHECK(cudaMemcpyAsync(table, outside.data(), 65536, cudaMemcpyHostToDevice, st));
    // only --contour keep reads the input on the device
    if (rc == PARAC_OK && s->contour == PARAC_FILL_CONTOUR_KEEP)
        rc = parac_image_clone(&in_dev, in_host, PARAC_MEMORY_CUDA, out->device, stream);
    if (rc == PARAC_OK) {
        view v = make_view(in_dev ? in_dev : in_host, out);
        if (!in_dev) v.data = nullptr;
        labels_to_output<<<output_grid(g), 256, 0, st>>>(v, make_rule(s), L, table);
        rc = PARAC_CUDA_LAUNCH_CHECK();
    }
    const parac_status sync = PARAC_CUDA_CHECK(cudaStreamSynchronize(st));
    parac_image_destroy(in_dev);
    free((void *)labels);
    return rc != PARAC_OK ? rc : sync;
}
