"""A whole-slide image from Zarr to Zarr with parac-dask (fill-holes and
label, chunks 8192²), each result checked band by band against an
in-memory reference computed on the CPU from the whole image: label bit for
bit against parac.label of the whole mask (8 neighbours, the command's
default); fill-holes against the background's 4-connected components that
do not reach the image's border (labelled whole, filled with 255).

    python bench/dask/check_wsi.py [SIZE] [h-maxima]   (default 102400; DEV=cpu for parac-dask on the CPU)

With `h-maxima`, that operation alone (h = 20, 8 neighbours) on bench_wsi.py's
terrain of domes, against parac.h_maxima of the whole terrain in process
(on the GPU, where a 102400² image fits an 80 GB card; DEV=cpu: the CPU).

Host memory: the mask, one label image of the whole (int32) and a band of
the output at a time (about 60 GB at 102400²).
"""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import zarr

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_wsi  # noqa: E402

import parac  # noqa: E402

CHUNK = 8192
DIR = "/tmp/parac-check-wsi"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 102400
    shutil.rmtree(DIR, ignore_errors=True)
    os.makedirs(DIR)
    if sys.argv[2:] == ["h-maxima"]:
        return _h_maxima(n)
    t = time.perf_counter()
    z = zarr.open_array(DIR + "/slide.zarr", mode="w", shape=(n, n), chunks=(CHUNK, CHUNK), dtype="u1")
    mask = np.empty((n, n), np.uint8)
    for y in range(0, n, CHUNK):  # the same blobs as bench_wsi.py's slide
        band = bench_wsi._band(n, CHUNK, y)
        z[y:y + CHUNK] = band
        mask[y:y + CHUNK] = band
    print("# %d^2 slide made in %.1f s" % (n, time.perf_counter() - t), flush=True)
    for op in ("fill-holes", "label"):
        t = time.perf_counter()
        r = subprocess.run([sys.executable, "-m", "parac._dask_cli", op, DIR + "/slide.zarr", DIR + "/" + op + ".zarr",
                            "--device", os.environ.get("DEV", "cuda"), "-q"], capture_output=True, text=True)
        print("parac-dask %s Zarr -> Zarr %.2f s rc=%d %s" % (op, time.perf_counter() - t, r.returncode,
                                                              r.stderr[-300:]), flush=True)

    t = time.perf_counter()
    lab, count = parac.label(mask == 0, connectivity=4, device="cpu")
    border = np.unique(np.concatenate([lab[0], lab[-1], lab[:, 0], lab[:, -1]]))
    outside = np.zeros(int(count) + 1, bool)  # label 0 (the foreground) keeps its value too
    outside[border] = True
    outside[0] = True
    print("background components %d (%d reach the border), in %.1f s" % (count, border.size, time.perf_counter() - t),
          flush=True)
    t = time.perf_counter()
    ok, dt = _equal_bands("fill-holes", n, lambda y: np.where(outside[lab[y:y + CHUNK]], mask[y:y + CHUNK],
                                                               np.uint8(255)))
    print("fill-holes equal to the in-memory reference: %s (%s; checked in %.1f s)" % (ok, dt, time.perf_counter() - t),
          flush=True)
    del lab
    t = time.perf_counter()
    lab, count = parac.label(mask, connectivity=8, device="cpu")
    print("in-memory parac.label (CPU): %d components, %s, %.1f s" % (count, lab.dtype, time.perf_counter() - t),
          flush=True)
    t = time.perf_counter()
    ok, dt = _equal_bands("label", n, lambda y: lab[y:y + CHUNK])
    print("label equal to the in-memory call bit for bit: %s (chunked %s; checked in %.1f s)" % (
        ok, dt, time.perf_counter() - t), flush=True)
    shutil.rmtree(DIR, ignore_errors=True)


def _h_maxima(n):
    t = time.perf_counter()
    z = zarr.open_array(DIR + "/terrain.zarr", mode="w", shape=(n, n), chunks=(CHUNK, CHUNK), dtype="u1")
    terrain = np.empty((n, n), np.uint8)
    for y in range(0, n, CHUNK):
        band = bench_wsi._terrain(n, CHUNK, y)
        z[y:y + CHUNK] = band
        terrain[y:y + CHUNK] = band
    print("# %d^2 terrain made in %.1f s" % (n, time.perf_counter() - t), flush=True)
    dev = os.environ.get("DEV", "cuda")
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "parac._dask_cli", "h-maxima", DIR + "/terrain.zarr",
                        DIR + "/h-maxima.zarr", "--h", "20", "--device", dev, "-q"], capture_output=True, text=True)
    print("parac-dask h-maxima Zarr -> Zarr %.2f s rc=%d %s" % (time.perf_counter() - t, r.returncode, r.stderr[-300:]),
          flush=True)
    t = time.perf_counter()
    whole = parac.h_maxima(terrain, h=20, connectivity=8, device=dev)
    print("in-memory parac.h_maxima (%s): %d maxima pixels, %.1f s" % (dev, int(np.count_nonzero(whole)),
                                                                      time.perf_counter() - t), flush=True)
    t = time.perf_counter()
    ok, dt = _equal_bands("h-maxima", n, lambda y: whole[y:y + CHUNK])
    print("h-maxima equal to the in-memory call bit for bit: %s (%s; checked in %.1f s)" % (
        ok, dt, time.perf_counter() - t), flush=True)
    shutil.rmtree(DIR, ignore_errors=True)


def _equal_bands(name, n, reference):
    """Whether output `name` equals reference(y) in every band of rows y..y+CHUNK; its dtype."""
    got = zarr.open_array(DIR + "/" + name + ".zarr", mode="r")
    ok = True
    for y in range(0, n, CHUNK):
        ok &= bool(np.array_equal(got[y:y + CHUNK], reference(y)))
    return ok, got.dtype


if __name__ == "__main__":
    main()
