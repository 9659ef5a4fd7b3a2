"""parac calls on a GPU whose memory CuPy's pool holds unused (its arrays
freed to its cache): each call must succeed, equal to the same call made
before, and leave CuPy's cache empty. Fills the whole GPU: run it alone.

    python bench/python/after_cupy_pool.py

Before the package freed CuPy's and PyTorch's cached blocks on running out
of memory, every call here raised MemoryError (a Dask worker that had run
dask-image's Gaussian over 10 GB of CuPy chunks failed the same way).
"""
import sys

import numpy as np


def fill_cupy_cache(cupy):
    """Take the GPU's free memory in CuPy arrays, then free them to CuPy's
    pool; the bytes it now holds unused."""
    blocks = []
    for size in (1 << 30, 64 << 20):
        try:
            while True:
                blocks.append(cupy.empty(size, cupy.uint8))
        except cupy.cuda.memory.OutOfMemoryError:
            pass
    held = sum(b.nbytes for b in blocks)
    del blocks
    return held


def main():
    import cupy

    import parac

    r = np.random.default_rng(1)
    host = r.random((4096, 4096)).astype(np.float32)
    image = cupy.asarray(host)
    mask = cupy.asarray(r.random((4096, 4096)) > 0.5)
    cases = [
        ("gaussian_filter, CuPy array", lambda: parac.ndimage.gaussian_filter(image, 3.0)),
        ("gaussian_filter, NumPy, device='cuda'", lambda: parac.ndimage.gaussian_filter(host, 3.0, device="cuda")),
        ("label, CuPy bool array", lambda: parac.ndimage.label(mask)[0]),
    ]
    want = []
    for _, fn in cases:  # with the GPU's memory free
        v = fn()
        want.append(v if isinstance(v, np.ndarray) else cupy.asnumpy(v))
    failed = 0
    for (name, fn), ref in zip(cases, want):
        parac.memory_trim()
        held = fill_cupy_cache(cupy)
        free = cupy.cuda.runtime.memGetInfo()[0]
        try:
            got = fn()
            got = got if isinstance(got, np.ndarray) else cupy.asnumpy(got)
            same = np.array_equal(got, ref)
            left = cupy.get_default_memory_pool().free_bytes()
            print("%-40s CuPy held %.1f GB unused, %.2f GB free: %s; CuPy's cache after %.2f GB" % (
                name, held / 1e9, free / 1e9, "equal" if same else "DIFFERENT", left / 1e9), flush=True)
            failed += not same
        except MemoryError as e:
            print("%-40s CuPy held %.1f GB unused, %.2f GB free: MemoryError: %s" % (
                name, held / 1e9, free / 1e9, str(e)[:160]), flush=True)
            failed += 1
        cupy.get_default_memory_pool().free_all_blocks()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
