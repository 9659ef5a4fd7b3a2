// Halide 14 peers of the ParaC example programs (generators.cpp, compiled
// ahead of time by build.sh): each checked against the plain-C reference
// (examples/<app>_ref.c, as bench_peers.c checks the hand-written peers) on
// odd sizes and on the timed ones, then timed as Halide's own apps time
// themselves: wall clock around the pipeline call and a device sync, the
// input already on the device after the first call (median of --runs, after
// two warm-up calls). Host (CPU schedules, all cores) and CUDA; the manual
// schedules and the autoschedulers' (Li2018 for CUDA, the one of Halide 14's
// three that schedules for GPUs; Adams2019 for the CPU).
//
//   bench_halide [--runs N] [--sizes 1536x2560,4096x4096] [--check 37x61,101x203]
//                [--targets cpu,cuda] [--copy-gbs RATE] [--json FILE]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "HalideBuffer.h"
#include "HalideRuntime.h"

extern "C" {
#include "bench_util.h"
#include "peers/peers_check.h"
}
#include "blur_cpu.h"
#include "blur_cpu_auto.h"
#include "blur_cuda.h"
#include "blur_cuda_auto.h"
#include "blur_cuda_root.h"
#include "gaussian_cpu.h"
#include "gaussian_cpu_auto.h"
#include "gaussian_cuda.h"
#include "gaussian_cuda_auto.h"
#include "gaussian_cuda_root.h"
#include "laplacian_cpu.h"
#include "laplacian_cpu_auto.h"
#include "laplacian_cuda.h"
#include "laplacian_cuda_auto.h"
#include "laplacian_cuda_root.h"
#include "unsharp_cpu.h"
#include "unsharp_cpu_auto.h"
#include "unsharp_cuda.h"
#include "unsharp_cuda_auto.h"
#include "unsharp_cuda_root.h"
#include "sharpening_cpu.h"
#include "sharpening_cpu_auto.h"
#include "sharpening_cuda.h"
#include "sharpening_cuda_auto.h"
#include "sharpening_cuda_root.h"

using Halide::Runtime::Buffer;

