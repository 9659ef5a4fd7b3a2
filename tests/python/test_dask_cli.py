"""parac-dask, the command for files too large for one machine
(python/parac/_dask_cli.py): every operation it runs equals `parac
OPERATION` on the whole file bit for bit, for chunkings that cut everywhere,
2D and 3D, reading and writing Zarr, OME-Zarr, tiled BigTIFF and NPY; bad
arguments and bad input exit 1 with a message and write nothing (an earlier
output of the same name stays whole)."""
import contextlib
import io
import os
import subprocess
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
pytest.importorskip("dask.array")
zarr = pytest.importorskip("zarr")
tifffile = pytest.importorskip("tifffile")
ndi = pytest.importorskip("scipy.ndimage")

PARAC = os.environ.get("PARAC_BIN", "parac")


def dask_cli(*args, ok=True, own_process=False):
    """parac-dask ARGS: its exit status and output. In this process by default
    (main(argv), what the console script calls: a new process per call would
    import Dask again each time, about a second); own_process=True runs
    `python -m parac._dask_cli` as the command line does."""
    argv = [str(a) for a in args]
    if own_process:
        env = dict(os.environ)
        if _dir:
            env["PYTHONPATH"] = _dir + os.pathsep + env.get("PYTHONPATH", "")
        r = subprocess.run([sys.executable, "-m", "parac._dask_cli"] + argv, capture_output=True,
                           text=True, env=env, timeout=600)
    else:
        from parac import _dask_cli

        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = _dask_cli.main(argv)
            except SystemExit as e:  # argparse's usage errors
                code = e.code if isinstance(e.code, int) else 1
        r = subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())
    if ok:
        assert r.returncode == 0, r.stderr
    return r


