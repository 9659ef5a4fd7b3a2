#!/usr/bin/env python3
"""Peer timings for the Gaussian benchmark, on the same sizes as
bench_gauss_cuda: cupyx.scipy.ndimage.gaussian_filter (CUDA events, data on
the device, inputs rotated past the L2), cv2.GaussianBlur (CPU, all cores),
and NPP's nppiFilterGaussAdvancedBorder (through ctypes on libnppif, border
replicate, kernel with scipy's radius) when the library loads.
With --parac JSONL (bench_gauss_cuda --json output), prints parac/peer
ratios (best parac method and auto).
Usage: peers.py [--sides 1024,4096] [--sigmas 1,5] [--dtypes u8,f32]
                [--json OUT.jsonl] [--parac PARAC.jsonl] [--runs N]"""
import argparse
import ctypes
import json
import os
import re
import time

import numpy as np


def taps(sigma):
    r = int(4.0 * sigma + 0.5)
    x = np.arange(-r, r + 1, dtype=np.float64)
    w = np.exp(-0.5 * x * x / (sigma * sigma))
    return (w / w.sum()).astype(np.float32)


def time_cuda(cp, fn, nin, runs, warmup=3):
    for i in range(warmup):
        fn(i % nin)
    cp.cuda.get_current_stream().synchronize()
    times = []
    for i in range(runs):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        fn(i % nin)
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(times))


def time_cpu(fn, runs, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


class NppSize(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int)]


class NppPoint(ctypes.Structure):
    _fields_ = [("x", ctypes.c_int), ("y", ctypes.c_int)]


class NppStreamContext(ctypes.Structure):
    _fields_ = [("hStream", ctypes.c_void_p), ("nCudaDeviceId", ctypes.c_int),
                ("nMultiProcessorCount", ctypes.c_int), ("nMaxThreadsPerMultiProcessor", ctypes.c_int),
                ("nMaxThreadsPerBlock", ctypes.c_int), ("nSharedMemPerBlock", ctypes.c_size_t),
                ("nCudaDevAttrComputeCapabilityMajor", ctypes.c_int),
                ("nCudaDevAttrComputeCapabilityMinor", ctypes.c_int),
                ("nStreamFlags", ctypes.c_uint), ("nReserved0", ctypes.c_int)]


