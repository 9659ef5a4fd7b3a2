"""Skeletons of every label of a segmentation, one object at a time
(parac.morphology.skeletonize_pf_labels): each label's skeleton equals
skeletonize_pf of the volume holding that label alone, for touching labels,
labels on the volume's border, sparse label numbers, a label in two pieces,
a label too thin for a field (listed, no skeleton); the graphs in the
volume's coordinates; Dask volumes (one task per label) equal the NumPy
call for chunkings that cut every object, and on a LocalCluster."""
import os
import sys

import numpy as np
import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
parac = pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
pytest.importorskip("scipy")

M = parac.morphology


def segmentation():
    """Touching objects with sparse numbers: two boxes side by side, a tube
    along the border, an L, a label in two pieces, a one-voxel-thin line."""
    v = np.zeros((24, 30, 36), np.uint16)
    v[3:12, 4:13, 3:30] = 7          # a box
    v[3:12, 13:22, 5:28] = 300       # another, touching it
    v[0:6, 24:30, 0:36] = 12         # a bar on the volume's border
    v[14:21, 3:9, 4:20] = 41         # an L: two arms
    v[14:21, 3:20, 14:20] = 41
    v[14:20, 22:28, 22:34] = 5       # one label in two pieces
    v[14:20, 22:28, 6:12] = 5
    v[22, 2:28, 2] = 9               # too thin for a field
    return v


def alone(v, lab, **kw):
    return M.skeletonize_pf((v == lab).astype(np.uint8), method="exact", **kw)


def test_each_label_as_if_alone():
    v = segmentation()
    skel, graphs, skipped = M.skeletonize_pf_labels(v, return_graphs=True)
    assert skel.dtype == v.dtype and skel.shape == v.shape
    assert set(graphs) == {7, 300, 12, 41, 5} and set(skipped) == {9}
    assert "too thin" in skipped[9]
    for lab in graphs:
        want, g = alone(v, lab, return_graph=True)
        assert want.any()
        np.testing.assert_array_equal(skel == lab, want, err_msg="label %d" % lab)
        assert [n["kind"] for n in graphs[lab]["nodes"]] == [n["kind"] for n in g["nodes"]]
        for a, b in zip(graphs[lab]["nodes"], g["nodes"]):
            np.testing.assert_allclose(a["position"], b["position"], atol=1e-9)
        assert len(graphs[lab]["segments"]) == len(g["segments"])
    assert not (skel == 9).any()
    assert set(np.unique(skel)) == {0, 7, 300, 12, 41, 5}


def test_spacing_moves_the_graphs_into_the_volume():
    v = segmentation()
    sp = (2.0, 1.0, 0.5)
    skel, graphs, _ = M.skeletonize_pf_labels(v, spacing=sp, return_graphs=True)
    for lab in (7, 41):
        want, g = alone(v, lab, spacing=sp, return_graph=True)
        np.testing.assert_array_equal(skel == lab, want)
        for a, b in zip(graphs[lab]["nodes"], g["nodes"]):
            np.testing.assert_allclose(a["position"], b["position"], atol=1e-9)


@pytest.mark.filterwarnings("ignore:parac.morphology.skeletonize_pf_labels")
def test_dask_volumes_one_task_per_label():
    da = pytest.importorskip("dask.array")
    v = segmentation()
    want = M.skeletonize_pf_labels(v)
    for chunks in ((24, 30, 36), (5, 7, 9), (1, 30, 36), (24, 30, 4)):
        got = M.skeletonize_pf_labels(da.from_array(v, chunks=chunks))
        assert isinstance(got, da.Array) and got.chunks == da.from_array(v, chunks=chunks).chunks
        np.testing.assert_array_equal(got.compute(), want, err_msg=str(chunks))
    skel, graphs, skipped = M.skeletonize_pf_labels(da.from_array(v, chunks=8), return_graphs=True)
    np.testing.assert_array_equal(skel.compute(), want)
    assert set(graphs) == {7, 300, 12, 41, 5} and set(skipped) == {9}


@pytest.mark.filterwarnings("ignore:parac.morphology.skeletonize_pf_labels")
def test_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    if _dir:
        os.environ["PYTHONPATH"] = os.pathsep.join([_dir] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    v = segmentation()
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        with distributed.Client(c):
            got = M.skeletonize_pf_labels(da.from_array(v, chunks=(12, 15, 18))).compute()
    np.testing.assert_array_equal(got, M.skeletonize_pf_labels(v))


def test_bad_input():
    with pytest.raises(ValueError, match="3D"):
        M.skeletonize_pf_labels(np.zeros((4, 5), np.int32))
    with pytest.raises(TypeError, match="integer"):
        M.skeletonize_pf_labels(np.zeros((4, 5, 6), np.float32))
    with pytest.raises(ValueError, match="negative"):
        M.skeletonize_pf_labels(-np.ones((4, 5, 6), np.int32))
    assert not M.skeletonize_pf_labels(np.zeros((4, 5, 6), np.int32)).any()
    with pytest.warns(UserWarning, match="1 label"):
        M.skeletonize_pf_labels(segmentation())