def parac_cli(*args):
    r = subprocess.run([PARAC, "--device", "cpu"] + [str(a) for a in args], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    return r


def read(path):
    p = str(path)
    if p.endswith(".npy"):
        return np.load(p)
    if p.endswith((".tif", ".tiff")):
        return tifffile.imread(p)
    z = zarr.open(p, mode="r")
    return z["0"][:] if isinstance(z, zarr.Group) else z[:]


def write_zarr(path, data, chunks):
    """A Zarr array (format 2) of data, with zarr 2 or zarr 3."""
    fmt = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    z = zarr.open_array(str(path), mode="w", shape=data.shape, chunks=chunks, dtype=data.dtype, **fmt)
    z[...] = data


def blobs(shape, seed, fraction=0.5):
    r = np.random.default_rng(seed)
    f = r.random(shape)
    for ax in range(len(shape)):  # smoothed noise: blobs of a few pixels, holes inside some
        f = (f + np.roll(f, 1, ax) + np.roll(f, -1, ax)) / 3
    return (f > np.quantile(f, 1 - fraction)).astype(np.uint8) * 255


def grey(shape, seed):
    r = np.random.default_rng(seed)
    grids = np.meshgrid(*[np.linspace(0, 4, n) for n in shape], indexing="ij")
    f = sum(np.sin(g * (1 + r.random()) + r.random() * 6) for g in grids) + 0.4 * r.random(shape)
    return np.floor((f - f.min()) / np.ptp(f) * 180 + 20).astype(np.uint8)


# operation, options, input maker
CASES = [
    ("label", [], blobs),
    ("label", ["--connectivity", "4"], blobs),
    ("label", ["--equal-values", "--background", "20"], lambda s, k: (grey(s, k) // 40 * 40).astype(np.uint8)),
    ("fill-holes", [], blobs),
    ("fill-holes", ["--connectivity", "8"], blobs),
    ("fill-holes", [], grey),
    ("fill", [], blobs),
    ("fill", ["--contour", "outside", "--inside-value", "7", "--outside-value", "3", "--connectivity", "8"], blobs),
    ("fill", ["--contour", "keep", "--threshold", "9000"], lambda s, k: grey(s, k).astype(np.uint16) * 97),
    ("clear-border", ["--buffer", "2"], blobs),
    ("remove-small-objects", ["--min-size", "9"], blobs),
    ("remove-small-holes", ["--area-threshold", "7", "--foreground", "1"], blobs),
    ("h-maxima", ["--h", "12"], grey),
    ("h-minima", ["--h", "7.5"], grey),
    ("regional-maxima", [], grey),
    ("regional-minima", ["--connectivity", "4"], grey),
    ("gauss", ["--sigma", "2.5", "--border", "reflect"], grey),
    ("gauss", ["--sigma", "1.5", "--sigma-y", "0", "--border", "wrap", "--dtype", "f32"], grey),
    ("convolve", ["--kernel", "1,2,1;2,4,2;1,2,1", "--border", "replicate"], grey),
    ("convolve", ["--kernel-x", "1,2,3,2", "--kernel-y", "1,-1,1,1,0.5", "--dtype", "f32", "--border", "wrap"], grey),
    ("convert", ["--dtype", "f32"], grey),
    ("convert", ["--dtype", "u16", "--scale", "full"], grey),
    ("convert", ["--scale", "minmax"], grey),
    ("convert", ["--dtype", "f32", "--scale", "minmax"], grey),
    ("convert", ["--dtype", "u16", "--scale", "minmax"], lambda s, k: grey(s, k).astype(np.float32) / 3 - 20),
    ("convert", ["--dtype", "i32", "--scale", "minmax"], lambda s, k: grey(s, k).astype(np.uint16) * 97),
    ("convert", ["--dtype", "u8", "--scale", "minmax"], lambda s, k: np.where(grey(s, k) == 60, np.nan, grey(s, k) / 9)
     .astype(np.float32)),  # NaN skipped by the range
    ("floodfill", ["--seed", "5,7", "--value", "3", "--tolerance", "30"], grey),
    ("floodfill", ["--seed", "5,7", "--seed", "60,40", "--mask", "--tolerance", "15", "--connectivity", "8"], grey),
    ("opening-by-reconstruction", ["--radius", "3"], grey),
    ("opening-by-reconstruction", ["--radius", "20"], grey),  # a square wider than the chunks
    ("closing-by-reconstruction", ["--radius", "2", "--connectivity", "4"], grey),
    ("closing-by-reconstruction", ["--radius", "1"], lambda s, k: grey(s, k).astype(np.uint16) * 300),
    ("opening-by-reconstruction", ["--radius", "2"], lambda s, k: grey(s, k).astype(np.float32) / 7 - 11),
]


def _volume_options(opts):
    return [{"4": "6", "8": "26"}.get(o, o) for o in opts]


@pytest.mark.parametrize("op,opts,make", CASES, ids=["%s%s" % (c[0], "".join(c[1])) for c in CASES])
def test_equals_the_command_line_on_the_whole_file(tmp_path, op, opts, make):
    img = make((61, 83), 3)
    src = tmp_path / "in.tif"
    tifffile.imwrite(src, img, tile=(32, 32))
    want_opts = opts + (["--method", "separable"] if op == "gauss" else [])
    parac_cli(op, src, tmp_path / "want.npy", *want_opts)
    want = np.load(tmp_path / "want.npy")
    for k, (chunks, out) in enumerate((("17", "a.zarr"), ("61,9", "b.tif"), ("1,83", "c.npy"), ("40,30", "d.ome.zarr"))):
        r = dask_cli(op, src, tmp_path / out, "--chunks", chunks, *opts)
        got = read(tmp_path / out)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want, err_msg="%s %s chunks %s" % (op, opts, chunks))
        if op == "label":
            assert r.stdout.strip() == "count: %d" % want.max()


@pytest.mark.parametrize("op,opts", [("label", ["--connectivity", "18"]), ("fill-holes", []),
                                     ("convolve", ["--kernel", "0,1,0;1,-4,1;0,1,0", "--dtype", "f32"]),
                                     ("floodfill", ["--seed", "3,4,5", "--value", "9", "--tolerance", "40",
                                                    "--connectivity", "26"]),
                                     ("h-maxima", ["--h", "20"]), ("remove-small-objects", ["--min-size", "5"]),
                                     ("opening-by-reconstruction", ["--radius", "2", "--connectivity", "6"]),
                                     ("closing-by-reconstruction", ["--radius", "1"]),
                                     ("gauss", ["--sigma", "1", "--sigma-z", "2"]),
                                     ("fill", ["--connectivity", "26", "--contour", "outside"])])
def test_volumes(tmp_path, op, opts):
    img = (blobs if op in ("label", "fill-holes", "remove-small-objects", "fill") else grey)((13, 21, 17), 5)
    src = tmp_path / "in.npy"
    np.save(src, img)
    parac_cli(op, src, tmp_path / "want.npy", *(opts + (["--method", "separable"] if op == "gauss" else [])))
    want = np.load(tmp_path / "want.npy")
    for chunks in ("5", "13,4,17", "1,21,6"):
        dask_cli(op, src, tmp_path / "got.zarr", "--chunks", chunks, *opts)
        np.testing.assert_array_equal(read(tmp_path / "got.zarr"), want, err_msg="%s chunks %s" % (op, chunks))
    dask_cli(op, src, tmp_path / "got.tif", "--chunks", "4", *opts)
    np.testing.assert_array_equal(read(tmp_path / "got.tif"), want)


def test_reconstruct_from_two_files(tmp_path):
    mask = grey((45, 52), 7)
    marker = np.where(mask > 60, mask - 60, 0).astype(np.uint8)
    write_zarr(tmp_path / "marker.zarr", marker, (16, 16))
    np.save(tmp_path / "mask.npy", mask)
    np.save(tmp_path / "marker.npy", marker)
    parac_cli("reconstruct", tmp_path / "marker.npy", tmp_path / "mask.npy", tmp_path / "want.npy")
    dask_cli("reconstruct", tmp_path / "marker.zarr", tmp_path / "mask.npy", tmp_path / "got.zarr", "--chunks", "10")
    np.testing.assert_array_equal(read(tmp_path / "got.zarr"), np.load(tmp_path / "want.npy"))
    above = np.minimum(mask.astype(int) + 50, 255).astype(np.uint8)
    np.save(tmp_path / "above.npy", above)
    parac_cli("reconstruct", tmp_path / "above.npy", tmp_path / "mask.npy", tmp_path / "want.npy", "--mode", "erosion")
    dask_cli("reconstruct", tmp_path / "above.npy", tmp_path / "mask.npy", tmp_path / "got.tif", "--chunks", "7,50",
             "--mode", "erosion")
    np.testing.assert_array_equal(read(tmp_path / "got.tif"), np.load(tmp_path / "want.npy"))


def test_an_ome_zarr_input_with_time_and_channel_axes(tmp_path):
    img = blobs((40, 50), 9)
    fmt = {"zarr_format": 2} if int(zarr.__version__.split(".")[0]) >= 3 else {}
    g = zarr.open_group(str(tmp_path / "in.ome.zarr"), mode="w", **fmt)
    write_zarr(tmp_path / "in.ome.zarr" / "0", img[None, None], (1, 1, 16, 16))
    g.attrs["multiscales"] = [{"version": "0.4", "axes": [{"name": n} for n in "tcyx"],
                               "datasets": [{"path": "0"}]}]
    np.save(tmp_path / "in.npy", img)
    parac_cli("label", tmp_path / "in.npy", tmp_path / "want.npy")
    dask_cli("label", tmp_path / "in.ome.zarr", tmp_path / "got.zarr")
    np.testing.assert_array_equal(read(tmp_path / "got.zarr"), np.load(tmp_path / "want.npy"))


def spotted_labels(shape, seed, dtype):
    """Labelled blobs with one pixel in ten cleared (holes of one label, cavities beside several)."""
    r = np.random.default_rng(seed)
    lab = ndi.label(r.random(shape) < 0.55, ndi.generate_binary_structure(len(shape), len(shape)))[0]
    lab[r.random(shape) < 0.1] = 0
    return (lab % int(np.iinfo(dtype).max) if dtype != np.int32 else lab).astype(dtype)


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.int32])
def test_fill_label_holes_equals_the_command_line(tmp_path, dtype):
    full = dtype == np.int32  # every connectivity and chunking for one dtype
    for shape, conns, chunkings in (((61, 83), ("4", "8"), ("17", "61,9", "1,83")),
                                    ((13, 21, 17), ("6", "26"), ("5", "1,21,6"))):
        src = tmp_path / "in.npy"
        np.save(src, spotted_labels(shape, 4, dtype))
        for conn in conns if full else conns[:1]:
            r = parac_cli("fill-label-holes", src, tmp_path / "want.npy", "--connectivity", conn)
            want = np.load(tmp_path / "want.npy")
            for chunks, out in zip(chunkings if full else chunkings[:1], ("a.zarr", "b.tif", "c.npy")):
                got = dask_cli("fill-label-holes", src, tmp_path / out, "--chunks", chunks, "--connectivity", conn)
                np.testing.assert_array_equal(read(tmp_path / out), want, err_msg="conn %s chunks %s" % (conn, chunks))
                assert got.stdout.strip() == r.stdout.strip()  # filled: N


