"""Morphological reconstruction and its operators against scikit-image, scipy
and a brute-force float64 oracle, through the CLI: every CPU method, dtype,
connectivity and mode, 2D and 3D, odd sizes, plateaus, dtype extremes, long
geodesic paths; errors for bad input. GPU methods are compared bit for bit
with the CPU where a GPU is present."""
import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage.morphology as skm
import skimage.segmentation as sks

from conftest import GPU, run_parac

CPU_METHODS = ["hybrid", "sequential", "downhill", "parallel"]
GPU_METHODS = ["wavefront", "heap"]
DTYPES = [np.uint8, np.uint16, np.float32]
CONN_RANK = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}


def footprint(conn, ndim):
    return ndi.generate_binary_structure(ndim, CONN_RANK[conn])


def oracle(marker, mask, conn, erosion=False):
    """Dilate (erode) by the unit neighbourhood and clip by the mask until stable, in float64."""
    fp = footprint(conn, marker.ndim)
    cur = marker.astype(np.float64)
    m = mask.astype(np.float64)
    while True:
        if erosion:
            nxt = np.maximum(ndi.grey_erosion(cur, footprint=fp, mode="nearest"), m)
        else:
            nxt = np.minimum(ndi.grey_dilation(cur, footprint=fp, mode="nearest"), m)
        if np.array_equal(nxt, cur):
            return cur
        cur = nxt


def smooth(rng, shape, dtype, scale=200.0, sigma=1.5):
    v = ndi.gaussian_filter(rng.random(shape), sigma)
    v = (v - v.min()) / max(v.max() - v.min(), 1e-12) * scale
    return v.astype(dtype)


def save(tmp_path, name, arr):
    p = tmp_path / name
    np.save(p, arr)
    return p


def recon_cli(tmp_path, marker, mask, *opts, device="cpu"):
    a = save(tmp_path, "marker.npy", marker)
    b = save(tmp_path, "mask.npy", mask)
    out = tmp_path / "out.npy"
    args = ["reconstruct", a, b, out, "--layout", "dhw", *opts]
    if device:
        args = ["--device", device] + args
    run_parac(*args)
    return np.load(out)


def op_cli(tmp_path, op, image, *opts, device="cpu"):
    a = save(tmp_path, "in.npy", image)
    out = tmp_path / "out.npy"
    args = [op, a, out, "--layout", "dhw", *opts]
    if device:
        args = ["--device", device] + args
    run_parac(*args)
    return np.load(out)


def conns_for(ndim):
    return [4, 8] if ndim == 2 else [6, 18, 26]


# ---- reconstruction against scikit-image and the oracle -----------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(37, 53), (1, 29), (31, 1), (64, 160), (7, 11, 13)])
@pytest.mark.parametrize("mode", ["dilation", "erosion"])
def test_reconstruct_all_methods(tmp_path, rng, dtype, shape, mode):
    mask = smooth(rng, shape, dtype)
    if mode == "dilation":
        marker = np.maximum(mask.astype(np.float64) - 30, 0).astype(dtype)
    else:
        marker = np.minimum(mask.astype(np.float64) + 30, 230).astype(dtype)
        marker = np.maximum(marker, mask)
    for conn in conns_for(len(shape)):
        ref = skm.reconstruction(marker, mask, method=mode, footprint=footprint(conn, len(shape)))
        assert np.array_equal(ref, oracle(marker, mask, conn, mode == "erosion"))
        for m in CPU_METHODS:
            out = recon_cli(tmp_path, marker, mask, "--mode", mode, "--connectivity", conn,
                            "--method", m)
            assert out.dtype == dtype and out.shape == mask.shape, m
            assert np.array_equal(out.astype(np.float64), ref), f"{m} conn {conn}"


@pytest.mark.parametrize("dtype", DTYPES)
def test_reconstruct_random_noise_and_extremes(tmp_path, rng, dtype):
    """White noise (heavy queue traffic) spanning the whole dtype range."""
    if dtype == np.float32:
        mask = (rng.standard_normal((45, 67)) * 1e30).astype(np.float32)
        mask[0, 0], mask[5, 5] = np.float32(-np.inf), np.float32(np.inf)
        marker = np.where(rng.random(mask.shape) < 0.3, mask, np.float32(-np.inf)).astype(np.float32)
    else:
        hi = np.iinfo(dtype).max
        mask = rng.integers(0, hi + 1, (45, 67)).astype(dtype)
        mask[3, :] = hi
        marker = np.where(rng.random(mask.shape) < 0.2, mask, 0).astype(dtype)
    for mode in ["dilation", "erosion"]:
        mk = marker if mode == "dilation" else np.where(rng.random(mask.shape) < 0.5, mask,
                                                        mask.max()).astype(dtype)
        ref = skm.reconstruction(mk, mask, method=mode)
        for m in CPU_METHODS:
            out = recon_cli(tmp_path, mk, mask, "--mode", mode, "--method", m)
            assert np.array_equal(out.astype(np.float64), ref), m


