"""How fast new host arrays can be made ready for a copy from the GPU: a new
NumPy array first touched by the copy, by madvise(MADV_POPULATE_WRITE) in
threads ahead of it, by mmap(MAP_POPULATE); then parac's staged copy of a
CuPy array into a new, a touched and a populated array (needs the package
built for CUDA and CuPy; the host part runs anywhere on Linux).

    python bench/dask/host_touch.py
"""
import ctypes
import mmap
import os
import platform
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

print("kernel", platform.release(), "cpus", os.cpu_count(), "numpy", np.__version__)
for f in ("enabled", "defrag"):
    try: print("THP", f, open("/sys/kernel/mm/transparent_hugepage/" + f).read().strip())
    except Exception as e: print("THP", f, e)
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_HUGEPAGE, MADV_POPULATE_WRITE = 14, 23
GiB = 1 << 30
pool = ThreadPoolExecutor(16)
def parts(n, k, align=2 << 20):
    step = -(-n // k); step = -(-step // align) * align
    return [(i, min(n, i + step)) for i in range(0, n, step)]
def populate(a, k):
    base = a.ctypes.data; n = a.nbytes
    lo = base & ~4095
    def one(r):
        s, e = r
        rc = libc.madvise(lo + s if s else lo, e - s + (base - lo if s == 0 else 0), MADV_POPULATE_WRITE)
        return rc, ctypes.get_errno()
    res = list(pool.map(one, parts(n, k)))
    bad = [r for r in res if r[0] != 0]
    if bad: raise OSError("madvise POPULATE_WRITE: errno %d" % bad[0][1])
def pcopy(dst, src, k):
    d = dst.reshape(-1); s = src.reshape(-1)
    list(pool.map(lambda r: np.copyto(d[r[0]:r[1]], s[r[0]:r[1]]), parts(d.size, k)))
def t(fn, rep=3):
    best = 1e9
    for _ in range(rep):
        t0 = time.perf_counter(); fn(); best = min(best, time.perf_counter() - t0)
    return best * 1e3
for gb in (1, 4):
    n = gb * GiB
    src = np.ones(n, np.uint8)
    touched = np.empty(n, np.uint8); touched.fill(1)
    print("--- %d GiB" % gb)
    for k in (1, 8, 16):
        print("copy into touched, %2d threads          %7.1f ms" % (k, t(lambda: pcopy(touched, src, k))))
        print("copy into new,     %2d threads          %7.1f ms" % (k, t(lambda: pcopy(np.empty(n, np.uint8), src, k))))
    for k in (1, 8, 16):
        try:
            print("populate new,      %2d threads          %7.1f ms" % (k, t(lambda: populate(np.empty(n, np.uint8), k))))
        except OSError as e:
            print("populate:", e); break
    def pop_then_copy(k):
        a = np.empty(n, np.uint8); populate(a, k); pcopy(a, src, 8)
    try:
        for k in (8, 16):
            print("populate %2d + copy 8 threads          %7.1f ms" % (k, t(lambda: pop_then_copy(k))))
    except OSError as e:
        print("populate:", e)
    def mpop():
        m = mmap.mmap(-1, n, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0x8000)); m.close()
    print("mmap MAP_POPULATE (one thread)         %7.1f ms" % t(mpop))
    del src, touched
# the real path: a GPU array to host through parac's staged copies, new vs touched vs populated
try:
    import cupy
    from parac import _parac
    from parac._device import _copy_threads
    _copy_threads()
    for gb in (1, 4):
        n = gb * GiB
        g = cupy.ones(n, cupy.uint8); cupy.cuda.Device().synchronize()
        s = cupy.cuda.get_current_stream().ptr
        def into(out): _parac.copy_bytes(out, g.data.ptr, 0, False, s)
        touched = np.empty(n, np.uint8); touched.fill(0)
        print("staged D2H %d GiB into touched          %7.1f ms" % (gb, t(lambda: into(touched))))
        print("staged D2H %d GiB into new              %7.1f ms" % (gb, t(lambda: into(np.empty(n, np.uint8)))))
        def popd():
            a = np.empty(n, np.uint8); populate(a, 16); into(a)
        print("staged D2H %d GiB populate 16 + copy    %7.1f ms" % (gb, t(popd)))
        print("cupy .get() %d GiB (pageable)           %7.1f ms" % (gb, t(lambda: g.get())))
        del g, touched
except Exception as e:
    print("GPU part:", repr(e))