def test_bad_input_exits_1_and_writes_nothing(tmp_path):
    img = grey((20, 30), 1)
    np.save(tmp_path / "in.npy", img)
    out = tmp_path / "out.zarr"
    write_zarr(out, np.full((3, 3), 7, np.uint8), (3, 3))  # an earlier output: must stay whole

    def fails(*args, match, own_process=False):
        r = dask_cli(*args, ok=False, own_process=own_process)
        assert r.returncode == 1, (args, r.returncode, r.stderr)
        assert match in r.stderr and "Traceback" not in r.stderr, r.stderr
        np.testing.assert_array_equal(read(out), np.full((3, 3), 7, np.uint8))
        assert sorted(os.listdir(tmp_path)) == sorted(before)

    before = os.listdir(tmp_path)
    fails("no-such-op", tmp_path / "in.npy", out, match="unknown or unsupported operation", own_process=True)
    fails("label", tmp_path / "missing.npy", out, match="no such file", own_process=True)
    fails("label", tmp_path / "in.npy", tmp_path / "out.png", match="unknown format")
    fails("label", tmp_path / "in.npy", tmp_path / "nowhere" / "out.zarr", match="does not exist")
    fails("label", tmp_path / "in.npy", out, "--connectivity", "6", match="not valid for a 2D image")
    fails("label", tmp_path / "in.npy", out, "--chunks", "0", match="--chunks")
    fails("h-maxima", tmp_path / "in.npy", out, match="--h is required")
    fails("h-maxima", tmp_path / "in.npy", out, "--h", "0", match="h must be > 0")
    fails("gauss", tmp_path / "in.npy", out, "--sigma", "x", match="--sigma")
    fails("floodfill", tmp_path / "in.npy", out, "--seed", "30,5", "--value", "1", match="outside the image")
    fails("floodfill", tmp_path / "in.npy", out, "--seed", "3,5", "--value", "300", match="does not fit")
    fails("convolve", tmp_path / "in.npy", out, "--kernel", "1,2;3", match="not a kernel")
    (tmp_path / "bad.tif").write_bytes(b"II*\x00garbage" * 10)
    before = os.listdir(tmp_path)
    fails("label", tmp_path / "bad.tif", out, match="not a readable TIFF")
    nan = img.astype(np.float32)
    nan[4, 5] = np.nan
    np.save(tmp_path / "nan.npy", nan)
    before = os.listdir(tmp_path)
    fails("h-minima", tmp_path / "nan.npy", out, "--h", "2", match="NaN")
    fails("opening-by-reconstruction", tmp_path / "nan.npy", out, "--radius", "2", match="NaN")
    np.save(tmp_path / "above.npy", np.minimum(img.astype(int) + 9, 255).astype(np.uint8))
    before = os.listdir(tmp_path)
    fails("reconstruct", tmp_path / "above.npy", tmp_path / "in.npy", out, "--chunks", "8", match="marker")
    np.save(tmp_path / "i32.npy", img.astype(np.int32))
    before = os.listdir(tmp_path)
    fails("h-maxima", tmp_path / "i32.npy", out, "--h", "2", match="dtype i32 is not supported")
    fails("fill-holes", tmp_path / "i32.npy", out, match="dtype i32 is not supported")
    np.save(tmp_path / "f32.npy", img.astype(np.float32))
    before = os.listdir(tmp_path)
    fails("fill-label-holes", tmp_path / "f32.npy", out, match="dtype f32 is not supported")
    np.save(tmp_path / "rgb.npy", np.zeros((4, 5, 6, 7), np.uint8))
    np.save(tmp_path / "five.npy", np.zeros((2, 4, 5, 6, 3), np.uint8))
    before = os.listdir(tmp_path)
    fails("label", tmp_path / "rgb.npy", out, match="1-4 interleaved channels")
    fails("label", tmp_path / "five.npy", out, match="2D image or a 3D volume")