def serpentine(n, width=1):
    """A 1-pixel corridor snaking through the whole image, walls of 1 pixel."""
    img = np.zeros((n, n), np.uint8)
    for r in range(0, n, 2 * width + 0 + 2):
        img[r:r + width, :] = 200
    step = 2 * width + 2
    for k, r in enumerate(range(0, n - step, step)):
        c = n - 1 if k % 2 == 0 else 0
        img[r:r + step, c] = 200
    return img


def spiral(n):
    img = np.zeros((n, n), np.uint8)
    top, left, bottom, right = 0, 0, n - 1, n - 1
    while top <= bottom and left <= right:
        img[top, left:right + 1] = 200
        img[top:bottom + 1, right] = 200
        if bottom - 2 > top:
            img[bottom, left:right + 1] = 200
        if right - 2 > left:
            img[top + 2:bottom + 1, left] = 200
        top, left, bottom, right = top + 2, left + 2, bottom - 2, right - 2
    return img


def staircase(n):
    img = np.zeros((n, n), np.uint8)
    y, x = n - 1, 0
    while y >= 0 and x < n:
        img[y, x] = 200
        if x + 1 < n:
            img[y, x + 1] = 200
        y, x = y - 1, x + 1
    return img


def long_path_case(name, n):
    """Marker and mask of a hard case: the path seeded at its first pixel, or one seed in a flat mask."""
    if name == "single_seed":
        mask = np.full((n, n), 100, np.uint8)
        marker = np.zeros_like(mask)
        marker[n // 2, n // 3] = 100
        return marker, mask
    mask = {"serpentine": serpentine, "spiral": spiral, "staircase": staircase}[name](n)
    marker = np.zeros_like(mask)
    ys, xs = np.nonzero(mask)
    marker[ys[0], xs[0]] = mask[ys[0], xs[0]]
    return marker, mask


@pytest.mark.parametrize("name", ["serpentine", "spiral", "staircase", "single_seed"])
def test_reconstruct_long_paths(tmp_path, name):
    marker, mask = long_path_case(name, 97)
    for conn in [4, 8]:
        ref = skm.reconstruction(marker, mask, footprint=footprint(conn, 2))
        for m in CPU_METHODS:
            out = recon_cli(tmp_path, marker, mask, "--connectivity", conn, "--method", m)
            assert np.array_equal(out.astype(np.float64), ref), f"{m} conn {conn}"


def test_reconstruct_parallel_many_strips(tmp_path, rng):
    """A serpentine that crosses every strip boundary many times (vertical corridors)."""
    mask = serpentine(301).T.copy()
    marker = np.zeros_like(mask)
    marker[0, 0] = 200
    ref = skm.reconstruction(marker, mask)
    out = recon_cli(tmp_path, marker, mask, "--method", "parallel")
    assert np.array_equal(out.astype(np.float64), ref)
    assert (out == 200).sum() == (mask == 200).sum()


def test_reconstruct_special_cases(tmp_path, rng):
    mask = smooth(rng, (23, 19), np.uint8)
    for m in CPU_METHODS:
        # seed equal to mask, zeros, uniform seed below the mask
        assert np.array_equal(recon_cli(tmp_path, mask, mask, "--method", m), mask)
        z = np.zeros_like(mask)
        assert np.array_equal(recon_cli(tmp_path, z, mask, "--method", m), z)
        flat = np.full_like(mask, mask.min())
        assert np.array_equal(recon_cli(tmp_path, flat, mask, "--method", m), flat)
    # scikit-image's 1D erosion fill case, as one row
    seed = np.array([[0, 8, 8, 8, 8, 8, 8, 8, 8, 0]], np.uint8)
    msk = np.array([[0, 3, 6, 2, 1, 1, 1, 4, 2, 0]], np.uint8)
    for m in CPU_METHODS:
        out = recon_cli(tmp_path, seed, msk, "--mode", "erosion", "--method", m)
        assert out.tolist() == [[0, 3, 6, 4, 4, 4, 4, 4, 2, 0]]


def test_reconstruct_clip(tmp_path, rng):
    mask = smooth(rng, (30, 40), np.uint8)
    marker = rng.integers(0, 256, mask.shape).astype(np.uint8)
    ref = skm.reconstruction(np.minimum(marker, mask), mask)
    for m in CPU_METHODS:
        out = recon_cli(tmp_path, marker, mask, "--clip", "--method", m)
        assert np.array_equal(out.astype(np.float64), ref)


# ---- errors -----------------------------------------------------------------------------------
def expect_error(tmp_path, args, *needles):
    out = tmp_path / "err_out.npy"
    r = run_parac("--device", "cpu", *args, out, check=False)
    assert r.returncode == 1, r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr
    assert not out.exists()


def test_errors(tmp_path, rng):
    mask = smooth(rng, (20, 30), np.uint8)
    marker = mask.copy()
    marker[7, 11] = 255
    mask[7, 11] = 3
    a, b = save(tmp_path, "a.npy", marker), save(tmp_path, "b.npy", mask)
    for m in CPU_METHODS:
        expect_error(tmp_path, ["reconstruct", a, b, "--method", m], "x=11 y=7", "above")
    # erosion: marker below the mask
    expect_error(tmp_path, ["reconstruct", b, a, "--mode", "erosion"], "below")
    # shapes, dtypes, channels, connectivity
    c = save(tmp_path, "c.npy", np.zeros((20, 31), np.uint8))
    expect_error(tmp_path, ["reconstruct", c, b], "must be equal")
    d = save(tmp_path, "d.npy", np.zeros((20, 30), np.uint16))
    expect_error(tmp_path, ["reconstruct", d, b], "same dtype")
    e = save(tmp_path, "e.npy", np.zeros((20, 30, 3), np.uint8))
    expect_error(tmp_path, ["reconstruct", e, e], "channels")
    expect_error(tmp_path, ["reconstruct", a, b, "--connectivity", "6", "--clip"], "connectivity 6")
    f = save(tmp_path, "f.npy", np.zeros((20, 30), np.int32))
    expect_error(tmp_path, ["reconstruct", f, f], "not supported")
    # NaN
    nan = np.zeros((20, 30), np.float32)
    nan[4, 9] = np.nan
    g, hh = save(tmp_path, "g.npy", nan), save(tmp_path, "h.npy", np.ones((20, 30), np.float32))
    expect_error(tmp_path, ["reconstruct", g, hh], "NaN at x=9 y=4")
    expect_error(tmp_path, ["reconstruct", hh, g, "--mode", "erosion"], "mask has NaN")
    # h-maxima without h, bad method
    expect_error(tmp_path, ["h-maxima", b], "--h is required")
    expect_error(tmp_path, ["h-maxima", b, "--h", "0"], "h must be > 0")
    expect_error(tmp_path, ["reconstruct", a, b, "--method", "heapx"], "unknown method")


# ---- operators ----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(41, 57), (9, 12, 10)])
def test_h_maxima_minima(tmp_path, rng, dtype, shape):
    img = smooth(rng, shape, dtype, scale=200, sigma=1.2)
    if dtype == np.float32:
        img = np.round(img).astype(np.float32)  # away from scikit-image's float resolution guard
    for h in [10, 40]:
        for conn in conns_for(len(shape)):
            fp = footprint(conn, len(shape))
            ref = skm.h_maxima(img, h, footprint=fp)
            ref_min = skm.h_minima(img, h, footprint=fp)
            for m in ["hybrid", "downhill", "parallel"]:
                out = op_cli(tmp_path, "h-maxima", img, "--h", h, "--connectivity", conn, "--method", m)
                assert out.dtype == np.uint8
                assert np.array_equal(out == 255, ref == 1), f"max {m} conn {conn} h {h}"
                out = op_cli(tmp_path, "h-minima", img, "--h", h, "--connectivity", conn, "--method", m)
                assert np.array_equal(out == 255, ref_min == 1), f"min {m} conn {conn} h {h}"


def test_h_maxima_larger_than_range(tmp_path, rng):
    img = smooth(rng, (20, 20), np.uint8, scale=50)
    out = op_cli(tmp_path, "h-maxima", img, "--h", 100)
    assert not out.any() and not skm.h_maxima(img, 100).any()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(33, 47), (8, 9, 11)])
