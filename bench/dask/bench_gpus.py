"""parac on Dask over the GPUs of one host: 1 against 2 (or more) GPU workers
(dask_cuda.LocalCUDACluster, one worker process per GPU), against parac in
process on the same GPUs, and against dask-image on the same cluster.

    python bench/dask/bench_gpus.py [--size 51200] [--chunk 8192] [--gpus 1,2] [--where host,zarr]
                                    [--ops label,fill-holes,h-maxima,gauss] [--peers] [--dir D] [--repeat R]
                                    [--device cuda|cpu] [--profile] [--preload MODULES]

Images (u8 unless said): a mask of blobs with holes (label), the contours of
those blobs (fill-holes: the holes are the blobs' insides), a grey terrain
of domes (h-maxima, h = 20: reconstruction in rounds) and a float32 image
(Gaussian, sigma = 5, halos of 20 px).

- host: the chunks already in the workers' host memory (NumPy, scattered
  before the clock starts); the result persisted there. Best of R after a
  warm-up. "in process": parac on the whole NumPy array (h-maxima on
  cuda:all, the others on one GPU: their in-process calls use one).
- zarr: `parac-dask OP in.zarr out.zarr --scheduler tcp://...` from a new
  process, the stores on local disk; "in process": read whole, compute,
  write whole (one run each).
- peers (--peers): dask-image's gaussian_filter on the same CuPy chunks of
  the same cluster, and its label-based fill of holes on a LocalCluster of
  CPU worker processes (one per core).

Every chunked result is checked against the in-process one chunk by chunk
(a 64-bit digest of each chunk, computed where the chunk is). --device cpu
runs the same with a LocalCluster of CPU worker processes in place of the
GPU workers (to try the script where there is no GPU).
"""
import argparse
import os
import shutil
import subprocess
import sys
import time
import zlib

import numpy as np

H = 20
SIGMA = 5.0


def digest(b):
    """A 64-bit digest of one chunk's bytes (host or CuPy)."""
    if hasattr(b, "get"):
        b = b.get()
    b = np.ascontiguousarray(b)
    try:
        import xxhash

        return xxhash.xxh3_64_intdigest(memoryview(b).cast("B"))
    except ImportError:
        return zlib.crc32(memoryview(b).cast("B"))


def digests_of_dask(x):
    """Each chunk's digest, computed on the worker that holds it: an array of the chunk grid's shape."""
    import dask.array as da

    def one(b):
        return np.full((1,) * b.ndim, digest(b), dtype=np.uint64)

    meta = np.empty((0,) * x.ndim, np.uint64)
    return da.map_blocks(one, x, dtype=np.uint64, chunks=(1,) * x.ndim, meta=meta).compute()


def digests_of_array(a, chunks):
    out = np.zeros(tuple(len(c) for c in chunks), np.uint64)
    starts = [np.concatenate([[0], np.cumsum(c)]) for c in chunks]
    for idx in np.ndindex(out.shape):
        sl = tuple(slice(s[i], s[i + 1]) for s, i in zip(starts, idx))
        out[idx] = digest(a[sl])
    return out


def images(n, seed=1):
    """mask, contours, terrain (u8) and a float32 image of n x n, made on the GPU when there is one."""
    try:
        import cupy as xp
        import cupyx.scipy.ndimage as xndi
    except ImportError:
        import scipy.ndimage as xndi

        xp = np
    get = getattr(xp, "asnumpy", np.asarray)
    r = xp.random.default_rng(seed)
    f = xndi.uniform_filter(r.random((n, n), dtype=xp.float32), 9)
    blobs = f > 0.5
    del f
    mask = get(blobs.astype(xp.uint8) * 255)
    # the blobs' 8-connected outlines: closed curves whose insides are holes
    contours = get((blobs & ~xndi.binary_erosion(blobs, border_value=1)).astype(xp.uint8) * 255)
    del blobs
    y = xp.arange(n, dtype=xp.float32) * xp.float32(40.0 / n)
    grey = ((xp.sin(y * 1.3)[:, None] + xp.cos(y * 0.9)[None, :] + 2.2) * 50
            + r.random((n, n), dtype=xp.float32) * 4).astype(xp.uint8)
    img = get(grey.astype(xp.float32) + r.random((n, n), dtype=xp.float32))
    return {"label": mask, "fill-holes": contours, "h-maxima": get(grey), "gauss": img}