def test_a_distributed_scheduler(tmp_path):
    """Through a LocalCluster of worker processes, from each kind of file. fill-holes
    sends the scheduler two graphs that read the input: its read tasks must be
    defined alike in both (else the scheduler warns that one key has two
    definitions, which can deadlock)."""
    import logging

    distributed = pytest.importorskip("distributed")
    img = blobs((70, 90), 11)
    np.save(tmp_path / "in.npy", img)
    write_zarr(tmp_path / "in.zarr", img, (30, 40))
    tifffile.imwrite(tmp_path / "in.tif", img, tile=(32, 32))
    parac_cli("fill-holes", tmp_path / "in.npy", tmp_path / "want.npy")
    warned = []

    class Catch(logging.Handler):
        def emit(self, record):
            warned.append(record.getMessage())

    catch = Catch(logging.WARNING)
    logging.getLogger("distributed.scheduler").addHandler(catch)
    try:
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      dashboard_address=None) as c:
            for src in ("in.npy", "in.zarr", "in.tif"):
                out = tmp_path / ("got-" + src.replace(".", "-") + ".tif")
                r = dask_cli("fill-holes", tmp_path / src, out, "--chunks", "25", "--scheduler",
                             c.scheduler_address, "--progress", own_process=True)
                assert r.returncode == 0
                np.testing.assert_array_equal(read(out), np.load(tmp_path / "want.npy"))
    finally:
        logging.getLogger("distributed.scheduler").removeHandler(catch)
    assert not [w for w in warned if "run_spec" in w], warned


def _labels(shape, seed):
    r = np.random.default_rng(seed)
    lab, _n = ndi.label(ndi.uniform_filter(r.random(shape), 3) > 0.5)
    return lab


@pytest.mark.parametrize("shape,chunks", [((151, 97), "17"), ((151, 97), "1,97"), ((151, 97), "61,9"),
                                          ((23, 31, 29), "7,11,5")])
def test_regionprops_equals_the_command_line(tmp_path, shape, chunks):
    """The table of a chunked label image equals `parac regionprops` of the whole
    file byte for byte (areas, boxes, centroids and integer intensities are
    exact sums), in every table format (the first pair of dtypes; CSV for the
    others: the formats write the same columns); regions cross many chunks."""
    lab = _labels(shape, 5)
    r = np.random.default_rng(6)
    for ldt, idt in (("int32", "uint16"), ("uint16", "uint8"), ("uint8", "int32")):
        src = tmp_path / ("lab-%s.zarr" % ldt)
        write_zarr(src, (lab % 250 if ldt == "uint8" else lab).astype(ldt), (40,) * lab.ndim)
        np.save(tmp_path / "lab.npy", read(src))
        np.save(tmp_path / "int.npy", r.integers(0, 200 if idt == "uint8" else 60000, shape).astype(idt))
        for ext in ("csv", "json", "npy") if ldt == "int32" else ("csv",):
            parac_cli("regionprops", tmp_path / "lab.npy", tmp_path / "int.npy", tmp_path / ("want." + ext))
            got = dask_cli("regionprops", src, tmp_path / "int.npy", tmp_path / ("got." + ext), "--chunks", chunks)
            assert got.stdout.strip() == "count: %d" % np.unique(read(src)[read(src) > 0]).size
            assert (tmp_path / ("got." + ext)).read_bytes() == (tmp_path / ("want." + ext)).read_bytes(), (ldt, ext)
        parac_cli("regionprops", tmp_path / "lab.npy", tmp_path / "want.csv")
        dask_cli("regionprops", src, tmp_path / "got.csv", "--chunks", chunks, "-q")
        assert (tmp_path / "got.csv").read_bytes() == (tmp_path / "want.csv").read_bytes()