def load_npp():
    import glob
    names = ["libnppif.so", "libnppif.so.13", "libnppif.so.12"]
    for pat in ("/usr/local/cuda*/lib64/libnppif.so*", "/usr/local/cuda*/targets/*/lib/libnppif.so*",
                "/usr/lib/x86_64-linux-gnu/libnppif.so*"):
        names += sorted(glob.glob(pat))
    try:
        import nvidia  # pip wheels (nvidia-npp-cu*)
        for p in nvidia.__path__:
            names += sorted(glob.glob(os.path.join(p, "npp", "lib", "libnppif.so*")))
    except ImportError:
        pass
    err = None
    for n in names:
        try:
            return ctypes.CDLL(n), n
        except OSError as e:
            err = e
    raise OSError(f"libnppif not found ({err})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sides", default="1024,2048,4096,8192")
    ap.add_argument("--sigmas", default="1,1.5,3,5,10,25,50,100")
    ap.add_argument("--dtypes", default="u8,f32")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--json")
    ap.add_argument("--parac")
    ap.add_argument("--no-cpu", action="store_true")
    a = ap.parse_args()
    sides = [int(s) for s in a.sides.split(",")]
    sigmas = [float(s) for s in a.sigmas.split(",")]
    dtypes = a.dtypes.split(",")
    out = open(a.json, "a") if a.json else None
    res = {}

    def emit(peer, side, dt, sigma, ms, device):
        res[(peer, side, dt, sigma)] = ms
        print(f"{side:<6d} {dt:<4s} {sigma:<6g} {peer:<10s} {ms:10.4f} ms")
        if out:
            out.write(json.dumps({"bench": "gauss_peer", "case": f"{side}x{side} {dt} sigma={sigma:g}",
                                  "method": peer, "device": device, "median_ms": ms}) + "\n")
            out.flush()

    try:
        import cupy as cp
        import cupyx.scipy.ndimage as cndi
        dev_name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        l2 = cp.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
    except Exception as e:  # noqa: BLE001
        cp = None
        print(f"# cupy unavailable: {e}")
    npp = None
    if cp is not None:
        try:
            npp, npp_name = load_npp()
            print(f"# NPP: {npp_name}")
        except OSError as e:
            print(f"# NPP unavailable: {e}")
    try:
        import cv2
        cv2.setNumThreads(os.cpu_count())
    except ImportError:
        cv2 = None
        print("# cv2 unavailable")
    print(f"{'side':<6s} {'type':<4s} {'sigma':<6s} {'peer':<10s} {'median':>10s}")
    for dt in dtypes:
        npdt = np.uint8 if dt == "u8" else np.float32
        for side in sides:
            rng = np.random.default_rng(side)
            host = (rng.integers(0, 256, (side, side)).astype(np.uint8) if dt == "u8"
                    else rng.random((side, side), dtype=np.float32))
            if cp is not None:
                nbytes = 2 * host.nbytes
                nin = max(2, min(16, int(np.ceil(2 * l2 / nbytes))))
                ins = [cp.asarray(host) for _ in range(nin)]
                outb = cp.empty_like(ins[0])
            for sigma in sigmas:
                if cp is not None:
                    # cupyx with scipy's defaults except the border (mirror = reflect101)
                    ms = time_cuda(cp, lambda i: cndi.gaussian_filter(ins[i], sigma, mode="mirror",
                                                                      output=outb), nin, a.runs)
                    emit("cupyx", side, dt, sigma, ms, dev_name)
                    # NPP's advanced Gaussian slows down steeply with many taps (457 ms at
                    # 4096^2, sigma 25 on an H200): timed up to sigma 10 only
                    if npp is not None and sigma <= 10:
                        try:
                            k = cp.asarray(taps(sigma))
                            st = NppStreamContext()
                            st.hStream = cp.cuda.get_current_stream().ptr
                            st.nCudaDeviceId = 0
                            p = cp.cuda.runtime.getDeviceProperties(0)
                            st.nMultiProcessorCount = p["multiProcessorCount"]
                            st.nMaxThreadsPerMultiProcessor = p["maxThreadsPerMultiProcessor"]
                            st.nMaxThreadsPerBlock = p["maxThreadsPerBlock"]
                            st.nSharedMemPerBlock = p["sharedMemPerBlock"]
                            st.nCudaDevAttrComputeCapabilityMajor = p["major"]
                            st.nCudaDevAttrComputeCapabilityMinor = p["minor"]
                            fname = ("nppiFilterGaussAdvancedBorder_8u_C1R_Ctx" if dt == "u8"
                                     else "nppiFilterGaussAdvancedBorder_32f_C1R_Ctx")
                            f = getattr(npp, fname)
                            f.restype = ctypes.c_int
                            step = side * host.itemsize
                            size = NppSize(side, side)

                            def call(i):
                                rc = f(ctypes.c_void_p(ins[i].data.ptr), ctypes.c_int(step), size,
                                       NppPoint(0, 0), ctypes.c_void_p(outb.data.ptr), ctypes.c_int(step),
                                       size, ctypes.c_int(k.size), ctypes.c_void_p(k.data.ptr),
                                       ctypes.c_int(2), st)  # NPP_BORDER_REPLICATE
                                if rc < 0:
                                    raise RuntimeError(f"{fname} returned {rc}")
                            ms = time_cuda(cp, call, nin, a.runs)
                            emit("npp", side, dt, sigma, ms, dev_name)
                        except Exception as e:  # noqa: BLE001
                            print(f"# NPP {dt} sigma={sigma}: {e}")
                if cv2 is not None and not a.no_cpu:
                    r = int(4.0 * sigma + 0.5)
                    ms = time_cpu(lambda: cv2.GaussianBlur(host, (2 * r + 1, 2 * r + 1), sigma,
                                                           borderType=cv2.BORDER_REFLECT_101),
                                  3 if side >= 4096 else 5)
                    emit("cv2-cpu", side, dt, sigma, ms, f"cpu x{os.cpu_count()}")
            if cp is not None:
                del ins, outb
                cp.get_default_memory_pool().free_all_blocks()
    if a.parac:
        best = {}
        auto = {}
        for line in open(a.parac):
            j = json.loads(line)
            if j.get("bench") != "gauss_cuda" or j.get("device") == "cpu":
                continue
            m = re.match(r"(\d+)x\d+ (\w+) sigma=([\d.e+-]+)", j["case"])
            key = (int(m.group(1)), m.group(2), float(m.group(3)))
            if j["method"] == "auto":
                auto[key] = j["median_ms"]
            elif j["method"] not in ("deriche2", "yvv"):
                if key not in best or j["median_ms"] < best[key][0]:
                    best[key] = (j["median_ms"], j["method"])
        print("\nparac speed-up over peers (peer time / parac time; best = fastest accurate method)")
        print(f"{'side':<6s} {'type':<4s} {'sigma':<6s} {'best':<10s} {'best_ms':>9s} {'auto_ms':>9s} "
              f"{'x cupyx':>8s} {'x npp':>8s} {'x cv2':>8s}")
        for key in sorted(best):
            side, dt, sigma = key
            bm, bn = best[key]
            am = auto.get(key, float("nan"))

            def ratio(peer):
                t = res.get((peer, side, dt, sigma))
                return f"{t / bm:8.1f}" if t else f"{'-':>8s}"
            print(f"{side:<6d} {dt:<4s} {sigma:<6g} {bn:<10s} {bm:9.4f} {am:9.4f} {ratio('cupyx')} "
                  f"{ratio('npp')} {ratio('cv2-cpu')}")


if __name__ == "__main__":
    main()