def in_memory(op, a, device, n_gpus):
    import parac

    if op == "label":
        return parac.ndimage.label(a, device=device)[0]
    if op == "fill-holes":
        return parac.ndimage.binary_fill_holes(a, device=device)
    if op == "h-maxima":
        gpus = "cuda:all" if n_gpus > 1 else device
        return parac.morphology.h_maxima(a, H, device=gpus if device != "cpu" else "cpu")
    return parac.ndimage.gaussian_filter(a, SIGMA, device=device, method="separable")


def as_command(op, a, device, n_gpus):
    """`parac OP` on the whole array (the registry's function: what parac-dask's output equals)."""
    import parac

    if op == "label":
        return parac.label(a, device=device)[0]
    if op == "fill-holes":
        return parac.fill_holes(a, device=device)
    if op == "h-maxima":
        return parac.h_maxima(a, h=H, device="cuda:all" if n_gpus > 1 and device != "cpu" else device)
    return parac.gauss(a, sigma=SIGMA, device=device, method="separable")


def chunked(op, d, device):
    """The operation on a Dask array: a list of Dask collections to persist (the image first)."""
    import parac

    if op == "label":
        return list(parac.ndimage.label(d, device=device))
    if op == "fill-holes":
        return [parac.ndimage.binary_fill_holes(d, device=device)]
    if op == "h-maxima":
        return [parac.morphology.h_maxima(d, H, device=device)]
    return [parac.ndimage.gaussian_filter(d, SIGMA, device=device)]


def kind(args):
    return "CPU" if args.device == "cpu" else "GPU"


def report(case, px, t, note=""):
    print("%-72s %9.3f s  %7.3f Gpx/s  %s" % (case, t, px / t / 1e9, note), flush=True)


def best(fn, repeat):
    """The shortest of repeat timed calls of fn after one untimed (one timed
    call, no warm-up, for repeat 0). A call that returns a number has timed
    itself (what it does after its clock stopped, such as releasing its
    results, is not counted)."""
    def once():
        t = time.perf_counter()
        own = fn()
        return own if isinstance(own, float) else time.perf_counter() - t

    if repeat == 0:
        return once()
    once()
    return min(once() for _ in range(repeat))


def timed_then_forget(client, run):
    """A call for best(): run() (persist and settle) timed, its results then
    released outside the clock (forget polls the scheduler)."""
    def call():
        t = time.perf_counter()
        held = [run()]
        dt = time.perf_counter() - t
        forget(client, held)
        return dt
    return call


def _sync_gpu():
    try:
        import cupy

        cupy.cuda.runtime.deviceSynchronize()
    except ImportError:
        pass


def settle(client, futures):
    """Wait for persisted collections and for every worker's GPU (a task returns once its kernels are
    queued: without the synchronisation a CuPy chunk's time would be its launches only); raise the
    error of a task that failed."""
    import distributed

    distributed.wait(futures)
    # wait() returns once every task has ended, failed ones too: a failed run must not count as a fast one
    for f in distributed.futures_of(futures):
        if f.status != "finished":
            f.result()  # raises the task's error
    client.run(_sync_gpu)
    return futures


def forget(client, held):
    """Release the persisted results in the list held (emptied: the caller keeps no reference) and
    wait until the scheduler has dropped them, so that the next run of the same graph computes again
    instead of finding its keys in memory, or its new futures meeting the release of the old ones."""
    import gc

    import dask

    futures = held.pop()
    keys = set()
    for f in futures if isinstance(futures, (list, tuple)) else [futures]:
        keys |= set(dask.core.flatten(f.__dask_keys__()))
    client.cancel(futures)
    del futures
    gc.collect()  # the last references gone: their releases reach the scheduler before the next graph
    t = time.perf_counter()
    while time.perf_counter() - t < 60:
        left = client.run_on_scheduler(lambda dask_scheduler, ks=keys: sum(k in dask_scheduler.tasks for k in ks))
        if not left:
            return
        time.sleep(0.05)