def test_regionprops_of_float_intensities_and_bad_input(tmp_path):
    """f32 intensities are summed in float64 in another order than the whole-file
    call: the means agree to 1e-15 (relative), every other column exactly."""
    lab = _labels((120, 143), 7).astype(np.int32)
    np.save(tmp_path / "lab.npy", lab)
    np.save(tmp_path / "f.npy", np.random.default_rng(8).random(lab.shape).astype(np.float32))
    parac_cli("regionprops", tmp_path / "lab.npy", tmp_path / "f.npy", tmp_path / "want.npy")
    dask_cli("regionprops", tmp_path / "lab.npy", tmp_path / "f.npy", tmp_path / "got.npy", "--chunks", "13,40")
    want, got = np.load(tmp_path / "want.npy"), np.load(tmp_path / "got.npy")
    np.testing.assert_array_equal(got[:, :-1], want[:, :-1])
    np.testing.assert_allclose(got[:, -1], want[:, -1], rtol=1e-15)

    def fails(*args, match):
        r = dask_cli(*args, ok=False)
        assert r.returncode == 1 and match in r.stderr and "Traceback" not in r.stderr, r.stderr
        assert not (tmp_path / "t.csv").exists()

    np.save(tmp_path / "small.npy", lab[:50])
    fails("regionprops", tmp_path / "lab.npy", tmp_path / "small.npy", tmp_path / "t.csv", match="must match")
    fails("regionprops", tmp_path / "f.npy", tmp_path / "t.csv", match="dtype f32 is not supported")
    fails("regionprops", tmp_path / "lab.npy", tmp_path / "t.png", match=".csv, .json or .npy")
    fails("regionprops", tmp_path / "lab.npy", tmp_path / "f.npy", tmp_path / "f.npy", tmp_path / "t.csv",
          match="LABELS [INTENSITY] TABLE")
    np.save(tmp_path / "neg.npy", -lab)
    fails("regionprops", tmp_path / "neg.npy", tmp_path / "t.csv", match="negative")


def _half_mean(a):
    """A 2 x 2 mean along the last two axes, the last row / column repeated on odd sizes; integers rounded half up."""
    pad = [(0, 0)] * (a.ndim - 2) + [(0, n % 2) for n in a.shape[-2:]]
    p = np.pad(a, pad, mode="edge").astype(np.float64)
    m = (p[..., 0::2, 0::2] + p[..., 1::2, 0::2] + p[..., 0::2, 1::2] + p[..., 1::2, 1::2]) / 4
    return np.floor(m + 0.5).astype(a.dtype) if a.dtype.kind in "ui" else m.astype(a.dtype)


def test_ome_zarr_pyramids(tmp_path):
    """--pyramid N: levels 1..N of an OME-Zarr output, each half the one before
    along y and x (every second pixel, or the 2 x 2 mean), with their scales."""
    img = blobs((101, 77), 12)
    np.save(tmp_path / "in.npy", img)
    parac_cli("label", tmp_path / "in.npy", tmp_path / "want.npy")
    dask_cli("label", tmp_path / "in.npy", tmp_path / "lab.ome.zarr", "--pyramid", "3", "--chunks", "30", "-q")
    z = zarr.open(str(tmp_path / "lab.ome.zarr"), mode="r")
    ms = z.attrs["multiscales"][0]
    assert [d["path"] for d in ms["datasets"]] == ["0", "1", "2", "3"]
    assert [d["coordinateTransformations"][0]["scale"] for d in ms["datasets"]] == [[1.0, 1.0], [2.0, 2.0],
                                                                                   [4.0, 4.0], [8.0, 8.0]]
    want = np.load(tmp_path / "want.npy")
    for k in range(4):
        np.testing.assert_array_equal(z[str(k)][:], want[::2 ** k, ::2 ** k])
    np.testing.assert_array_equal(read(tmp_path / "lab.ome.zarr"), want)  # level 0 is what is read back
    # the mean, u8 and f32; a volume keeps its z
    g = grey((67, 45), 13)
    np.save(tmp_path / "g.npy", g)
    parac_cli("gauss", tmp_path / "g.npy", tmp_path / "gw.npy", "--sigma", "1.5", "--method", "separable")
    np.save(tmp_path / "f.npy", g.astype(np.float32) / 7)
    parac_cli("gauss", tmp_path / "f.npy", tmp_path / "fw.npy", "--sigma", "1.5", "--method", "separable")
    for src, ref in (("g.npy", "gw.npy"), ("f.npy", "fw.npy")):
        out = tmp_path / (src + ".ome.zarr")
        dask_cli("gauss", tmp_path / src, out, "--sigma", "1.5", "--pyramid", "2", "--downsample", "mean",
                 "--chunks", "20", "-q")
        level = np.load(tmp_path / ref)
        for k in range(3):
            np.testing.assert_array_equal(zarr.open(str(out), mode="r")[str(k)][:], level)
            level = _half_mean(level)
    vol = blobs((9, 23, 18), 14)
    np.save(tmp_path / "v.npy", vol)
    parac_cli("fill-holes", tmp_path / "v.npy", tmp_path / "vw.npy")
    dask_cli("fill-holes", tmp_path / "v.npy", tmp_path / "v.ome.zarr", "--pyramid", "2", "--chunks", "4,10,7", "-q")
    zv = zarr.open(str(tmp_path / "v.ome.zarr"), mode="r")
    assert zv.attrs["multiscales"][0]["datasets"][2]["coordinateTransformations"][0]["scale"] == [1.0, 4.0, 4.0]
    np.testing.assert_array_equal(zv["2"][:], np.load(tmp_path / "vw.npy")[:, ::4, ::4])
    # refused before any work, nothing written
    before = sorted(os.listdir(tmp_path))
    for args, match in ((("label", tmp_path / "in.npy", tmp_path / "x.zarr", "--pyramid", "2"), "OME-Zarr"),
                        (("label", tmp_path / "in.npy", tmp_path / "x.ome.zarr", "--pyramid", "8"), "do not fit"),
                        (("regionprops", tmp_path / "want.npy", tmp_path / "t.csv", "--pyramid", "1"), "no levels")):
        r = dask_cli(*args, ok=False)
        assert r.returncode == 1 and match in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == before


