#!/usr/bin/env python3
"""CPU separable Gaussian of parac against cv2.GaussianBlur, same process,
same cores, same inputs. parac is called through libparac (ctypes) on numpy
memory, so neither side pays file I/O; both allocate their output per call.

--order blocked (default): two warm-up calls, then all runs of cv2, then all
runs of parac: each library has the cores to itself, as in a program that
uses one of them. --order interleaved alternates the calls, so load from
other processes hits both alike, but each library's worker threads are still
spinning or waking when the other one starts.

Usage: cpu_vs_cv2.py [--lib build/lib/libparac.so] [--side 2048] [--runs 15] [--order blocked|interleaved] [--cpu-time]
Prints a markdown table of median and minimum wall times in ms. With
--cpu-time both run on one thread (run it with OMP_NUM_THREADS=1) and the
table gives CPU time per call (time.process_time), which other processes on a
shared machine do not inflate."""
import argparse
import ctypes as C
import os
import time

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DT = {np.dtype(np.uint8): 0, np.dtype(np.uint16): 1, np.dtype(np.float32): 3}


class Parac:
    def __init__(self, path):
        self.lib = lib = C.CDLL(path)
        lib.parac_context_create.argtypes = [C.POINTER(C.c_void_p), C.c_char_p]
        lib.parac_image_wrap.argtypes = [C.POINTER(C.c_void_p), C.c_void_p, C.c_int64, C.c_int64, C.c_int64,
                                         C.c_int, C.c_int, C.c_int64, C.c_int64, C.c_int64, C.c_int, C.c_int]
        lib.parac_args_create.argtypes = [C.POINTER(C.c_void_p)]
        lib.parac_args_set.argtypes = [C.c_void_p, C.c_char_p, C.c_char_p]
        lib.parac_op_run.argtypes = [C.c_void_p, C.c_char_p, C.POINTER(C.c_void_p), C.c_int,
                                     C.POINTER(C.c_void_p), C.c_int, C.c_void_p, C.c_char_p, C.c_size_t]
        lib.parac_image_destroy.argtypes = [C.c_void_p]
        lib.parac_args_destroy.argtypes = [C.c_void_p]
        lib.parac_error_message.restype = C.c_char_p
        self.ctx = C.c_void_p()
        assert lib.parac_context_create(C.byref(self.ctx), b"cpu") == 0

    def gauss(self, img, params):
        lib = self.lib
        h, w = img.shape[:2]
        ch = img.shape[2] if img.ndim == 3 else 1
        im = C.c_void_p()
        es = img.itemsize
        assert lib.parac_image_wrap(C.byref(im), img.ctypes.data, w, h, 1, ch, DT[img.dtype], ch * es,
                                    img.strides[0], img.strides[0] * h, 0, -1) == 0
        args = C.c_void_p()
        lib.parac_args_create(C.byref(args))
        for k, v in params.items():
            lib.parac_args_set(args, k.encode(), str(v).encode())
        out = C.c_void_p()
        t0 = time.perf_counter()
        st = lib.parac_op_run(self.ctx, b"gauss", C.byref(im), 1, C.byref(out), 1, args, None, 0)
        t = time.perf_counter() - t0
        if st:
            raise RuntimeError(lib.parac_error_message().decode())
        lib.parac_image_destroy(out)
        lib.parac_image_destroy(im)
        lib.parac_args_destroy(args)
        return t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default=os.path.join(ROOT, "build", "lib", "libparac.so"))
    ap.add_argument("--side", type=int, default=2048)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--sigmas", default="1,2,3,5,10")
    ap.add_argument("--method", default="separable")
    ap.add_argument("--order", choices=("blocked", "interleaved"), default="blocked")
    ap.add_argument("--cpu-time", action="store_true")
    a = ap.parse_args()
    if a.cpu_time:
        if os.environ.get("OMP_NUM_THREADS") != "1":
            raise SystemExit("--cpu-time: run with OMP_NUM_THREADS=1")
        cv2.setNumThreads(1)
    p = Parac(a.lib)
    rng = np.random.default_rng(0)
    print(f"{a.side}x{a.side}, 1 channel, {os.cpu_count()} cores, cv2 {cv2.__version__} threads "
          f"{cv2.getNumThreads()}, {a.order} runs")
    if a.cpu_time:
        print("| dtype | sigma | cv2.GaussianBlur CPU ms/call | parac %s CPU ms/call | ratio |" % a.method)
    else:
        print("| dtype | sigma | cv2.GaussianBlur median (min) ms | parac %s median (min) ms | ratio |" % a.method)
    print("|---|---|---|---|---|")
    for dt in (np.uint8, np.float32):
        img = (rng.integers(0, 256, (a.side, a.side)) if dt == np.uint8 else rng.random((a.side, a.side))).astype(dt)
        for s in map(float, a.sigmas.split(",")):
            r = int(4 * s + 0.5)
            if a.cpu_time:
                c0 = time.process_time()
                for _ in range(a.runs):
                    cv2.GaussianBlur(img, (2 * r + 1, 2 * r + 1), s, borderType=cv2.BORDER_REFLECT_101)
                c1 = time.process_time()
                for _ in range(a.runs):
                    p.gauss(img, {"sigma": s, "method": a.method})
                c2 = time.process_time()
                mc, mp = (c1 - c0) / a.runs * 1e3, (c2 - c1) / a.runs * 1e3
                print(f"| {np.dtype(dt).name} | {s:g} | {mc:.2f} | {mp:.2f} | {mc/mp:.2f} |")
                continue
            def run_cv2():
                t0 = time.perf_counter()
                cv2.GaussianBlur(img, (2 * r + 1, 2 * r + 1), s, borderType=cv2.BORDER_REFLECT_101)
                return time.perf_counter() - t0

            def run_parac():
                return p.gauss(img, {"sigma": s, "method": a.method})

            if a.order == "interleaved":
                tc, tp = [], []
                for _ in range(a.runs):
                    tc.append(run_cv2())
                    tp.append(run_parac())
            else:
                for _ in range(2):
                    run_cv2()
                tc = [run_cv2() for _ in range(a.runs)]
                for _ in range(2):
                    run_parac()
                tp = [run_parac() for _ in range(a.runs)]
            mc, mp = np.median(tc) * 1e3, np.median(tp) * 1e3
            print(f"| {np.dtype(dt).name} | {s:g} | {mc:.2f} ({min(tc)*1e3:.2f}) | {mp:.2f} ({min(tp)*1e3:.2f}) | {mc/mp:.2f} |")


if __name__ == "__main__":
    main()
