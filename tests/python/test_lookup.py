"""The operation lookup against NumPy's table[index]: every index dtype with
every table dtype, 2D and 3D, odd sizes, views; the first index out of range
named, in raster order, and nothing written by the CLI; on CUDA (marked gpu)
the same bits as on the CPU, with NumPy and CuPy arrays."""
import os
import subprocess
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")

PARAC = os.environ.get("PARAC_BIN", "parac")
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
INDEX_TYPES = [np.uint8, np.uint16, np.int32, np.int64]
TABLE_TYPES = [np.uint8, np.uint16, np.int32, np.float32, np.float64, np.int64]


def table_of(n, dtype, seed):
    """n entries of dtype spanning its range (its extremes among them)."""
    r = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        t = r.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        t[:2] = (info.min, info.max)[:n]
    else:
        t = (r.standard_normal(n) * 1e30).astype(dtype)
        t[: min(n, 3)] = np.array([np.inf, -0.0, np.nan], dtype)[: min(n, 3)]
    return t


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("itype", INDEX_TYPES)
@pytest.mark.parametrize("shape", [(1, 1), (37, 53), (1, 1001), (7, 9, 11), (613, 1709)])
def test_equals_numpy_take(device, itype, shape):
    r = np.random.default_rng(len(shape) * 1000 + shape[-1])
    n = 1 + int(r.integers(0, 256 if itype == np.uint8 else 70000))
    index = r.integers(0, n, shape).astype(itype)
    for k, ttype in enumerate(TABLE_TYPES):
        table = table_of(n, ttype, k)
        got = parac.lookup(index, table[None, :], device=device)
        want = table[index]
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes(), (itype, ttype)  # NaN, -0.0 and all bits


@pytest.mark.parametrize("device", DEVICES)
def test_rows_and_slices_past_the_grids_reach(device):
    """More than 65535 rows or slices (the CUDA grid's y and z stride past
    them) and rows narrower than a warp; a miss in such a row is named."""
    r = np.random.default_rng(21)
    table = table_of(300, np.int32, 4)
    for shape in ((70001, 3), (66000, 1), (70000, 1, 2), (2, 65537, 5), (3, 257)):
        index = r.integers(0, 300, shape).astype(np.uint16)
        np.testing.assert_array_equal(parac.lookup(index, table, device=device), table[index], err_msg=str(shape))
    index = r.integers(0, 300, (70001, 3)).astype(np.int32)
    index[69999, 1], index[65536, 2] = 300, 301
    with pytest.raises(ValueError, match=r"INDEX holds 301 at \(x 2, y 65536\)"):
        parac.lookup(index, table, device=device)
    index = r.integers(0, 300, (70000, 1, 2)).astype(np.int64)
    index[69000, 0, 1] = -5
    with pytest.raises(ValueError, match=r"INDEX holds -5 at \(x 1, y 0, z 69000\)"):
        parac.lookup(index, table, device=device)


@pytest.mark.parametrize("device", DEVICES)
def test_views_and_out(device):
    """A strided view of the index is read in place; out= receives the result."""
    r = np.random.default_rng(3)
    big = r.integers(0, 500, (301, 417)).astype(np.int32)
    index = big[3:290:2, 5:400]
    table = table_of(500, np.int64, 9)
    np.testing.assert_array_equal(parac.lookup(index, table[None], device=device), table[index])
    out = np.full(index.shape, -1, np.int64)
    got = parac.lookup(index, table[None], device=device, out=out)
    assert got is out
    np.testing.assert_array_equal(out, table[index])
    # gaps between pixels and between entries: steps along x
    index, table = big[1::3, 2::3] // 2, table[::2]
    np.testing.assert_array_equal(parac.lookup(index, table[None], device=device), table[index])
    vol = r.integers(0, 250, (5, 40, 90)).astype(np.uint8)
    np.testing.assert_array_equal(parac.lookup(vol[::2, :, ::5], table[None], device=device), table[vol[::2, :, ::5]])


@pytest.mark.parametrize("device", DEVICES)
def test_labels_through_their_numbering(device):
    """The use that made the operation: a label image through a table of new
    numbers gives the labels that numbering describes."""
    ndi = pytest.importorskip("scipy.ndimage")
    r = np.random.default_rng(5)
    lab, n = ndi.label(ndi.uniform_filter(r.random((311, 277)), 5) > 0.5)
    renumber = np.concatenate(([0], r.permutation(n) + 1)).astype(np.int32)
    got = parac.lookup(lab.astype(np.int32), renumber[None], device=device)
    np.testing.assert_array_equal(got, renumber[lab])
    keep = (np.bincount(lab.ravel()) >= 20).astype(np.uint8)
    keep[0] = 0
    np.testing.assert_array_equal(parac.lookup(lab.astype(np.int32), keep[None], device=device), keep[lab])


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("itype", [np.int32, np.int64, np.uint16])
def test_the_first_index_out_of_range_is_named(device, itype):
    r = np.random.default_rng(11)
    for shape, bad in (((64, 4099), [(50, 4000), (63, 2)]), ((9, 40, 70), [(8, 1, 1), (3, 39, 69), (3, 39, 70 - 2)])):
        index = r.integers(0, 100, shape).astype(itype)
        for k, at in enumerate(bad):
            index[at] = 100 + k if itype == np.uint16 else (-1 - k if k % 2 else 100 + k)
        first = min(bad)
        v = int(index[first])
        where = ("x %d, y %d" % (first[1], first[0]) if len(shape) == 2
                 else "x %d, y %d, z %d" % (first[2], first[1], first[0]))
        with pytest.raises(ValueError, match=r"INDEX holds %d at \(%s\), outside TABLE's 100 entries \(0\.\.99\)"
                           % (v, where)):
            parac.lookup(index, np.arange(100, dtype=np.int32)[None], device=device)