def test_fill_of_a_volume_slice_by_slice_is_refused(tmp_path):
    """parac fills each slice of a volume on its own under --connectivity 4|8;
    parac-dask says so and fills volumes in 3D only (exit 1, nothing written)."""
    np.save(tmp_path / "v.npy", blobs((5, 12, 11), 9))
    r = dask_cli("fill", tmp_path / "v.npy", tmp_path / "out.zarr", "--connectivity", "8", ok=False)
    assert r.returncode == 1 and "each slice of a volume" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "out.zarr").exists()
    r = dask_cli("fill", tmp_path / "v.npy", tmp_path / "out.zarr", "--seeds", "40", ok=False)
    assert r.returncode == 1 and "does not use it" in r.stderr, r.stderr


def _rgb(shape, seed, dtype=np.uint8):
    r = np.random.default_rng(seed)
    top = {np.uint8: 250, np.uint16: 60000}.get(dtype, 1)
    return (r.random(shape) * top).astype(dtype)


@pytest.mark.parametrize("name,shape,dtype", [("rgb", (61, 47, 3), np.uint8), ("rgba", (40, 33, 4), np.uint16),
                                              ("grey-alpha", (40, 33, 2), np.float32),
                                              ("volume-rgb", (7, 30, 20, 3), np.uint8)])
def test_channels_equal_the_command_line(tmp_path, name, shape, dtype):
    """Images of 2-4 interleaved channels, read as `parac` reads them (an NPY
    of (rows, columns, 1-4)): the Gaussian and convolution filter each
    channel, convert maps channels (luma, alpha, grey replicated) and scales
    them; each equals `parac` on the whole file bit for bit."""
    np.save(tmp_path / "in.npy", _rgb(shape, 3))
    chunks = "3,11,6" if len(shape) == 4 else "13,9"
    cases = [("gauss", ["--sigma", "2", "--method", "separable"], ["--sigma", "2"]),
             ("convolve", ["--kernel", "1,2,1;2,4,2;1,2,1", "--border", "wrap"], None)]
    cases += [("convert", ["--channels", str(c)], None) for c in (1, 2, 3, 4)]
    cases += [("convert", ["--channels", "1", "--scale", "minmax", "--dtype", "u8"], None),
              ("convert", ["--scale", "minmax", "--dtype", "f32"], None)]
    for op, opts, dask_opts in cases:
        parac_cli(op, tmp_path / "in.npy", tmp_path / "want.npy", *opts)
        dask_cli(op, tmp_path / "in.npy", tmp_path / "got.npy", "--chunks", chunks, "-q", *(dask_opts or opts))
        want, got = np.load(tmp_path / "want.npy"), np.load(tmp_path / "got.npy")
        assert got.shape == want.shape, (op, opts)
        np.testing.assert_array_equal(got, want, err_msg="%s %s" % (op, opts))