def test_regional_extrema(tmp_path, rng, dtype, shape):
    img = (rng.integers(0, 6, shape)).astype(dtype)  # many plateaus
    if dtype != np.float32:
        img[0, 0] = np.iinfo(dtype).max
    for conn in conns_for(len(shape)):
        rank = CONN_RANK[conn]
        for m in ["hybrid", "sequential", "parallel"]:
            out = op_cli(tmp_path, "regional-maxima", img, "--connectivity", conn, "--method", m)
            assert np.array_equal(out == 255, skm.local_maxima(img, connectivity=rank)), m
            out = op_cli(tmp_path, "regional-minima", img, "--connectivity", conn, "--method", m)
            assert np.array_equal(out == 255, skm.local_minima(img, connectivity=rank)), m


def test_regional_extrema_special(tmp_path):
    for img in [np.zeros((5, 7), np.uint8), np.full((5, 7), 9, np.uint16),
                np.full((4, 6), -np.inf, np.float32), np.array([[0, 1, 0, 2, 2]], np.uint8)]:
        out = op_cli(tmp_path, "regional-maxima", img)
        assert np.array_equal(out == 255, skm.local_maxima(img)), img
        out = op_cli(tmp_path, "regional-minima", img)
        assert np.array_equal(out == 255, skm.local_minima(img)), img
    # float extremes and neighbours one float step apart
    f = np.array([[1.0, np.nextafter(np.float32(1.0), np.float32(2)), 1.0, -np.inf, 3e38]], np.float32)
    out = op_cli(tmp_path, "regional-maxima", f)
    assert np.array_equal(out == 255, skm.local_maxima(f))


