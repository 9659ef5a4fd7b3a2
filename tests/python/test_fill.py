"""Region filling and seeded flood fill against scipy.ndimage.binary_fill_holes,
skimage.segmentation.flood_fill and cv2.floodFill, through the CLI: every
method, connectivity, contour option and dtype; polygons, circles, nested
rings, glyph outlines, contours on the border, empty and full images,
one-pixel-wide images, noise, 3D shells; errors for bad input. GPU methods
run where a GPU is present and must give the same bits."""
import cv2
import numpy as np
import pytest
import scipy.ndimage as ndi
import skimage.segmentation as sks

from conftest import GPU, run_parac

CPU_METHODS = ["serial", "seeds", "ccl"]
GPU_METHODS = ["ccl", "seeds", "hybrid"]
RANK = {4: 1, 8: 2, 6: 1, 18: 2, 26: 3}


def save(tmp_path, name, arr):
    p = tmp_path / name
    np.save(p, arr)
    return p


def fill_cli(tmp_path, img, *opts, device="cpu", env=None):
    a = save(tmp_path, "in.npy", img)
    out = tmp_path / "out.npy"
    run_parac("--device", device, "fill", a, out, "--layout", "dhw", *opts, env=env)
    return np.load(out)


def reference(img, conn=None, threshold=1, contour="inside", inside=255, outside=0):
    """binary_fill_holes with the matching structure; 4/8 on a volume: slice by slice."""
    c = img >= threshold
    if conn is None:
        conn = 6 if img.ndim == 3 else 4
    if img.ndim == 3 and conn in (4, 8):
        filled = np.stack([ndi.binary_fill_holes(s, ndi.generate_binary_structure(2, RANK[conn])) for s in c])
    else:
        filled = ndi.binary_fill_holes(c, ndi.generate_binary_structure(img.ndim, RANK[conn]))
    dtype = img.dtype if contour == "keep" else np.uint8
    out = np.where(filled, inside, outside).astype(dtype)
    if contour == "outside":
        out[c] = outside
    elif contour == "keep":
        out[c] = img[c]
    return out