def test_channels_in_every_format(tmp_path):
    """RGB through TIFF (samples, contiguous or planar), OME-Zarr (a c axis
    before y and x, with its pyramid) and Zarr; a grey image made RGB; a
    3-axis array read as a volume with --layout dhw; a volume of 4 columns
    written so that it reads back as a volume; the operations that take one
    channel refuse more, before any work."""
    rgb = _rgb((61, 47, 3), 4)
    np.save(tmp_path / "rgb.npy", rgb)
    parac_cli("gauss", tmp_path / "rgb.npy", tmp_path / "want.npy", "--sigma", "2", "--method", "separable")
    want = np.load(tmp_path / "want.npy")
    tifffile.imwrite(tmp_path / "in.tif", rgb, photometric="rgb", tile=(16, 16))
    tifffile.imwrite(tmp_path / "planar.tif", np.moveaxis(rgb, -1, 0), photometric="rgb", planarconfig="separate")
    write_zarr(tmp_path / "in.zarr", rgb, (16, 16, 1))
    for src in ("in.tif", "planar.tif", "in.zarr"):
        dask_cli("gauss", tmp_path / src, tmp_path / "o.tif", "--sigma", "2", "--chunks", "20", "-q")
        with tifffile.TiffFile(tmp_path / "o.tif") as tf:
            assert tf.series[0].axes == "YXS" and tf.pages[0].photometric == tifffile.PHOTOMETRIC.RGB
        np.testing.assert_array_equal(tifffile.imread(tmp_path / "o.tif"), want, err_msg=src)
    dask_cli("gauss", tmp_path / "rgb.npy", tmp_path / "o.ome.zarr", "--sigma", "2", "--chunks", "20", "--pyramid", "2",
             "-q")
    z = zarr.open(str(tmp_path / "o.ome.zarr"), mode="r")
    ms = z.attrs["multiscales"][0]
    assert [a["name"] for a in ms["axes"]] == ["c", "y", "x"]
    assert ms["datasets"][2]["coordinateTransformations"][0]["scale"] == [1.0, 4.0, 4.0]
    for k in range(3):
        np.testing.assert_array_equal(np.moveaxis(z[str(k)][:], 0, -1), want[::2 ** k, ::2 ** k])
    dask_cli("convert", tmp_path / "o.ome.zarr", tmp_path / "back.zarr", "-q")  # the c axis read back as channels
    np.testing.assert_array_equal(read(tmp_path / "back.zarr"), want)
    grey = _rgb((50, 41), 5)
    np.save(tmp_path / "grey.npy", grey)
    dask_cli("convert", tmp_path / "grey.npy", tmp_path / "g3.tif", "--channels", "3", "--chunks", "16", "-q")
    np.testing.assert_array_equal(tifffile.imread(tmp_path / "g3.tif"), np.repeat(grey[..., None], 3, axis=2))
    parac_cli("gauss", tmp_path / "rgb.npy", tmp_path / "want.npy", "--sigma", "1", "--method", "separable",
              "--layout", "dhw")
    dask_cli("gauss", tmp_path / "rgb.npy", tmp_path / "got.npy", "--sigma", "1", "--layout", "dhw", "--chunks", "9",
             "-q")
    got, want = np.load(tmp_path / "got.npy"), np.load(tmp_path / "want.npy")
    assert got.shape == want.shape == (61, 47, 3, 1)  # a trailing channel: not read back as RGB
    np.testing.assert_array_equal(got, want)
    np.save(tmp_path / "v4.npy", _rgb((10, 12, 4), 6))  # 4 columns read as channels, as parac reads it
    parac_cli("gauss", tmp_path / "v4.npy", tmp_path / "want.npy", "--sigma", "1.5", "--method", "separable")
    dask_cli("gauss", tmp_path / "v4.npy", tmp_path / "got.npy", "--sigma", "1.5", "-q")
    np.testing.assert_array_equal(np.load(tmp_path / "got.npy"), np.load(tmp_path / "want.npy"))
    before = sorted(os.listdir(tmp_path))
    np.save(tmp_path / "c9.npy", np.zeros((5, 6, 7, 9), np.uint8))
    for args, match in ((("label", "rgb.npy", "x.npy"), "label takes one"),
                        (("fill-holes", "in.tif", "x.zarr"), "fill-holes takes one"),
                        (("regionprops", "rgb.npy", "t.csv"), "regionprops takes one"),
                        (("gauss", "c9.npy", "x.npy", "--sigma", "1"), "1-4 interleaved channels")):
        r = dask_cli(*[tmp_path / a if "." in a and not a.startswith("-") else a for a in args], ok=False)
        assert r.returncode == 1 and match in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert sorted(os.listdir(tmp_path)) == sorted(before + ["c9.npy"])


def segmentation(dtype):
    """Touching labels with sparse numbers, one on the volume's border, one in two pieces, one too thin."""
    v = np.zeros((24, 30, 36), dtype)
    v[3:12, 4:13, 3:30] = 7
    v[3:12, 13:22, 5:28] = 300
    v[0:6, 24:30, 0:36] = 12
    v[14:20, 22:28, 22:34] = 5
    v[14:20, 22:28, 6:12] = 5
    v[22, 2:28, 2] = 9
    return v


@pytest.mark.parametrize("dtype,chunks", [(np.uint16, "10,11,12"), (np.int32, "7")])
def test_skeleton_of_every_label(tmp_path, dtype, chunks):
    """parac-dask skeleton: each label as `parac skeleton` skeletonizes the volume holding it alone (the
    Python call of every label in memory, which its own tests hold to that), the graphs and the labels
    without a skeleton in the JSON file; a one-object mask gives `parac skeleton`'s own output."""
    import json

    import parac

    v = segmentation(dtype)
    np.save(tmp_path / "seg.npy", v)
    out, graph = tmp_path / "skel.zarr", tmp_path / "graphs.json"
    r = dask_cli("skeleton", tmp_path / "seg.npy", out, "--chunks", chunks, "--device", "cpu", "--method", "exact",
                 "--graph", graph, "--spacing", "1,1,2")
    got = read(out)
    want, graphs, skipped = parac.morphology.skeletonize_pf_labels(v, method="exact", spacing=(2, 1, 1),
                                                                   return_graphs=True)
    assert got.dtype == v.dtype
    np.testing.assert_array_equal(got, want)
    assert set(np.unique(got)) == {0, 7, 300, 12, 5}
    doc = json.loads(graph.read_text())
    assert set(doc["labels"]) == {"7", "300", "12", "5"} and set(doc["skipped"]) == {"9"}
    for lab, g in graphs.items():
        mine = doc["labels"][str(lab)]
        assert len(mine["segments"]) == len(g["segments"])
        np.testing.assert_allclose([n["position"] for n in mine["nodes"]], [n["position"] for n in g["nodes"]])
    assert "skeletons: 4 of 5 labels" in r.stdout and "label 9: no skeleton" in r.stdout
    mask = np.where(v == 7, 255, 0).astype(np.uint8)
    np.save(tmp_path / "one.npy", mask)
    dask_cli("skeleton", tmp_path / "one.npy", tmp_path / "one-dask.npy", "--chunks", chunks, "--device", "cpu",
             "--method", "exact", "-q")
    parac_cli("skeleton", tmp_path / "one.npy", tmp_path / "one-parac.npy", "--layout", "dhw", "--method", "exact")
    a, b = np.load(tmp_path / "one-dask.npy"), np.load(tmp_path / "one-parac.npy")
    assert a.dtype == b.dtype == np.uint8 and a.any()
    np.testing.assert_array_equal(a, b)


