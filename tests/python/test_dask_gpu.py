"""Dask arrays of CuPy chunks (marked gpu): every parac function that takes
Dask arrays computes each chunk on its GPU and keeps it there, and equals
the in-memory call on the host bit for bit; then the same on a
dask_cuda.LocalCUDACluster with one worker per GPU."""
import os
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
da = pytest.importorskip("dask.array")
ndi = pytest.importorskip("scipy.ndimage")

pytestmark = pytest.mark.gpu
DEVICES = ("cpu", "cuda")  # the command run on each; its outputs compared


@pytest.fixture(params=[0, 100000], ids=["blocks-alone", "groups"])
def groups(request):
    """The test twice: every block alone, and blocks in groups of several (a
    bound far below the 1 GiB that GPU blocks get by default, which would
    make each of these small arrays one group)."""
    import dask

    with dask.config.set({"parac.local-group-bytes": request.param}):
        yield request.param


def cupy_chunks(a, chunks):
    cupy = pytest.importorskip("cupy")
    return da.from_array(cupy.asarray(a), chunks=chunks, asarray=False)


def on_device(x):
    """x computed: its blocks were CuPy arrays (the result is one), returned on the host."""
    import cupy

    got = x.compute()
    assert isinstance(got, cupy.ndarray), type(got)
    return cupy.asnumpy(got)


def cases():
    r = np.random.default_rng(1)
    mask = r.random((203, 317)) < 0.5
    vol = r.random((21, 40, 35)) < 0.45
    values = (r.random((97, 131)) * 3).astype(np.uint8)
    return mask, vol, values


def test_cupy_chunks_equal_the_in_memory_call(groups):
    mask, vol, values = cases()
    for chunks in ((1, 317), (203, 7)):  # chunks of one row or a few columns: labels only
        lab, n = parac.ndimage.label(cupy_chunks(mask, chunks), np.ones((3, 3)))
        np.testing.assert_array_equal(on_device(lab), ndi.label(mask, np.ones((3, 3)))[0])
    for chunks in ((64, 80), (50, 33)):
        d = cupy_chunks(mask, chunks)
        lab, n = parac.ndimage.label(d, np.ones((3, 3)))
        want, wn = ndi.label(mask, np.ones((3, 3)))
        np.testing.assert_array_equal(on_device(lab), want)
        assert int(n.compute()) == wn
        np.testing.assert_array_equal(on_device(parac.ndimage.binary_fill_holes(d)), ndi.binary_fill_holes(mask))
        np.testing.assert_array_equal(on_device(parac.segmentation.clear_border(d, buffer_size=2)),
                                      parac.segmentation.clear_border(mask, buffer_size=2))
        np.testing.assert_array_equal(on_device(parac.segmentation.flood(d, (100, 150), connectivity=2)),
                                      parac.segmentation.flood(mask, (100, 150), connectivity=2))
        np.testing.assert_array_equal(on_device(parac.morphology.remove_small_objects(d, 9)),
                                      parac.morphology.remove_small_objects(mask, 9))
        np.testing.assert_array_equal(on_device(parac.morphology.remove_small_holes(d, 9)),
                                      parac.morphology.remove_small_holes(mask, 9))
        f = mask.astype(np.float32) * 100
        np.testing.assert_array_equal(on_device(parac.ndimage.gaussian_filter(cupy_chunks(f, chunks), 3)),
                                      parac.ndimage.gaussian_filter(f, 3, method="separable"))
    dv = cupy_chunks(values, (20, 30))
    np.testing.assert_array_equal(on_device(parac.measure.label(dv, background=1)),
                                  parac.measure.label(values, background=1))
    for st in (None, np.ones((3, 3, 3))):
        d = cupy_chunks(vol, (5, 13, 12))
        np.testing.assert_array_equal(on_device(parac.ndimage.label(d, st)[0]), ndi.label(vol, st)[0])
        np.testing.assert_array_equal(on_device(parac.ndimage.binary_fill_holes(d, st)),
                                      ndi.binary_fill_holes(vol, st))