# ---- test images -----------------------------------------------------------------
def polygons(rng, h, w, line_type, n=6):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        k = rng.integers(3, 8)
        pts = np.stack([rng.integers(-w // 8, w + w // 8, k), rng.integers(-h // 8, h + h // 8, k)], 1)
        cv2.polylines(img, [pts.astype(np.int32)], True, 255, 1, line_type)
    return img


def circles_and_rings(rng, h, w, line_type):
    img = np.zeros((h, w), np.uint8)
    for _ in range(5):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        for r in range(int(rng.integers(4, max(5, min(h, w) // 2))), 2, -5):  # nested rings
            cv2.circle(img, c, r, 255, 1, line_type)
    return img


def glyphs(h, w, line_type):
    img = np.zeros((h, w), np.uint8)
    for i, text in enumerate(["ABDOPQR", "08&@%", "agebdq"]):
        cv2.putText(img, text, (2, 30 + 40 * i), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 255, 1, line_type)
    return img


def border_contours(h, w):
    img = np.zeros((h, w), np.uint8)
    img[0, :] = 255                      # a whole border row
    img[:, w // 2] = 255                 # splits the image: nothing closed
    img[h // 3:2 * h // 3, 0] = 255      # along the left border
    cv2.rectangle(img, (w // 2, h // 4), (w - 1, 3 * h // 4), 255, 1)  # closed by the right edge
    cv2.circle(img, (3, h - 4), 6, 255, 1, 4)  # cut by the corner
    return img


def generated(rng, kind, h=97, w=131, conn=4):
    line = cv2.LINE_8 if conn == 4 else cv2.LINE_4  # an 8-connected line closes only for 4-filling
    if kind == "polygons":
        return polygons(rng, h, w, line)
    if kind == "circles":
        return circles_and_rings(rng, h, w, line)
    if kind == "glyphs":
        return glyphs(130, 260, line)
    if kind == "border":
        return border_contours(h, w)
    if kind == "noise":
        return (rng.random((h, w)) < 0.45).astype(np.uint8) * 255
    if kind == "empty":
        return np.zeros((h, w), np.uint8)
    if kind == "full":
        return np.full((h, w), 255, np.uint8)
    raise ValueError(kind)


KINDS = ["polygons", "circles", "glyphs", "border", "noise", "empty", "full"]


@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("kind", KINDS)
def test_fill_2d_matches_scipy(tmp_path, rng, method, conn, kind):
    img = generated(rng, kind, conn=conn)
    got = fill_cli(tmp_path, img, "--method", method, "--connectivity", conn)
    np.testing.assert_array_equal(got, reference(img, conn))


def test_default_connectivity_is_4_and_8_contours_close(tmp_path, rng):
    img = np.zeros((40, 50), np.uint8)
    cv2.circle(img, (25, 20), 12, 255, 1, cv2.LINE_8)  # 8-connected: diagonal steps
    got = fill_cli(tmp_path, img)
    assert got[20, 25] == 255  # filled under the default 4-connected background
    got8 = fill_cli(tmp_path, img, "--connectivity", 8)
    assert got8[20, 25] == 0  # the background leaks through the diagonal steps
    np.testing.assert_array_equal(got8, reference(img, 8))


@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("contour", ["inside", "outside", "keep"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_contour_options_values_threshold_dtypes(tmp_path, rng, method, contour, dtype):
    top = 255 if dtype == np.uint8 else 60000
    img = (circles_and_rings(rng, 83, 121, cv2.LINE_8).astype(np.float64) / 255 *
           rng.integers(top // 2, top + 1, (83, 121))).astype(dtype)
    img[img > 0] = np.maximum(img[img > 0], top // 2)
    img[rng.random(img.shape) < 0.02] = top // 4  # below the threshold: background
    t = top // 3
    got = fill_cli(tmp_path, img, "--method", method, "--contour", contour, "--threshold", t,
                   "--inside-value", 200, "--outside-value", 17)
    ref = reference(img, 4, threshold=t, contour=contour, inside=200, outside=17)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("shape", [(1, 1), (1, 37), (37, 1), (2, 2), (3, 50), (50, 3)])
def test_thin_images(tmp_path, rng, method, shape):
    img = ((rng.random(shape) < 0.4) * 255).astype(np.uint8)
    got = fill_cli(tmp_path, img, "--method", method)
    np.testing.assert_array_equal(got, reference(img, 4))


@pytest.mark.parametrize("seeds", [1, 3, 50, 2000])
def test_seeds_count_and_threads_do_not_change_the_result(tmp_path, rng, seeds):
    img = generated(rng, "polygons", 211, 173)
    ref = reference(img, 4)
    for threads in ("1", "3", "8"):
        got = fill_cli(tmp_path, img, "--method", "seeds", "--seeds", seeds, env={"OMP_NUM_THREADS": threads})
        np.testing.assert_array_equal(got, ref)


def spiral(n):
    """A square spiral wall with a one-pixel corridor: the longest fill path."""
    img = np.zeros((n, n), np.uint8)
    lo, hi = 1, n - 2
    while lo < hi:
        img[lo, lo:hi + 1] = 255
        img[lo:hi + 1, hi] = 255
        img[hi, lo:hi + 1] = 255
        img[lo + 2:hi + 1, lo] = 255
        lo, hi = lo + 2, hi - 2
    return img


@pytest.mark.parametrize("method", CPU_METHODS)
def test_spiral_corridor(tmp_path, method):
    img = spiral(201)
    np.testing.assert_array_equal(fill_cli(tmp_path, img, "--method", method), reference(img, 4))


def shells(rng, d=23, h=31, w=37):
    z, y, x = np.mgrid[:d, :h, :w]
    img = np.zeros((d, h, w), np.uint8)
    for _ in range(4):
        c = rng.uniform([0, 0, 0], [d, h, w])
        r = rng.uniform(3, 10)
        dist = np.sqrt((z - c[0]) ** 2 + (y - c[1]) ** 2 + (x - c[2]) ** 2)
        img[(dist >= r) & (dist < r + 1.3)] = 255
    img[rng.random(img.shape) < 0.03] = 255
    return img


@pytest.mark.parametrize("method", CPU_METHODS)
@pytest.mark.parametrize("conn", [6, 18, 26, 4, 8])
def test_fill_3d_shells(tmp_path, rng, method, conn):
    img = shells(rng)
    got = fill_cli(tmp_path, img, "--method", method, "--connectivity", conn)
    np.testing.assert_array_equal(got, reference(img, conn))


def test_3d_ring_stack_is_not_a_hole_but_per_slice_it_is(tmp_path):
    """Octave's imfill case: a ring stacked in 3 slices is open along z."""
    img = np.zeros((3, 7, 7), np.uint8)
    for s in img:
        cv2.rectangle(s, (1, 1), (5, 5), 255, 1)
    assert fill_cli(tmp_path, img)[1, 3, 3] == 0
    assert fill_cli(tmp_path, img, "--connectivity", 4)[1, 3, 3] == 255


def test_paper_resolution_8k(tmp_path, rng):
    """The paper's largest resolution, 7680x4320, against cv2.floodFill from the border + invert."""
    h, w = 4320, 7680
    img = np.zeros((h, w), np.uint8)
    for _ in range(60):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        cv2.circle(img, c, int(rng.integers(10, 900)), 255, 1, cv2.LINE_8)
    cv2.rectangle(img, (100, 100), (w - 101, h - 101), 255, 1)
    pad = np.zeros((h + 2, w + 2), np.uint8)
    pad[1:-1, 1:-1] = img
    mask = np.zeros((h + 4, w + 4), np.uint8)
    cv2.floodFill(pad, mask, (0, 0), 128, 0, 0, 4)
    ref = np.where(pad[1:-1, 1:-1] == 128, 0, 255).astype(np.uint8)
    for method in CPU_METHODS:
        np.testing.assert_array_equal(fill_cli(tmp_path, img, "--method", method), ref)


# ---- GPU methods: the same bits as the CPU -------------------------------------------
@pytest.mark.gpu
@pytest.mark.parametrize("method", GPU_METHODS)
@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("kind", KINDS)
def test_gpu_fill_2d(tmp_path, rng, method, conn, kind):
    img = generated(rng, kind, conn=conn)
    got = fill_cli(tmp_path, img, "--method", method, "--connectivity", conn, device="cuda")
    np.testing.assert_array_equal(got, reference(img, conn))


@pytest.mark.gpu
@pytest.mark.parametrize("method", GPU_METHODS)
@pytest.mark.parametrize("conn", [6, 18, 26, 4, 8])
def test_gpu_fill_3d(tmp_path, rng, method, conn):
    img = shells(rng)
    got = fill_cli(tmp_path, img, "--method", method, "--connectivity", conn, device="cuda")
    np.testing.assert_array_equal(got, reference(img, conn))


@pytest.mark.gpu
@pytest.mark.parametrize("method", GPU_METHODS)
@pytest.mark.parametrize("contour", ["inside", "outside", "keep"])
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16])
def test_gpu_contour_options_and_dtypes(tmp_path, rng, method, contour, dtype):
    img = circles_and_rings(rng, 83, 121, cv2.LINE_8).astype(dtype) * (200 if dtype == np.uint16 else 1)
    got = fill_cli(tmp_path, img, "--method", method, "--contour", contour, "--threshold", 100,
                   "--inside-value", 9, "--outside-value", 250, device="cuda")
    np.testing.assert_array_equal(got, reference(img, 4, 100, contour, 9, 250))


@pytest.mark.gpu
@pytest.mark.parametrize("method", GPU_METHODS)
@pytest.mark.parametrize("shape", [(1, 1), (1, 37), (37, 1), (3, 50), (50, 3), (1025, 77), (31, 2049)])
def test_gpu_thin_and_odd(tmp_path, rng, method, shape):
    img = ((rng.random(shape) < 0.4) * 255).astype(np.uint8)
    got = fill_cli(tmp_path, img, "--method", method, device="cuda")
    np.testing.assert_array_equal(got, reference(img, 4))


@pytest.mark.gpu
@pytest.mark.parametrize("method", GPU_METHODS)
def test_gpu_spiral_and_8k(tmp_path, rng, method):
    img = spiral(1001)
    np.testing.assert_array_equal(fill_cli(tmp_path, img, "--method", method, device="cuda"), reference(img, 4))
    big = polygons(rng, 4320, 7680, cv2.LINE_8, n=40)
    np.testing.assert_array_equal(fill_cli(tmp_path, big, "--method", method, device="cuda"),
                                  fill_cli(tmp_path, big, "--method", "serial"))


@pytest.mark.gpu
def test_gpu_seeds_small_stacks_and_few_seeds(tmp_path, rng):
    """Deep, branching regions overflow the fixed per-thread stacks: never a wrong result."""
    img = ((rng.random((517, 619)) < 0.35) * 255).astype(np.uint8)
    ref = reference(img, 4)
    for seeds in (1, 5, 32768, 65532):
        np.testing.assert_array_equal(
            fill_cli(tmp_path, img, "--method", "seeds", "--seeds", seeds, device="cuda"), ref)


# ---- errors ---------------------------------------------------------------------------
def test_fill_errors(tmp_path):
    f32 = save(tmp_path, "f.npy", np.zeros((5, 5), np.float32))
    rgb = save(tmp_path, "rgb.npy", np.zeros((5, 5, 3), np.uint8))
    ok = save(tmp_path, "ok.npy", np.zeros((5, 5), np.uint8))
    out = tmp_path / "o.npy"
    cases = [
        (["fill", f32, out], "u8 or u16"),
        (["fill", rgb, out, "--layout", "hwc"], "channels"),
        (["fill", ok, out, "--connectivity", 6], "needs a volume"),
        (["fill", ok, out, "--connectivity", 5], "connectivity"),
        (["fill", ok, out, "--seeds", 70000], "seeds"),
        (["fill", ok, out, "--contour", "middle"], "inside|outside|keep"),
        (["fill", ok, out, "--method", "nope"], "unknown method"),
    ]
    for args, msg in cases:
        r = run_parac("--device", "cpu", *args, check=False)
        assert r.returncode == 1, (args, r.stderr)
        assert msg in r.stderr, (args, r.stderr)
        assert not out.exists()


# ---- floodfill ---------------------------------------------------------------------------
def flood_cli(tmp_path, img, *opts, device="cpu"):
    a = save(tmp_path, "in.npy", img)
    out = tmp_path / "out.npy"
    run_parac("--device", device, "floodfill", a, out, "--layout", "dhw", *opts)
    return np.load(out)


DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.float32])
@pytest.mark.parametrize("conn", [4, 8])
@pytest.mark.parametrize("tol", [0, 3, 40])
def test_floodfill_matches_skimage(tmp_path, rng, device, dtype, conn, tol):
    img = (ndi.uniform_filter(rng.random((71, 93)), 5) * 100).astype(dtype)
    if dtype != np.float32:
        img = (img // 4 * 4).astype(dtype)  # plateaus, so tolerance 0 fills more than one pixel
    seed = (int(rng.integers(0, 71)), int(rng.integers(0, 93)))
    value = 250
    got = flood_cli(tmp_path, img, "--seed", f"{seed[1]},{seed[0]}", "--value", value,
                    "--tolerance", tol, "--connectivity", conn, device=device)
    ref = sks.flood_fill(img, seed, value, connectivity=1 if conn == 4 else 2, tolerance=tol)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("conn", [4, 8])
def test_floodfill_matches_cv2_fixed_range(tmp_path, rng, device, conn):
    img = (rng.random((64, 80)) * 8).astype(np.uint8) * 30
    ref = img.copy()
    mask = np.zeros((66, 82), np.uint8)
    cv2.floodFill(ref, mask, (7, 5), 99, 30, 30, conn | cv2.FLOODFILL_FIXED_RANGE)
    got = flood_cli(tmp_path, img, "--seed", "7,5", "--value", 99, "--tolerance", 30, "--connectivity", conn,
                    device=device)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("conn", [6, 26])
def test_floodfill_3d_and_several_seeds(tmp_path, rng, device, conn):
    img = shells(rng)
    seeds = [(0, 0, 0), (11, 15, 18), (5, 3, 30)]
    ref = img.copy()
    for z, y, x in seeds:  # each seed judged on the input: the union of the regions
        region = sks.flood(img, (z, y, x), connectivity=1 if conn == 6 else 3)
        ref[region] = 77
    opts = []
    for z, y, x in seeds:
        opts += ["--seed", f"{x},{y},{z}"]
    got = flood_cli(tmp_path, img, *opts, "--value", 77, "--connectivity", conn, device=device)
    np.testing.assert_array_equal(got, ref)


def test_floodfill_errors(tmp_path):
    ok = save(tmp_path, "ok.npy", np.zeros((5, 6), np.uint8))
    out = tmp_path / "o.npy"
    cases = [
        (["--seed", "6,0", "--value", 1], "outside"),
        (["--seed", "0,-1", "--value", 1], "outside"),
        (["--seed", "1;2", "--value", 1], "X,Y"),
        (["--seed", "1,2", "--value", 256], "does not fit"),
        (["--seed", "1,2", "--value", 1.5], "does not fit"),
        (["--value", 1], "--seed"),
        (["--seed", "1,1"], "--value"),
    ]
    for args, msg in cases:
        r = run_parac("--device", "cpu", "floodfill", ok, out, *args, check=False)
        assert r.returncode == 1, (args, r.stderr)
        assert msg in r.stderr, (args, r.stderr)
        assert not out.exists()


# ---- many images: --out-dir ---------------------------------------------------------------
def _batch_inputs(tmp_path, rng, n=9):
    d = tmp_path / "in"
    d.mkdir()
    for i in range(n):
        img = generated(rng, "circles", 90 + i, 120 + 3 * i)
        cv2.imwrite(str(d / f"img{i:02d}.png"), img)
    return d


@pytest.mark.parametrize("device,method", [("cpu", "seeds"), ("cpu", "ccl"),
                                           pytest.param("cuda", "ccl", marks=pytest.mark.gpu),
                                           pytest.param("cuda", "hybrid", marks=pytest.mark.gpu),
                                           pytest.param("cuda", "seeds", marks=pytest.mark.gpu)])
def test_batch_matches_single_runs_and_reports_bad_files(tmp_path, rng, device, method):
    d = _batch_inputs(tmp_path, rng)
    (d / "broken.png").write_bytes(b"not a png at all")
    out = tmp_path / "out"
    r = run_parac("--device", device, "fill", d, "--out-dir", out, "--method", method, "--workers", 3, check=False)
    assert r.returncode == 1, r.stderr
    assert "broken.png" in r.stderr and "1 failed" in r.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"img{i:02d}.png" for i in range(9)]  # nothing for the broken file, no temporaries
    for i in range(9):
        img = cv2.imread(str(d / f"img{i:02d}.png"), cv2.IMREAD_UNCHANGED)
        np.testing.assert_array_equal(cv2.imread(str(out / f"img{i:02d}.png"), cv2.IMREAD_UNCHANGED),
                                      reference(img, 4))


def test_batch_glob_any_operation_and_no_overwrite(tmp_path, rng):
    d = _batch_inputs(tmp_path, rng, n=4)
    out = tmp_path / "blurred"
    run_parac("--device", "cpu", "gauss", str(d / "img0*.png"), "--sigma", 2, "--out-dir", out)
    assert len(list(out.iterdir())) == 4
    one = tmp_path / "one.png"
    run_parac("--device", "cpu", "gauss", d / "img02.png", one, "--sigma", 2)
    np.testing.assert_array_equal(cv2.imread(str(out / "img02.png")), cv2.imread(str(one)))
    r = run_parac("--device", "cpu", "fill", d / "img01.png", "--out-dir", d, check=False)
    assert r.returncode == 1 and "would replace its input" in r.stderr
    r = run_parac("--device", "cpu", "fill", str(d / "nothing*.png"), "--out-dir", out, check=False)
    assert r.returncode == 1 and "no file matches" in r.stderr
    r = run_parac("--device", "cpu", "reconstruct", d / "img01.png", d / "img02.png", "--out-dir", out, check=False)
    assert r.returncode == 1 and "one input and one output" in r.stderr


def test_ccl_keeps_its_run_arrays_between_calls(rng):
    """Method 'ccl' on the CPU keeps run arrays of 4 MiB and more between calls
    (core/host_cache.c): each call of a series, on noise of other densities
    (other size classes, and a class taken again), equals scipy's."""
    parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")

    for density in (0.5, 0.7, 0.5, 0.6):
        img = rng.random((2048, 2600)) < density  # about a million background runs
        got = parac.ndimage.binary_fill_holes(img, device="cpu", method="ccl")
        np.testing.assert_array_equal(got, ndi.binary_fill_holes(img))
    parac.memory_trim()
    np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(img, device="cpu", method="ccl"),
                                  ndi.binary_fill_holes(img))