def test_skeleton_bad_input(tmp_path):
    v = segmentation(np.uint16)
    np.save(tmp_path / "seg.npy", v)
    np.save(tmp_path / "flat.npy", v[3])
    np.save(tmp_path / "f32.npy", v.astype(np.float32))
    before = sorted(os.listdir(tmp_path))
    out = tmp_path / "out.npy"
    for args, match in (((tmp_path / "seg.npy", out, "--threshold", "3"), "--threshold"),
                        ((tmp_path / "flat.npy", out), "got 2 dimensions"),
                        ((tmp_path / "f32.npy", out), "dtype f32 is not supported"),
                        ((tmp_path / "seg.npy", out, "--graph", tmp_path / "g.swc"), "written as .json"),
                        ((tmp_path / "seg.npy", out, "--graph", tmp_path / "no" / "g.json"), "no such directory"),
                        ((tmp_path / "seg.npy", out, "--spacing", "1,x,1"), "--spacing")):
        r = dask_cli("skeleton", *args, "--device", "cpu", ok=False)
        assert r.returncode == 1 and match in r.stderr and "Traceback" not in r.stderr, (args, r.stderr)
        assert sorted(os.listdir(tmp_path)) == before


def test_npy_chunks_parse_the_header_once(tmp_path, monkeypatch):
    """Chunks of an NPY file read in many threads share one memory map:
    np.load parses the header with ast.literal_eval, which CPython 3.11 cannot
    run in two threads at once (SystemError "AST constructor recursion depth
    mismatch"). A file rewritten in place with another dtype and the same size
    is opened again, not read through the old header."""
    import dask
    from parac import _dask_files

    data = np.arange(301 * 203, dtype=np.uint16).reshape(301, 203)
    path = tmp_path / "a.npy"
    np.save(path, data)
    loads = []
    real_load = np.load

    def counting_load(*args, **kwargs):
        loads.append(args[0])
        return real_load(*args, **kwargs)

    monkeypatch.setattr(np, "load", counting_load)
    a, _ = _dask_files.open_array(str(path), chunks=7)
    with dask.config.set(scheduler="threads", num_workers=8):
        got = a.compute()
    assert np.array_equal(got, data)
    assert len(loads) == 1, "np.load ran %d times for %d chunks" % (len(loads), a.npartitions)
    np.save(path, data.astype(np.int16))  # same size, same shape, another dtype
    a, _ = _dask_files.open_array(str(path), chunks=50)
    got = a.compute(scheduler="threads")
    assert got.dtype == np.int16 and np.array_equal(got, data.astype(np.int16))
    assert len(loads) == 2


@pytest.mark.parametrize("shape,chunks", [((151, 97), "17"), ((151, 97), "1,97"), ((23, 31, 29), "7,11,5")])
def test_lookup_equals_the_command_line(tmp_path, shape, chunks):
    """parac-dask lookup INDEX TABLE OUT equals `parac lookup` on the whole
    files, for index and table dtypes and output formats; an index out of
    range exits 1 naming it and writes nothing."""
    r = np.random.default_rng(4)
    for k, (itype, ttype, ext) in enumerate((("uint16", "float32", "zarr"), ("int32", "int64", "npy"),
                                             ("uint8", "uint8", "tif"), ("int64", "float64", "zarr"))):
        index = r.integers(0, 200, shape).astype(itype)
        src = tmp_path / ("index-%d.zarr" % k)
        write_zarr(src, index, (40,) * index.ndim)
        np.save(tmp_path / "index.npy", index)
        np.save(tmp_path / "table.npy", (r.random((1, 200) if k % 2 else 200) * 1e4).astype(ttype))  # 1-D too
        parac_cli("lookup", tmp_path / "index.npy", tmp_path / "table.npy", tmp_path / ("want-%d.npy" % k))
        got = tmp_path / ("got-%d.%s" % (k, ext))
        dask_cli("lookup", src, tmp_path / "table.npy", got, "--chunks", chunks, "-q")
        want = np.load(tmp_path / ("want-%d.npy" % k))
        assert read(got).dtype == want.dtype and read(got).tobytes() == want.tobytes(), (itype, ttype, ext)
    index[-1, -1] = 200
    write_zarr(tmp_path / "bad.zarr", index, (40,) * index.ndim)
    r = dask_cli("lookup", tmp_path / "bad.zarr", tmp_path / "table.npy", tmp_path / "bad-out.zarr", ok=False)
    assert r.returncode == 1 and "INDEX holds 200 at" in r.stderr
    assert not (tmp_path / "bad-out.zarr").exists()
    r = dask_cli("lookup", tmp_path / "index.npy", tmp_path / "table.npy", tmp_path / "f.zarr", ok=False)
    r2 = dask_cli("lookup", tmp_path / "table.npy", tmp_path / "index.npy", tmp_path / "g.zarr", ok=False)
    assert r.returncode == 0 and r2.returncode == 1 and "not supported" in r2.stderr