def test_host_chunks_through_the_gpu(groups):
    """NumPy chunks with device="cuda": each chunk is copied to the GPU once,
    labelled and decided there, and its result comes back to the host."""
    mask, vol, values = cases()
    for chunks in ((64, 80), (203, 9)):
        d = da.from_array(mask, chunks=chunks)
        lab, n = parac.ndimage.label(d, np.ones((3, 3)), device="cuda")
        got = lab.compute()
        want, wn = ndi.label(mask, np.ones((3, 3)))
        assert isinstance(got, np.ndarray)
        np.testing.assert_array_equal(got, want)
        assert int(n.compute()) == wn
        np.testing.assert_array_equal(parac.ndimage.binary_fill_holes(d, device="cuda").compute(),
                                      ndi.binary_fill_holes(mask))
        np.testing.assert_array_equal(parac.segmentation.clear_border(d, buffer_size=2, device="cuda").compute(),
                                      parac.segmentation.clear_border(mask, buffer_size=2, device="cpu"))
        np.testing.assert_array_equal(parac.segmentation.flood(d, (100, 150), connectivity=2, device="cuda:0")
                                      .compute(), parac.segmentation.flood(mask, (100, 150), connectivity=2))
        np.testing.assert_array_equal(parac.morphology.remove_small_objects(d, 9, device="cuda").compute(),
                                      parac.morphology.remove_small_objects(mask, 9, device="cpu"))
        np.testing.assert_array_equal(parac.morphology.remove_small_holes(d, 9, device="cuda").compute(),
                                      parac.morphology.remove_small_holes(mask, 9, device="cpu"))
    dv = da.from_array(values, chunks=(20, 30))
    np.testing.assert_array_equal(parac.measure.label(dv, background=1, device="cuda").compute(),
                                  parac.measure.label(values, background=1, device="cpu"))
    d = da.from_array(vol, chunks=(5, 13, 12))
    np.testing.assert_array_equal(parac.ndimage.label(d, np.ones((3, 3, 3)), device="cuda")[0].compute(),
                                  ndi.label(vol, np.ones((3, 3, 3)))[0])