def test_bad_input():
    index = np.zeros((5, 6), np.int32)
    with pytest.raises(TypeError, match="INDEX is f32"):
        parac.lookup(index.astype(np.float32), np.zeros((1, 3), np.uint8), device="cpu")
    with pytest.raises(ValueError, match="one row of one channel"):
        parac.lookup(index, np.zeros((2, 3), np.uint8), device="cpu")
    with pytest.raises(ValueError, match="one row of one channel"):
        parac.lookup(index, np.zeros((2, 1, 3), np.uint8), device="cpu")
    with pytest.raises(TypeError, match="INDEX has 2 channels"):
        parac.lookup(np.zeros((5, 6, 2), np.int32), np.zeros((1, 3, 1), np.uint8), device="cpu", channel_axis=-1)
    with pytest.raises(ValueError, match="1 dimensions"):
        parac.lookup(np.zeros(6, np.int32), np.zeros(3, np.uint8), device="cpu")  # a row of indices is no image
    with pytest.raises(TypeError, match="element type"):
        parac.lookup(index, np.zeros(3, np.complex64), device="cpu")  # 8 bytes, but not a type to move
    with pytest.raises(ValueError, match="output 1 is 6x5x1 u8 .* the result 6x5x1 u16"):
        parac.lookup(index, np.zeros(3, np.int16), device="cpu", out=np.zeros((5, 6), np.int8))


MOVED_TYPES = [bool, np.int8, np.int16, np.uint32, np.uint64, np.float16]


def moved_table_of(n, dtype, seed):
    """n entries of a type the library lacks, its extremes among them."""
    r = np.random.default_rng(seed)
    if dtype is bool:
        return r.random(n) < 0.5
    if dtype == np.float16:
        t = r.standard_normal(n).astype(np.float16)
        t[: min(n, 3)] = np.array([np.inf, -0.0, np.nan], np.float16)[: min(n, 3)]
        return t
    return table_of(n, dtype, seed)


@pytest.mark.parametrize("device", DEVICES)
def test_tables_of_one_axis_and_of_any_element_type(device):
    """A 1-D table is NumPy's table[index] as it is written; a table of a type
    the library lacks (bool, int8, int16, uint32, uint64, float16) is moved
    bit for bit and the result has its type, out= of that type too."""
    r = np.random.default_rng(21)
    index = r.integers(0, 300, (57, 83)).astype(np.int32)
    for k, ttype in enumerate(TABLE_TYPES + MOVED_TYPES):
        table = table_of(300, ttype, k) if ttype in TABLE_TYPES else moved_table_of(300, ttype, k)
        want = table[index]
        for t in (table, table[None], table[::-1][::-1]):
            got = parac.lookup(index, t, device=device)
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), ttype
        out = np.zeros(index.shape, want.dtype)
        assert parac.lookup(index, table, device=device, out=out) is out
        assert out.tobytes() == want.tobytes(), ttype
    vol = r.integers(0, 5, (3, 4, 5)).astype(np.uint8)
    t = np.array([True, False, True, True, False])
    np.testing.assert_array_equal(parac.lookup(vol, t, device=device), t[vol])