namespace {

typedef int (*pipeline)(halide_buffer_t *, halide_buffer_t *);

// schedule: 0 the CPU's, 1 CUDA with the stages fused per tile, 2 CUDA with a
// kernel per stage, 3 CUDA by the Li2018 autoscheduler, 4 the CPU by Adams2019
enum { SCHEDULES = 5 };
bool on_cuda(int schedule) { return schedule >= 1 && schedule <= 3; }

pipeline find(int app, int schedule)
{
    static const pipeline table[4][SCHEDULES] = {
        {blur_cpu, blur_cuda, blur_cuda_root, blur_cuda_auto, blur_cpu_auto},
        {gaussian_cpu, gaussian_cuda, gaussian_cuda_root, gaussian_cuda_auto, gaussian_cpu_auto},
        {unsharp_cpu, unsharp_cuda, unsharp_cuda_root, unsharp_cuda_auto, unsharp_cpu_auto},
        {sharpening_cpu, sharpening_cuda, sharpening_cuda_root, sharpening_cuda_auto, sharpening_cpu_auto}};
    switch (app) {
    case PEER_BLUR: return table[0][schedule];
    case PEER_GAUSSIAN: return table[1][schedule];
    case PEER_UNSHARP: return table[2][schedule];
    case PEER_SHARPENING: return table[3][schedule];
    default: return nullptr; // laplacian: find3
    }
}

// laplacian: input, layer, down
typedef int (*pipeline3)(halide_buffer_t *, halide_buffer_t *, halide_buffer_t *);

pipeline3 find3(int app, int schedule)
{
    static const pipeline3 table[SCHEDULES] = {laplacian_cpu, laplacian_cuda, laplacian_cuda_root, laplacian_cuda_auto,
                                               laplacian_cpu_auto};
    return app == PEER_LAPLACIAN ? table[schedule] : nullptr;
}

const char *const schedule_names[SCHEDULES] = {"halide-cpu", "halide-cuda-fused", "halide-cuda-root",
                                               "halide-cuda-li2018", "halide-cpu-adams2019"};

struct job {
    pipeline fn;
    pipeline3 fn3;
    halide_buffer_t *in, *out, *aux;
    bool cuda;
};

int call(void *user, int)
{
    job *j = static_cast<job *>(user);
    int e = j->fn3 ? j->fn3(j->in, j->out, j->aux) : j->fn(j->in, j->out);
    if (e == 0 && j->cuda) e = halide_device_sync(nullptr, j->out);
    if (e == 0 && j->cuda && j->aux) e = halide_device_sync(nullptr, j->aux);
    return e;
}

struct opts {
    int runs = 20;
    double copy_gbs = 0;
    bool cpu = true, cuda = true;
    FILE *json = nullptr;
};

template <typename TI, typename TO>
int check_and_time(int app, int H, int W, int channels, int schedule, const opts &o)
{
    const bool cuda = on_cuda(schedule), lap = app == PEER_LAPLACIAN;
    // the autoschedulers' tiles shift inwards: images smaller than a tile
    // fail (Halide's bounds error); they are checked on the timed sizes
    if (schedule >= 3 && (H < 512 || W < 512)) return 0;
    size_t in_b, out_b, aux_b;
    peer_sizes(app, H, W, &in_b, &out_b, &aux_b);
    Buffer<TI> in = channels > 1 ? Buffer<TI>(W, H, channels) : Buffer<TI>(W, H);
    Buffer<TO> out = channels > 1 ? Buffer<TO>(W, H, channels) : Buffer<TO>(W, H);
    Buffer<uint8_t> aux = lap ? Buffer<uint8_t>((W + 1) / 2, (H + 1) / 2) : Buffer<uint8_t>();
    std::string want(out_b, '\0'), want_aux(aux_b + 1, '\0');
    peer_fill_random(app, in.data(), in_b); // planar, x innermost: the references' layout
    in.set_host_dirty(); // written through data(): the first CUDA call copies it to the device
    peer_reference(app, H, W, in.data(), &want[0], &want_aux[0]);
    job j{find(app, schedule), find3(app, schedule), in.raw_buffer(), out.raw_buffer(),
          lap ? aux.raw_buffer() : nullptr, cuda};
    int e = call(&j, 0);
    if (e == 0 && cuda) e = out.copy_to_host();
    if (e == 0 && cuda && lap) e = aux.copy_to_host();
    if (e != 0) {
        fprintf(stderr, "bench_halide: %s %dx%d (%s): Halide error %d\n", peer_names[app], H, W, schedule_names[schedule], e);
        return 1;
    }
    if (peer_compare(app, H, W, out.data(), want.data(), out_b)) return 1;
    if (lap && peer_compare(app, H, W, aux.data(), want_aux.data(), aux_b)) return 1;
    if (o.runs <= 0) {
        printf("  %-11s %5dx%-5d  %s matches the reference\n", peer_names[app], H, W, schedule_names[schedule]);
        return 0;
    }
    bench_stats st;
    if (bench_time_cpu(call, &j, 2, o.runs, &st) != 0) {
        fprintf(stderr, "bench_halide: %s %dx%d failed while timed\n", peer_names[app], H, W);
        return 1;
    }
    peer_report(o.json, schedule_names[schedule], app, H, W, st.median_ms, cuda ? o.copy_gbs : 0);
    return 0;
}

int one(int app, int H, int W, void *user)
{
    const opts &o = *static_cast<const opts *>(user);
    if (!find(app, 0) && !find3(app, 0)) return 0;
    for (int schedule = 0; schedule < SCHEDULES; schedule++) {
        if ((on_cuda(schedule) && !o.cuda) || (!on_cuda(schedule) && !o.cpu)) continue;
        const int rc = app == PEER_BLUR        ? check_and_time<uint16_t, uint16_t>(app, H, W, 1, schedule, o)
                       : app == PEER_LAPLACIAN ? check_and_time<uint8_t, int16_t>(app, H, W, 1, schedule, o)
                       : app == PEER_SHARPENING ? check_and_time<uint8_t, uint8_t>(app, H, W, 1, schedule, o)
                                               : check_and_time<float, float>(app, H, W, app == PEER_UNSHARP ? 3 : 1,
                                                                              schedule, o);
        if (rc) return rc;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    opts o;
    const char *sizes = "1536x2560,4096x4096", *check = "37x61,101x203,64x9", *json_path = nullptr;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--runs")) o.runs = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
        else if (!strcmp(argv[i], "--check")) check = argv[i + 1];
        else if (!strcmp(argv[i], "--copy-gbs")) o.copy_gbs = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--json")) json_path = argv[i + 1];
        else if (!strcmp(argv[i], "--targets")) {
            o.cpu = strstr(argv[i + 1], "cpu") != nullptr;
            o.cuda = strstr(argv[i + 1], "cuda") != nullptr;
        } else {
            fprintf(stderr, "bench_halide: unknown option %s\n", argv[i]);
            return 1;
        }
    }
    if (o.runs < 1 || o.runs > 1000) o.runs = 20;
    o.json = json_path ? fopen(json_path, "a") : nullptr;
    printf("Halide 14 peers (blur, gaussian, laplacian, sharpening, unsharp); cpu: all cores, the manual schedule and Adams2019's; "
           "cuda: three schedules (stages fused per tile, a kernel per stage, Li2018's), wall clock with device sync\n");
    int rc = peer_check_then_time(check, sizes, &o.runs, one, &o);
    if (o.json) fclose(o.json);
    return rc;
}