def test_fill_label_holes_on_the_gpu(groups):
    """Every label's holes of CuPy chunks and of host chunks worked on the GPU equal the CPU's in memory."""
    r = np.random.default_rng(4)
    for shape, conn in (((97, 131), 8), ((15, 22, 19), 6)):
        lab = ndi.label(r.random(shape) < 0.55, ndi.generate_binary_structure(len(shape), len(shape)))[0]
        lab[r.random(shape) < 0.1] = 0
        lab = lab.astype(np.int32)
        want, n = parac.fill_label_holes(lab, connectivity=conn, device="cpu")
        chunks = tuple(max(1, s // 3) for s in shape)
        got, m = parac.fill_label_holes(cupy_chunks(lab, chunks), connectivity=conn, device="cuda")
        got, m = da.compute(got, m)
        np.testing.assert_array_equal(got.get() if hasattr(got, "get") else got, want)
        assert int(m) == n
        got, m = da.compute(*parac.fill_label_holes(da.from_array(lab, chunks=chunks), connectivity=conn,
                                                    device="cuda"))
        np.testing.assert_array_equal(got, want)
        assert int(m) == n


def test_cupy_chunks_by_rounds():
    """Reconstruction, h-maxima and local extrema of CuPy chunks: the rounds
    run each chunk on its GPU and equal the in-memory call on the host."""
    r = np.random.default_rng(3)
    grids = np.meshgrid(np.linspace(0, 9, 180), np.linspace(0, 7, 230), indexing="ij")
    img = (np.floor((np.sin(grids[0] * 1.3) + np.cos(grids[1] * 0.9) + 2.2) * 50) + r.integers(0, 3, (180, 230))
           ).astype(np.uint8)
    marker = np.where(img > 30, img - 30, 0).astype(np.uint8)
    for chunks in ((45, 60), (180, 17)):
        d, dm = cupy_chunks(img, chunks), cupy_chunks(marker, chunks)
        np.testing.assert_array_equal(on_device(parac.morphology.reconstruction(dm, d)),
                                      parac.morphology.reconstruction(marker, img))
        np.testing.assert_array_equal(on_device(parac.morphology.h_maxima(d, 12)), parac.morphology.h_maxima(img, 12))
        np.testing.assert_array_equal(on_device(parac.morphology.h_minima(d, 7.5)),
                                      parac.morphology.h_minima(img, 7.5))
        np.testing.assert_array_equal(on_device(parac.morphology.local_maxima(d)), parac.morphology.local_maxima(img))
        f = img.astype(np.float32) / 7
        np.testing.assert_array_equal(on_device(parac.morphology.local_minima(cupy_chunks(f, chunks), connectivity=1)),
                                      parac.morphology.local_minima(f, connectivity=1))


def test_host_chunks_by_rounds_and_halos_on_the_gpu():
    """NumPy chunks with device="cuda": the rounds move each chunk to the GPU once and keep it there, the
    local operations assemble each padded block there; the results come back as NumPy chunks equal to the
    in-memory call (u8 and u16, h near the dtype's top, chunks smaller than the halo). Host arrays of
    16 MiB and more cross through the staged copies; the threshold is lowered so that these small ones do."""
    from parac import _device

    r = np.random.default_rng(6)
    grids = np.meshgrid(np.linspace(0, 9, 190), np.linspace(0, 7, 241), indexing="ij")
    img = (np.floor((np.sin(grids[0] * 1.3) + np.cos(grids[1] * 0.9) + 2.2) * 50) + r.integers(0, 3, (190, 241))
           ).astype(np.uint8)
    wide = img.astype(np.uint16) * 250 + r.integers(0, 200, img.shape).astype(np.uint16)
    marker = np.where(img > 30, img - 30, 0).astype(np.uint8)
    f = img.astype(np.float32) / 7
    old = _device.STAGED_MIN
    _device.STAGED_MIN = 1 << 12
    try:
        for chunks in ((64, 80), (190, 17), (7, 241)):
            d, dm = da.from_array(img, chunks=chunks), da.from_array(marker, chunks=chunks)

            def host(x):
                got = x.compute()
                assert isinstance(got, np.ndarray), type(got)
                return got

            np.testing.assert_array_equal(host(parac.morphology.reconstruction(dm, d, device="cuda")),
                                          parac.morphology.reconstruction(marker, img))
            np.testing.assert_array_equal(host(parac.morphology.h_maxima(d, 12, device="cuda")),
                                          parac.morphology.h_maxima(img, 12))
            np.testing.assert_array_equal(host(parac.morphology.h_minima(d, 7.5, device="cuda")),
                                          parac.morphology.h_minima(img, 7.5))
            dw = da.from_array(wide, chunks=chunks)
            for h in (300, 65000):
                np.testing.assert_array_equal(host(parac.morphology.h_maxima(dw, h, device="cuda")),
                                              parac.morphology.h_maxima(wide, h))
            np.testing.assert_array_equal(host(parac.morphology.local_maxima(d, device="cuda")),
                                          parac.morphology.local_maxima(img))
            df = da.from_array(f, chunks=chunks)
            np.testing.assert_array_equal(host(parac.morphology.local_minima(df, connectivity=1, device="cuda")),
                                          parac.morphology.local_minima(f, connectivity=1))
            for mode in ("reflect", "wrap", "constant"):
                np.testing.assert_array_equal(host(parac.ndimage.gaussian_filter(df, 3, mode=mode, device="cuda")),
                                              parac.ndimage.gaussian_filter(f, 3, mode=mode, method="separable"))
            k = r.random((5, 4)).astype(np.float32)
            np.testing.assert_array_equal(host(parac.ndimage.convolve(df, k, device="cuda")),
                                          parac.ndimage.convolve(f, k))
            np.testing.assert_array_equal(host(parac.filters.gaussian(d, 2, device="cuda")),
                                          parac.filters.gaussian(img, 2, method="separable"))
    finally:
        _device.STAGED_MIN = old


def test_local_cuda_cluster_one_worker_per_gpu():
    dask_cuda = pytest.importorskip("dask_cuda")
    distributed = pytest.importorskip("distributed")
    import cupy

    if _dir:
        os.environ["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    n_gpus = cupy.cuda.runtime.getDeviceCount()
    r = np.random.default_rng(2)
    mask = r.random((1500, 1700)) < 0.5
    with dask_cuda.LocalCUDACluster(n_workers=n_gpus, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == n_gpus
            # the chunks made on the workers, each on its worker's GPU
            d = da.from_array(mask, chunks=(400, 500)).map_blocks(cupy.asarray, dtype=bool,
                                                                  meta=cupy.empty((0, 0), bool))
            lab, n = parac.ndimage.label(d)
            got, got_n = client.compute([lab, n], sync=True)
            want, wn = ndi.label(mask)
            assert isinstance(got, cupy.ndarray) and int(got_n) == wn
            np.testing.assert_array_equal(cupy.asnumpy(got), want)
            filled = client.compute(parac.ndimage.binary_fill_holes(d), sync=True)
            np.testing.assert_array_equal(cupy.asnumpy(filled), ndi.binary_fill_holes(mask))
            # every worker (every GPU) held a part of the result
            held = client.persist(lab)
            distributed.wait(held)
            assert len({w for ws in client.who_has(held).values() for w in ws}) == n_gpus
            # reconstruction in rounds (h-maxima of smooth domes that cross the chunks' faces)
            y = np.arange(1500, dtype=np.float32)[:, None] / 90
            x = np.arange(1700, dtype=np.float32)[None, :] / 70
            grey = ((np.sin(y) * np.cos(x) + 1.5) * 60 + r.random((1500, 1700)) * 3).astype(np.uint8)
            g = da.from_array(grey, chunks=(400, 500)).map_blocks(cupy.asarray, dtype=np.uint8,
                                                                  meta=cupy.empty((0, 0), np.uint8))
            hm = parac.morphology.h_maxima(g, 10)
            np.testing.assert_array_equal(cupy.asnumpy(hm.compute()),
                                          parac.morphology.h_maxima(grey, 10, device="cpu"))


def test_the_command_on_the_gpu_equals_the_cpu(tmp_path):
    """parac-dask with --device cuda (each chunk through the GPU) writes what
    --device cpu writes, for the operations of one merge (seedless fill, labels,
    the region table), rounds, halos and pyramids."""
    import subprocess

    env = dict(os.environ)
    if _dir:
        env["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [env.get("PYTHONPATH")] if p])
    r = np.random.default_rng(4)
    mask = (ndi.uniform_filter(r.random((301, 257)), 5) > 0.5).astype(np.uint8) * 255
    grey = (ndi.uniform_filter(r.random((301, 257)), 9) * 255).astype(np.uint8)
    vol = (ndi.uniform_filter(r.random((19, 41, 37)), 3) > 0.5).astype(np.uint8) * 255
    lab = ndi.label(mask)[0].astype(np.int32)
    for name, a in (("mask", mask), ("grey", grey), ("vol", vol), ("lab", lab)):
        np.save(tmp_path / (name + ".npy"), a)

    def run(device, *args):
        out = tmp_path / ("%s-%s" % (device, args[2]))
        cmd = [sys.executable, "-m", "parac._dask_cli", args[0]] + [str(tmp_path / a) for a in args[1:-1]] + [
            str(out)] + ["--device", device, "-q"]
        return cmd, out

    cases = [("fill", "mask.npy", "fill.npy", ["--chunks", "70,33"]),
             ("fill", "vol.npy", "fillv.npy", ["--chunks", "5,13,9", "--contour", "keep"]),
             ("fill-holes", "mask.npy", "fh.npy", ["--chunks", "1,257"]),
             ("label", "mask.npy", "lab.ome.zarr", ["--chunks", "64", "--pyramid", "2"]),
             ("h-maxima", "grey.npy", "hm.npy", ["--chunks", "50,61", "--h", "9"]),
             ("gauss", "grey.npy", "g.ome.zarr", ["--chunks", "40", "--sigma", "3", "--pyramid", "1",
                                                  "--downsample", "mean"])]
    for op, src, dst, opts in cases:
        outs = []
        for device in DEVICES:
            cmd, out = run(device, op, src, dst)
            p = subprocess.run(cmd + opts, capture_output=True, text=True, env=env, timeout=300)
            assert p.returncode == 0, (op, device, p.stderr)
            outs.append(out)
        if dst.endswith(".npy"):
            np.testing.assert_array_equal(np.load(outs[1]), np.load(outs[0]), err_msg=op)
        else:
            import zarr

            a, b = zarr.open(str(outs[0]), mode="r"), zarr.open(str(outs[1]), mode="r")
            keys = sorted(a.array_keys())
            assert len(keys) > 1, keys  # the pyramid's levels
            for k in keys:
                np.testing.assert_array_equal(b[k][:], a[k][:], err_msg="%s level %s" % (op, k))
    tables = []
    for device in DEVICES:
        out = tmp_path / ("%s-t.csv" % device)
        p = subprocess.run([sys.executable, "-m", "parac._dask_cli", "regionprops", str(tmp_path / "lab.npy"),
                            str(tmp_path / "grey.npy"), str(out), "--chunks", "37,90", "--device", device, "-q"],
                           capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        tables.append(out.read_bytes())
    assert tables[0] == tables[1]


def test_skeleton_command_on_the_gpu(tmp_path):
    """parac-dask skeleton --device cuda: every label's field on the GPU, equal to the same call in memory
    (skeletonize_pf_labels with device="cuda", each label's method chosen alike by its cut's size)."""
    import subprocess

    env = dict(os.environ)
    if _dir:
        env["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [env.get("PYTHONPATH")] if p])
    v = np.zeros((24, 30, 36), np.uint16)
    v[3:12, 4:13, 3:30] = 7
    v[3:12, 13:22, 5:28] = 300
    v[0:6, 24:30, 0:36] = 12
    v[14:20, 22:28, 6:34] = 5
    np.save(tmp_path / "seg.npy", v)
    out = tmp_path / "skel.npy"
    p = subprocess.run([sys.executable, "-m", "parac._dask_cli", "skeleton", str(tmp_path / "seg.npy"), str(out),
                        "--chunks", "9,11,13", "--device", "cuda", "-q"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    want = parac.morphology.skeletonize_pf_labels(v, device="cuda")
    got = np.load(out)
    assert set(np.unique(got)) == {0, 7, 300, 12, 5}
    np.testing.assert_array_equal(got, want)