def binary_holes(rng, shape):
    img = np.zeros(shape, np.uint8)
    for _ in range(12):
        c = [rng.integers(0, s) for s in shape]
        r = rng.integers(3, 9)
        grid = np.ogrid[tuple(slice(0, s) for s in shape)]
        d2 = sum((g - cc) ** 2 for g, cc in zip(grid, c))
        img[(d2 <= r * r) & (d2 >= (r - 1.5) ** 2)] = 1
    return img


@pytest.mark.parametrize("shape", [(61, 73), (15, 17, 19)])
def test_fill_holes_binary_like_scipy(tmp_path, rng, shape):
    img = binary_holes(rng, shape) * 255
    ref = ndi.binary_fill_holes(img > 0)  # 4 / 6-connected background
    for m in CPU_METHODS:
        out = op_cli(tmp_path, "fill-holes", img.astype(np.uint8), "--method", m)
        assert np.array_equal(out == 255, ref), m
    full = 8 if len(shape) == 2 else 26
    ref8 = ndi.binary_fill_holes(img > 0, structure=footprint(full, len(shape)))
    out = op_cli(tmp_path, "fill-holes", img.astype(np.uint8), "--connectivity", full)
    assert np.array_equal(out == 255, ref8)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fill_holes_gray(tmp_path, rng, dtype):
    img = smooth(rng, (50, 43), dtype)
    marker = img.copy()
    marker[1:-1, 1:-1] = img.max()
    for conn in [4, 8]:
        ref = skm.reconstruction(marker, img, method="erosion", footprint=footprint(conn, 2))
        out = op_cli(tmp_path, "fill-holes", img, "--connectivity", conn)
        assert np.array_equal(out.astype(np.float64), ref)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(47, 38), (10, 13, 12)])
def test_opening_closing_by_reconstruction(tmp_path, rng, dtype, shape):
    img = smooth(rng, shape, dtype, sigma=1.0)
    for r in [1, 3]:
        se = np.ones((2 * r + 1,) * len(shape), bool)
        ref_o = skm.reconstruction(skm.erosion(img, se), img)
        ref_c = skm.reconstruction(skm.dilation(img, se), img, method="erosion")
        for m in ["hybrid", "parallel"]:
            out = op_cli(tmp_path, "opening-by-reconstruction", img, "--radius", r, "--method", m)
            assert out.dtype == dtype and np.array_equal(out.astype(np.float64), ref_o)
            out = op_cli(tmp_path, "closing-by-reconstruction", img, "--radius", r, "--method", m)
            assert np.array_equal(out.astype(np.float64), ref_c)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(40, 51), (11, 14, 13)])