def scatter(client, a, c):
    """a's chunks of c x c scattered over the workers (round robin): a Dask array of them."""
    import dask.array as da

    n0, n1 = a.shape
    rows = []
    for y in range(0, n0, c):
        pieces = [np.ascontiguousarray(a[y:y + c, x:x + c]) for x in range(0, n1, c)]
        futs = client.scatter(pieces)
        rows.append([da.from_delayed(f, p.shape, dtype=a.dtype) for f, p in zip(futs, pieces)])
    return client.persist(da.block(rows))


def start_cluster(k, device, threads):
    import distributed

    if device == "cpu":
        cluster = distributed.LocalCluster(n_workers=k, threads_per_worker=threads, dashboard_address=None,
                                             memory_limit=0)
    else:
        import dask_cuda

        cluster = dask_cuda.LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(str(i) for i in range(k)),
                                             threads_per_worker=threads, dashboard_address=None,
                                             memory_limit=0)
    return cluster, distributed.Client(cluster)


def host_cases(client, k, ims, refs, args):
    import distributed

    px = args.size ** 2
    for op, a in ims.items():
        try:
            d = scatter(client, a, args.chunk)
            distributed.wait(d)

            def run():
                return settle(client, client.persist(chunked(op, d, args.device)))

            t = best(timed_then_forget(client, run), args.repeat)
            if args.profile:
                profile(client, run)
            out = run()
            ok = (digests_of_dask(out[0]) == digests_of_array(refs[op], out[0].chunks)).all()
            report("%s, Dask, %d %s worker(s), chunks in host memory" % (op, k, kind(args)), px, t,
                   "equal to in process" if ok else "DIFFERENT from in process")
            del out, d
        except Exception as e:  # a failed case is reported, the others still run
            print("%s, Dask, %d worker(s), host: failed: %r" % (op, k, e), flush=True)


def profile(client, run):
    """One more run with the scheduler's task stream: the time each kind of
    task computed (summed over workers), the time spent moving data between
    workers, and the longest single task of each kind: where the time goes."""
    from dask.utils import key_split
    from distributed import get_task_stream

    with get_task_stream(client) as ts:
        t = time.perf_counter()
        run()
        wall = time.perf_counter() - t
    kinds = {}
    moved = 0.0
    for task in ts.data:
        name = key_split(task["key"])
        for ss in task.get("startstops", ()):
            d = ss["stop"] - ss["start"]
            if ss["action"] == "compute":
                total, longest, n = kinds.get(name, (0.0, 0.0, 0))
                kinds[name] = (total + d, max(longest, d), n + 1)
            elif ss["action"] == "transfer":
                moved += d
    print("    profile: %.3f s wall; transfers between workers %.3f s; compute by task (sum, longest, count):"
          % (wall, moved), flush=True)
    for name, (total, longest, n) in sorted(kinds.items(), key=lambda kv: -kv[1][0])[:8]:
        print("      %-40s %8.3f s %8.3f s %6d" % (name[:40], total, longest, n), flush=True)