def test_command_line(tmp_path):
    """parac lookup INDEX TABLE OUT writes table[index]; an index out of range
    exits 1, says where, and leaves no OUT."""
    r = np.random.default_rng(2)
    index = r.integers(0, 40, (3, 50, 61)).astype(np.uint16)
    table = table_of(40, np.float32, 4)
    np.save(tmp_path / "index.npy", index)
    np.save(tmp_path / "table.npy", table[None])
    run = [PARAC, "--device", "cpu", "lookup", tmp_path / "index.npy", tmp_path / "table.npy"]
    p = subprocess.run(run + [tmp_path / "out.npy"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert np.load(tmp_path / "out.npy").tobytes() == table[index].tobytes()
    index[2, 49, 60] = 40
    np.save(tmp_path / "index.npy", index)
    p = subprocess.run(run + [tmp_path / "bad.npy"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1
    assert "INDEX holds 40 at (x 60, y 49, z 2)" in p.stderr
    assert not (tmp_path / "bad.npy").exists()


def test_command_line_table_of_one_axis(tmp_path):
    """TABLE may be a 1-D NPY file (as NumPy saves a table); INDEX may not."""
    r = np.random.default_rng(6)
    index = r.integers(0, 30, (41, 29)).astype(np.int32)
    table = table_of(30, np.int64, 2)
    np.save(tmp_path / "index.npy", index)
    np.save(tmp_path / "table.npy", table)
    p = subprocess.run([PARAC, "--device", "cpu", "lookup", tmp_path / "index.npy", tmp_path / "table.npy",
                        tmp_path / "out.npy"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), table[index])
    p = subprocess.run([PARAC, "--device", "cpu", "lookup", tmp_path / "table.npy", tmp_path / "table.npy",
                        tmp_path / "bad.npy"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 1 and "1 axis is not an image" in p.stderr
    assert not (tmp_path / "bad.npy").exists()


@pytest.mark.gpu
def test_cupy_in_cupy_out():
    cupy = pytest.importorskip("cupy")
    r = np.random.default_rng(8)
    index = r.integers(0, 1000, (517, 389)).astype(np.int32)
    table = table_of(1000, np.float32, 1)
    got = parac.lookup(cupy.asarray(index), cupy.asarray(table[None]))
    assert isinstance(got, cupy.ndarray)
    assert cupy.asnumpy(got).tobytes() == table[index].tobytes()
    index[400, 3] = -5
    with pytest.raises(ValueError, match=r"INDEX holds -5 at \(x 3, y 400\)"):
        parac.lookup(cupy.asarray(index), cupy.asarray(table[None]))
    index[400, 3] = 7
    for k, ttype in enumerate(MOVED_TYPES):  # 1-D tables of types the library lacks: moved as bits
        t = moved_table_of(1000, ttype, k)
        got = parac.lookup(cupy.asarray(index), cupy.asarray(t))
        assert isinstance(got, cupy.ndarray) and got.dtype == t.dtype
        assert cupy.asnumpy(got).tobytes() == t[index].tobytes(), ttype


@pytest.mark.gpu
def test_torch_tables_of_any_element_type():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device for PyTorch")
    r = np.random.default_rng(9)
    index = r.integers(0, 200, (131, 77)).astype(np.int64)
    for ttype in (torch.bool, torch.int8, torch.int16, torch.float16, torch.bfloat16, torch.int32, torch.float32):
        t = (torch.rand(200) < 0.5).to(ttype) if ttype is torch.bool else (torch.randn(200) * 50).to(ttype)
        got = parac.lookup(torch.from_numpy(index).cuda(), t.cuda())
        assert got.dtype == ttype and got.is_cuda
        assert torch.equal(got.cpu(), t[torch.from_numpy(index)]), ttype


@pytest.mark.parametrize("shape,chunks", [((151, 97), (17, 20)), ((151, 97), (1, 97)), ((151, 97), (151, 1)),
                                          ((23, 31, 29), (7, 11, 5))])
def test_dask_arrays_equal_the_whole_array(shape, chunks):
    """A Dask array of any chunking gives the in-memory result bit for bit,
    every table dtype (those the library lacks moved as bits); the table is
    one key of the graph."""
    da = pytest.importorskip("dask.array")
    r = np.random.default_rng(shape[0] + chunks[0])
    index = r.integers(0, 300, shape).astype(np.int32)
    d = da.from_array(index, chunks=chunks)
    for k, ttype in enumerate(TABLE_TYPES + MOVED_TYPES):
        table = table_of(300, ttype, k) if ttype in TABLE_TYPES else moved_table_of(300, ttype, k)
        got = parac.lookup(d, table if k % 2 else table[None])  # 1-D tables and rows
        assert isinstance(got, da.Array) and got.chunks == d.chunks
        want = parac.lookup(index, table[None], device="cpu")
        assert got.dtype == want.dtype == table.dtype
        assert got.compute(scheduler="threads").tobytes() == want.tobytes() == table[index].tobytes(), ttype
        assert sum(1 for key in dict(got.dask) if "parac-lookup-table" in str(key)) == 1


def test_dask_bad_input():
    """Dask arrays get the in-memory call's errors when the call is made, and an
    index out of range names its pixel in the whole array's coordinates."""
    da = pytest.importorskip("dask.array")
    index = np.random.default_rng(1).integers(0, 40, (9, 61, 70)).astype(np.int64)
    with pytest.raises(TypeError, match="INDEX is f32"):
        parac.lookup(da.from_array(index.astype(np.float32), chunks=10), np.zeros((1, 40)))
    with pytest.raises(ValueError, match="one row of one channel"):
        parac.lookup(da.from_array(index, chunks=10), np.zeros((2, 40)))
    index[7, 50, 66] = 40
    got = parac.lookup(da.from_array(index, chunks=(4, 16, 16)), np.zeros((1, 40), np.float32))
    with pytest.raises(ValueError, match=r"INDEX holds 40 at \(x 66, y 50, z 7\), outside TABLE's 40 entries"):
        got.compute(scheduler="synchronous")