def test_clear_border(tmp_path, rng, dtype, shape):
    img = (binary_holes(rng, shape) * rng.integers(1, 200, shape)).astype(dtype)
    binary = img != 0
    for buf in [0, 2]:
        for conn in conns_for(len(shape)):
            keep = sks.clear_border(ndi.label(binary, structure=footprint(conn, len(shape)))[0],
                                    buffer_size=buf) > 0
            out = op_cli(tmp_path, "clear-border", img, "--buffer", buf, "--connectivity", conn)
            assert out.dtype == dtype
            assert np.array_equal(out, np.where(keep, img, 0)), f"buffer {buf} conn {conn}"


# ---- auto, explain, C API parity --------------------------------------------------------------
def test_auto_explain(tmp_path, rng):
    mask = smooth(rng, (64, 64), np.uint8)
    a, b = save(tmp_path, "a.npy", mask // 2), save(tmp_path, "b.npy", mask)
    r = run_parac("reconstruct", a, b, tmp_path / "o.npy", "--explain", "--device", "cpu")
    assert "reconstruct: method '" in (r.stdout + r.stderr)


# ---- GPU against CPU, bit for bit -------------------------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(37, 53), (300, 517), (1, 700), (700, 1), (9, 40, 33)])
def test_gpu_reconstruct_matches_cpu(tmp_path, rng, dtype, shape):
    mask = smooth(rng, shape, dtype)
    marker = np.maximum(mask.astype(np.float64) - 25, 0).astype(dtype)
    for mode in ["dilation", "erosion"]:
        mk = marker if mode == "dilation" else np.maximum(
            np.minimum(mask.astype(np.float64) + 25, 240).astype(dtype), mask)
        for conn in conns_for(len(shape)):
            cpu = recon_cli(tmp_path, mk, mask, "--mode", mode, "--connectivity", conn,
                            "--method", "hybrid", device="cpu")
            for m in GPU_METHODS:
                gpu = recon_cli(tmp_path, mk, mask, "--mode", mode, "--connectivity", conn,
                                "--method", m, device="cuda")
                assert gpu.dtype == cpu.dtype and np.array_equal(gpu, cpu), f"{m} {mode} conn {conn}"


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["serpentine", "spiral", "staircase", "single_seed"])
def test_gpu_long_paths(tmp_path, name):
    marker, mask = long_path_case(name, 301)
    for conn in [4, 8]:
        ref = skm.reconstruction(marker, mask, footprint=footprint(conn, 2))
        for m in GPU_METHODS:
            out = recon_cli(tmp_path, marker, mask, "--connectivity", conn, "--method", m,
                            device="cuda")
            assert np.array_equal(out.astype(np.float64), ref), f"{m} conn {conn}"


@pytest.mark.gpu
def test_gpu_operators_match_cpu(tmp_path, rng):
    img = smooth(rng, (129, 211), np.uint8, sigma=1.2)
    for op, opts in [("h-maxima", ["--h", 12]), ("h-minima", ["--h", 12]), ("regional-maxima", []),
                     ("regional-minima", []), ("fill-holes", []),
                     ("opening-by-reconstruction", ["--radius", 3]),
                     ("closing-by-reconstruction", ["--radius", 2]), ("clear-border", ["--buffer", 1])]:
        cpu = op_cli(tmp_path, op, img, *opts, device="cpu")
        for m in GPU_METHODS:
            gpu = op_cli(tmp_path, op, img, *opts, "--method", m, device="cuda")
            assert np.array_equal(cpu, gpu), f"{op} {m}"


@pytest.mark.gpu
def test_gpu_errors(tmp_path, rng):
    mask = smooth(rng, (20, 30), np.uint8)
    marker = mask.copy()
    marker[7, 11] = 255
    mask[7, 11] = 3
    a, b = save(tmp_path, "a.npy", marker), save(tmp_path, "b.npy", mask)
    out = tmp_path / "o.npy"
    r = run_parac("--device", "cuda", "reconstruct", a, b, out, check=False)
    assert r.returncode == 1 and "x=11 y=7" in r.stderr and not out.exists(), r.stderr
    nan = np.ones((20, 30), np.float32)
    nan[4, 9] = np.nan
    g = save(tmp_path, "g.npy", nan)
    r = run_parac("--device", "cuda", "reconstruct", g, g, out, check=False)
    assert r.returncode == 1 and "NaN at x=9 y=4" in r.stderr, r.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("opts", [["--node-size", "32", "--heaps", "1"], ["--node-size", "128", "--heaps", "7"],
                                  ["--node-size", "512", "--heaps", "1000"], ["--node-size", "256", "--heaps", "2"],
                                  ["--heap-updates", "serial"], ["--heap-updates", "pipelined"],
                                  ["--heap-updates", "serial", "--node-size", "32", "--heaps", "3"]])