def zarr_cases(client, k, args):
    import zarr

    px = args.size ** 2
    addr = client.scheduler.address
    for op in args.ops:
        src, dst = os.path.join(args.dir, op + ".zarr"), os.path.join(args.dir, "%s-%d.zarr" % (op, k))
        extra = {"h-maxima": ["--h", str(H)], "gauss": ["--sigma", str(SIGMA)]}.get(op, [])
        run = ["-m", "parac._dask_cli"]
        if args.preload:  # modules imported before parac (see --preload)
            run = ["-c", "import runpy; %s; runpy.run_module('parac._dask_cli', run_name='__main__', alter_sys=True)"
                   % "; ".join("import " + m for m in args.preload.split(","))]
        cmd = [sys.executable] + run + [op, src, dst, "--scheduler", addr, "--device", args.device, "-q"] + extra
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PYTHONFAULTHANDLER="1"))
        dt = time.perf_counter() - t
        if r.returncode != 0:
            print("%s, parac-dask, %d worker(s): failed (exit %d): %s" % (op, k, r.returncode, r.stderr.strip()[-3000:]),
                  flush=True)
            continue
        ref = zarr.open(os.path.join(args.dir, op + "-mem.zarr"), "r")
        got = zarr.open(dst, "r")
        ok = all(np.array_equal(got[y:y + args.chunk], ref[y:y + args.chunk]) for y in range(0, args.size, args.chunk))
        report("%s, parac-dask Zarr -> Zarr, %d %s worker(s)" % (op, k, kind(args)), px, dt,
               "equal to in process" if ok else "DIFFERENT from in process")
        shutil.rmtree(dst, ignore_errors=True)


def make_stores(ims, args, n_gpus):
    """Each image in a Zarr store of chunks c x c; the in-process call from store to store, timed."""
    import zarr

    px = args.size ** 2
    c = args.chunk
    for op in args.ops:
        zarr.save_array(os.path.join(args.dir, op + ".zarr"), ims[op], chunks=(c, c))
    for op in args.ops:
        t = time.perf_counter()
        a = zarr.open(os.path.join(args.dir, op + ".zarr"), "r")[:]
        dev = "cuda:all" if op == "h-maxima" and n_gpus > 1 and args.device != "cpu" else args.device
        try:
            res = as_command(op, a, args.device, n_gpus)
        except Exception as e:  # the whole image may not fit one call on the GPU (2^31 pixels)
            print("%s, in process on %s: %s" % (op, dev, str(e).splitlines()[0][:200]), flush=True)
            dev = "cpu"
            res = as_command(op, a, dev, n_gpus)
        zarr.save_array(os.path.join(args.dir, op + "-mem.zarr"), res, chunks=(c, c))
        report("%s, in process (%s), Zarr -> Zarr" % (op, dev), px, time.perf_counter() - t)


def peers(ims, refs, k, args):
    """dask-image on the same cluster: its Gaussian on CuPy chunks (k GPU workers); with k = 0 its
    label-based fill of holes on CPU workers."""
    import dask.array as da
    import distributed

    import parac

    try:
        from dask_image import ndfilters, ndmeasure
    except ImportError as e:
        print("dask-image: skipped (%s)" % e, flush=True)
        return
    px = args.size ** 2
    c = args.chunk
    if k and "gauss" in ims and args.device != "cpu":
        import cupy

        cluster, client = start_cluster(k, args.device, args.threads)
        with cluster, client:
            d = scatter(client, ims["gauss"], c)
            dc = client.persist(d.map_blocks(cupy.asarray, dtype=np.float32, meta=cupy.empty((0, 0), np.float32)))
            distributed.wait(dc)

            def go(g):
                return timed_then_forget(client, lambda: settle(client, client.persist(g)))

            # Dask's own floor for a graph of as many blocks: one elementwise task a chunk
            report("gauss, Dask's floor: dc + 1 (a task a chunk), CuPy chunks, %d GPU worker(s)" % k, px,
                   best(go(dc + 1), args.repeat))

            report("gauss, dask-image gaussian_filter, CuPy chunks, %d GPU worker(s)" % k, px,
                   best(go(ndfilters.gaussian_filter(dc, SIGMA)), args.repeat))
            mine = chunked("gauss", dc, args.device)[0]
            t = best(go(mine), args.repeat)
            if args.profile:
                profile(client, lambda: settle(client, client.persist(mine)))
            note = ""
            if "gauss" in refs:
                ok = (digests_of_dask(mine) == digests_of_array(refs["gauss"], mine.chunks)).all()
                note = "equal to in process" if ok else "DIFFERENT from in process"
            report("gauss, parac gaussian_filter, the same CuPy chunks, %d GPU worker(s)" % k, px, t, note)
    if not k and "fill-holes" in ims:
        cluster = distributed.LocalCluster(n_workers=os.cpu_count(), threads_per_worker=1, dashboard_address=None,
                                           memory_limit=0)
        with cluster, distributed.Client(cluster) as client:
            dh = scatter(client, ims["fill-holes"], c) > 0
            dh = client.persist(dh)
            distributed.wait(dh)

            def fill_by_label():
                lab, _ = client.persist(list(ndmeasure.label(~dh)))
                edge = np.unique(np.concatenate([np.asarray(x).ravel() for x in client.compute(
                    [lab[0], lab[-1], lab[:, 0], lab[:, -1]], sync=True)]))
                out = client.persist(dh | ~da.isin(lab, edge[edge > 0]))
                distributed.wait(out, timeout=args.peer_timeout)
                return out

            try:
                t = time.perf_counter()
                out = fill_by_label()
                dt = time.perf_counter() - t
                ok = bool((out.astype(np.uint8).compute() == (refs["fill-holes"] > 0)).all())
                report("fill-holes, dask-image label-based fill, %d CPU workers" % os.cpu_count(), px, dt,
                       "equal" if ok else "DIFFERENT")
            except Exception as e:
                print("fill-holes, dask-image label-based fill: not finished (%r)" % e, flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=51200)
    ap.add_argument("--chunk", type=int, default=8192)
    ap.add_argument("--gpus", default="1,2")
    ap.add_argument("--where", default="host,zarr")
    ap.add_argument("--ops", default="label,fill-holes,h-maxima,gauss")
    ap.add_argument("--peers", action="store_true")
    ap.add_argument("--peer-timeout", type=float, default=300)
    ap.add_argument("--dir", default="/tmp/parac-bench-gpus")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--threads", type=int, default=1, help="threads per worker (chunks in flight per GPU)")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--profile", action="store_true",
                    help="host cases: one more run with the task stream (compute by kind of task, transfers)")
    ap.add_argument("--preload", default="",
                    help="modules the parac-dask process imports before parac, e.g. pandas where a pyarrow "
                         "loaded after parac's extension aborts (docs/distributed.md)")
    args = ap.parse_args()
    args.ops = args.ops.split(",")
    where = args.where.split(",")
    counts = [int(v) for v in args.gpus.split(",")]
    n, px = args.size, args.size ** 2
    t = time.perf_counter()
    ims = {op: a for op, a in images(n).items() if op in args.ops}
    print("# %d^2, chunks %d^2, made in %.1f s; device %s, workers %s, %d thread(s) each" % (
        n, args.chunk, time.perf_counter() - t, args.device, counts, args.threads), flush=True)
    refs = {}
    for op, a in ims.items():
        dev = args.device
        try:
            t = best(lambda: in_memory(op, a, dev, max(counts)), args.repeat)
        except Exception as e:  # the whole image may not fit one call on the GPU (2^31 pixels)
            print("%s, in process on %s: %s" % (op, dev, str(e).splitlines()[0][:200]), flush=True)
            dev = "cpu"
            t = best(lambda: in_memory(op, a, dev, max(counts)), 0)
        refs[op] = in_memory(op, a, dev, max(counts))
        report("%s, in process (%s), host memory to result" % (
            op, "cuda:all" if op == "h-maxima" and max(counts) > 1 and dev != "cpu" else dev), px, t)
    if "zarr" in where:
        shutil.rmtree(args.dir, ignore_errors=True)
        os.makedirs(args.dir)
        make_stores(ims, args, max(counts))
    for k in counts:
        cluster, client = start_cluster(k, args.device, args.threads)
        with cluster, client:
            if "host" in where:
                host_cases(client, k, ims, refs, args)
            if "zarr" in where:
                zarr_cases(client, k, args)
        if args.peers:
            peers(ims, refs, k, args)
    if args.peers:
        peers(ims, refs, 0, args)
    shutil.rmtree(args.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