def test_gpu_heap_shapes(tmp_path, rng, opts):
    """The heap cluster's node size, heap count and update schedule change the order of work,
    never the result (one heap of r = 32 is deep enough for several units in flight; r = 256
    leaves fewer groups than units)."""
    mask = smooth(rng, (97, 131), np.uint16)
    marker = np.maximum(mask.astype(np.int64) - 20, 0).astype(np.uint16)
    ref = skm.reconstruction(marker, mask)
    out = recon_cli(tmp_path, marker, mask, "--method", "heap", *opts, device="cuda")
    assert np.array_equal(out.astype(np.float64), ref)


@pytest.mark.gpu
@pytest.mark.parametrize("updates", ["pipelined", "serial"])
@pytest.mark.parametrize("dtype,conn", [(np.uint16, 26), (np.float32, 6), (np.uint8, 18)])
def test_gpu_heap_updates_3d(tmp_path, rng, updates, dtype, conn):
    """Both update schedules of the heap cluster on volumes, by dilation and by erosion."""
    mask = smooth(rng, (9, 23, 31), dtype)
    marker = (mask - 20 if dtype == np.float32 else np.maximum(mask.astype(np.int64) - 20, 0)).astype(dtype)
    fp = ndi.generate_binary_structure(3, {6: 1, 18: 2, 26: 3}[conn])
    ref = skm.reconstruction(marker, mask, footprint=fp)
    out = recon_cli(tmp_path, marker, mask, "--method", "heap", "--heap-updates", updates,
                    "--connectivity", str(conn), "--heaps", "5", device="cuda")
    assert np.array_equal(out.astype(np.float64), ref.astype(np.float64))
    above = (mask.astype(np.float64) + 20).astype(dtype)  # smooth() stays below 235
    ero = recon_cli(tmp_path, above, mask, "--method", "heap", "--mode", "erosion",
                    "--heap-updates", updates, "--connectivity", str(conn), device="cuda")
    ref_e = skm.reconstruction(above, mask, method="erosion", footprint=fp)
    assert np.array_equal(ero.astype(np.float64), ref_e.astype(np.float64))


@pytest.mark.gpu
@pytest.mark.parametrize("setup", ["cap", "two_workers", "cap_two_workers", "two_workers_split"])
def test_gpu_strips(tmp_path, rng, setup, monkeypatch):
    """Images in strips of rows (a memory cap), and over two workers on one GPU (whole on the
    first, as small images are, or split into strips resident on the workers): the same bits."""
    device = "cuda:0,cuda:0" if "two" in setup else "cuda"
    if "cap" in setup:
        monkeypatch.setenv("PARAC_CUDA_MEMORY_CAP", "12000")
    if "split" in setup:
        monkeypatch.setenv("PARAC_CUDA_SPLIT", "always")
    mask = smooth(rng, (203, 157), np.uint8)
    marker = np.maximum(mask.astype(np.int64) - 30, 0).astype(np.uint8)
    ref = skm.reconstruction(marker, mask)
    out = recon_cli(tmp_path, marker, mask, "--method", "wavefront", device=device)
    assert np.array_equal(out.astype(np.float64), ref)
    snake = serpentine(151).T.copy()
    seed = np.zeros_like(snake)
    seed[0, 0] = 200
    out = recon_cli(tmp_path, seed, snake, device=device)
    assert np.array_equal(out.astype(np.float64), skm.reconstruction(seed, snake))
    for op, opts in [("h-maxima", ["--h", 12]), ("fill-holes", []), ("clear-border", []),
                     ("opening-by-reconstruction", ["--radius", 2])]:
        assert np.array_equal(op_cli(tmp_path, op, mask, *opts, device=device),
                              op_cli(tmp_path, op, mask, *opts, device="cpu")), op
    # --explain says which layout ran: split over the workers, or strips from host memory
    a, b = save(tmp_path, "a.npy", marker), save(tmp_path, "b.npy", mask)
    r = run_parac("--device", device, "reconstruct", a, b, tmp_path / "o.npy", "--explain")
    said = r.stdout + r.stderr
    if "cap" in setup:
        assert "strips of rows from host memory" in said, said
    elif "split" in setup:
        assert "one strip of rows on each of 2 workers" in said, said
    else:
        assert "whole on the first of 2 workers" in said, said
