"""The potential-field curve skeleton through the CLI, on shapes with known
centre lines: straight, L-shaped and noisy tubes, a Y junction, a torus, a
helix, two separate tubes, a ball, and an L sampled with anisotropic voxels.
Checked: the skeleton is thin (no full 2x2x2 block), lies inside the object,
has one 26-connected component per object, stays within 2.5 voxels of the
true centre line and covers most of it, keeps the torus' loop; graph files
parse and agree with the voxels; bad input is an error. GPU methods must
give the same voxels where a GPU is."""
import json

import numpy as np
import pytest
import scipy.ndimage as ndi

from conftest import run_parac


def tube(shape, a, b, r):
    """Voxels within r of the segment a-b (z, y, x), and sampled centre-line points."""
    z, y, x = np.indices(shape)
    p = np.stack([z, y, x], -1).astype(float)
    a, b = np.asarray(a, float), np.asarray(b, float)
    t = np.clip(((p - a) @ (b - a)) / ((b - a) @ (b - a)), 0, 1)
    d = np.linalg.norm(p - (a + t[..., None] * (b - a)), axis=-1)
    line = [a + s * (b - a) for s in np.linspace(0, 1, 200)]
    return d <= r, line


def skeleton_cli(tmp_path, vol, *opts, device="cpu"):
    src = tmp_path / "in.npy"
    np.save(src, vol.astype(np.uint8) * 255)
    out = tmp_path / "out.npy"
    run_parac("--device", device, "skeleton", src, out, "--layout", "dhw", *opts)
    return np.load(out) > 0


def check(skel, obj, lines, ends_margin, n_objects, cover=0.7):
    assert skel.any()
    assert not (skel & ~obj).any(), "skeleton voxels outside the object"
    blocks = skel[:-1, :-1, :-1] & skel[1:, :-1, :-1] & skel[:-1, 1:, :-1] & skel[:-1, :-1, 1:] & \
        skel[1:, 1:, :-1] & skel[1:, :-1, 1:] & skel[:-1, 1:, 1:] & skel[1:, 1:, 1:]
    assert not blocks.any(), "a full 2x2x2 block"
    _, n = ndi.label(skel, np.ones((3, 3, 3)))
    assert n == n_objects, f"{n} components, want {n_objects}"
    pts = np.argwhere(skel).astype(float)
    centre = np.array([q for line in lines for q in line])
    # every skeleton voxel near the centre line
    d_skel = np.min(np.linalg.norm(pts[:, None, :] - centre[None, :, :], axis=-1), axis=1)
    assert d_skel.max() <= 2.5, f"skeleton voxel {d_skel.max():.2f} voxels from the centre line"
    # most of the centre line (away from the rounded ends) near the skeleton
    inner = np.array([q for line in lines for q in line[ends_margin:-ends_margin]])
    d_line = np.min(np.linalg.norm(inner[:, None, :] - pts[None, :, :], axis=-1), axis=1)
    assert np.mean(d_line <= 2.0) >= cover, f"covers {np.mean(d_line <= 2.0):.0%} of the centre line"


def graph_loops(doc):
    """Independent cycles of the graph: edges - vertices + components (open
    segment ends count as vertices of their own)."""
    parent = {}

    def find(a):
        while parent.setdefault(a, a) != a:
            a = parent[a]
        return a
    verts, edges = set(), 0
    for i, seg in enumerate(doc["segments"]):
        a = seg["from"] if seg["from"] >= 0 else ("open", i, 0)
        b = seg["to"] if seg["to"] >= 0 else ("open", i, 1)
        verts |= {a, b}
        edges += 1
        parent[find(a)] = find(b)
    comps = len({find(v) for v in verts})
    return edges - len(verts) + comps


def test_straight_tube(tmp_path):
    # divergence seeds (on by default) carry the skeleton out to the ends
    obj, line = tube((20, 20, 56), (10, 10, 6), (10, 10, 49), 5)
    check(skeleton_cli(tmp_path, obj), obj, [line], 15, 1, cover=0.95)


def test_core_skeleton_only(tmp_path):
    # --divergence 0 is the paper's core skeleton: it runs between the
    # attracting nodes, which the end caps push about three radii in
    obj, line = tube((20, 20, 56), (10, 10, 6), (10, 10, 49), 5)
    core = skeleton_cli(tmp_path, obj, "--divergence", "0")
    full = skeleton_cli(tmp_path, obj)
    check(core, obj, [line], 75, 1)
    assert core.sum() < full.sum() and not (core & ~full).any()


def test_l_tube_and_graph_files(tmp_path):
    a, la = tube((24, 44, 44), (12, 10, 6), (12, 10, 34), 4.5)
    b, lb = tube((24, 44, 44), (12, 10, 34), (12, 36, 34), 4.5)
    obj = a | b
    for ext in ("json", "obj", "swc"):
        g = tmp_path / f"g.{ext}"
        skel = skeleton_cli(tmp_path, obj, "--graph", g)
        assert g.exists() and g.stat().st_size > 0
        if ext == "json":
            doc = json.loads(g.read_text())
            nodes = doc["nodes"]
            assert doc["segments"] and nodes
            for seg in doc["segments"]:  # segments start and end on their nodes
                pts = np.array(seg["points"])
                assert np.allclose(pts[0], nodes[seg["from"]]["position"])
                if seg["to"] >= 0:
                    assert np.allclose(pts[-1], nodes[seg["to"]]["position"])
                v = np.round(pts).astype(int)  # every sample on a skeleton voxel
                assert skel[v[:, 2], v[:, 1], v[:, 0]].all()
            assert graph_loops(doc) == 0
        if ext == "swc":
            rows = [r.split() for r in g.read_text().splitlines() if not r.startswith("#")]
            ids = {int(r[0]) for r in rows}
            assert all(int(r[6]) == -1 or int(r[6]) in ids for r in rows)
    check(skel, obj, [la, lb], 10, 1, cover=0.95)


def test_y_junction(tmp_path):
    shape = (22, 50, 50)
    a, la = tube(shape, (11, 25, 6), (11, 25, 25), 4)
    b, lb = tube(shape, (11, 25, 25), (11, 8, 43), 4)
    c, lc = tube(shape, (11, 25, 25), (11, 42, 43), 4)
    obj = a | b | c
    check(skeleton_cli(tmp_path, obj), obj, [la, lb, lc], 15, 1, cover=0.95)


def test_torus_keeps_its_loop(tmp_path):
    R, r, pad = 14, 5, 4
    n, m = 2 * (R + r + pad) + 1, 2 * (r + pad) + 1
    z, y, x = np.indices((m, n, n)).astype(float)
    c = (n - 1) / 2
    obj = (np.hypot(x - c, y - c) - R) ** 2 + (z - (m - 1) / 2) ** 2 <= r * r
    t = np.linspace(0, 2 * np.pi, 400)
    circle = [np.array([(m - 1) / 2, c + R * np.sin(a), c + R * np.cos(a)]) for a in t]
    g = tmp_path / "g.json"
    skel = skeleton_cli(tmp_path, obj, "--graph", g)
    check(skel, obj, [circle + circle[:2]], 1, 1, cover=0.95)
    assert graph_loops(json.loads(g.read_text())) == 1
    # the voxels keep the loop too: the hole's axis is not in the skeleton's
    # component, and cutting one voxel leaves it connected
    pts = np.argwhere(skel)
    cut = skel.copy()
    cut[tuple(pts[0])] = False
    assert ndi.label(cut, np.ones((3, 3, 3)))[1] == 1


def test_helix(tmp_path):
    R, pitch, turns, r, pad = 10, 24, 2, 4.5, 4
    t = np.linspace(0, 2 * np.pi * turns, 2000)
    n, length = int(2 * (R + r) + 2 * pad + 1), int(pitch * turns + 2 * r + 2 * pad + 1)
    c = (n - 1) / 2
    line = np.stack([pad + r + pitch * t / (2 * np.pi), c + R * np.sin(t), c + R * np.cos(t)], 1)
    grid = np.ones((length, n, n), bool)
    grid[tuple(np.round(line).astype(int).T)] = False
    obj = ndi.distance_transform_edt(grid) <= r
    check(skeleton_cli(tmp_path, obj), obj, [list(line)], 60, 1, cover=0.95)


def test_noisy_tube(tmp_path):
    # random voxels flipped near the surface: one thin, centred component
    rng = np.random.default_rng(3)
    obj, line = tube((24, 24, 60), (12, 12, 6), (12, 12, 53), 6.5)
    shell = ndi.binary_dilation(obj) & ~ndi.binary_erosion(obj, iterations=2)
    noisy = ndi.binary_opening(obj ^ (shell & (rng.random(obj.shape) < 0.15)))
    check(skeleton_cli(tmp_path, noisy), noisy, [line], 15, 1, cover=0.9)


def test_two_objects(tmp_path):
    a, la = tube((20, 34, 50), (10, 9, 6), (10, 9, 43), 4)
    b, lb = tube((20, 34, 50), (10, 25, 6), (10, 25, 43), 4)
    check(skeleton_cli(tmp_path, a | b), a | b, [la, lb], 15, 2, cover=0.95)


def test_ball_is_a_point(tmp_path):
    z, y, x = np.indices((21, 21, 21))
    obj = (x - 10) ** 2 + (y - 10) ** 2 + (z - 10) ** 2 <= 64
    skel = skeleton_cli(tmp_path, obj)
    pts = np.argwhere(skel)
    assert len(pts) >= 1 and np.all(np.linalg.norm(pts - 10, axis=1) <= 1.5)


def capsules(shape, segments, r, spacing):
    """Voxels (z, y, x) whose centres, in physical units, lie within r of a segment."""
    p = np.stack(np.indices(shape), -1) * np.asarray(spacing, float)
    m = np.zeros(shape, bool)
    for a, b in segments:
        a, b = np.asarray(a, float), np.asarray(b, float)
        t = np.clip(((p - a) @ (b - a)) / ((b - a) @ (b - a)), 0, 1)
        m |= np.linalg.norm(p - (a + t[..., None] * (b - a)), axis=-1) <= r
    return m


def test_anisotropic_spacing(tmp_path):
    # the same physical L sampled with cubic voxels and with voxels 2.5 long
    # in z: with --spacing the field acts over physical distances, and the
    # skeleton lands where the cubic sampling puts it
    segs = [((15, 12, 8), (15, 12, 44)), ((15, 12, 44), (15, 40, 44))]
    iso = capsules((31, 56, 58), segs, 6.0, (1, 1, 1))
    an = capsules((13, 56, 58), segs, 6.0, (2.5, 1, 1))
    g = tmp_path / "g.json"
    p_iso = np.argwhere(skeleton_cli(tmp_path, iso)).astype(float)
    with_sp = np.argwhere(skeleton_cli(tmp_path, an, "--spacing", "1,1,2.5", "--graph", g)) * [2.5, 1, 1]
    without = np.argwhere(skeleton_cli(tmp_path, an)) * [2.5, 1, 1]

    def mean_dist(a, b):
        return np.linalg.norm(a[:, None] - b[None], axis=-1).min(1).mean()
    assert mean_dist(with_sp, p_iso) <= 0.5 and mean_dist(with_sp, p_iso) < mean_dist(without, p_iso)
    # the graph is in physical units
    zs = [q[2] for seg in json.loads(g.read_text())["segments"] for q in seg["points"]]
    assert abs(np.mean(zs) - 15) < 1.5


@pytest.mark.gpu
@pytest.mark.parametrize("method", ["tiled", "global", "constant", "approx"])
def test_gpu_methods_match_cpu(tmp_path, method):
    a, _ = tube((24, 44, 44), (12, 10, 6), (12, 10, 34), 4.5)
    b, _ = tube((24, 44, 44), (12, 10, 34), (12, 36, 34), 4.5)
    cpu = skeleton_cli(tmp_path, a | b)
    gpu = skeleton_cli(tmp_path, a | b, "--method", method, device="cuda")
    # fp32 on the GPU against double on the CPU: the same voxels but for a few
    assert np.sum(cpu != gpu) <= max(3, cpu.sum() // 20)


def test_approx_field_matches_exact(tmp_path):
    # the cell-tree field: the same skeleton but for a few voxels
    a, la = tube((24, 44, 44), (12, 10, 6), (12, 10, 34), 4.5)
    b, lb = tube((24, 44, 44), (12, 10, 34), (12, 36, 34), 4.5)
    exact = skeleton_cli(tmp_path, a | b)
    approx = skeleton_cli(tmp_path, a | b, "--method", "approx")
    assert np.sum(exact != approx) <= max(3, exact.sum() // 20)
    check(approx, a | b, [la, lb], 10, 1, cover=0.95)


def test_errors(tmp_path):
    out = tmp_path / "o.npy"
    flat = tmp_path / "flat.npy"
    np.save(flat, np.ones((20, 20), np.uint8))
    empty = tmp_path / "empty.npy"
    np.save(empty, np.zeros((9, 9, 9), np.uint8))
    thin = tmp_path / "thin.npy"
    v = np.zeros((9, 9, 9), np.uint8)
    v[4, 4, :] = 1
    np.save(thin, v)
    for f, msg in ((flat, "a volume is needed"), (empty, "no object voxels"), (thin, "too thin")):
        r = run_parac("--device", "cpu", "skeleton", f, out, "--layout", "dhw", check=False)
        assert r.returncode == 1 and msg in r.stderr, r.stderr
        assert not out.exists()
    r = run_parac("--device", "cpu", "skeleton", empty, out, "--layout", "dhw", "--graph", tmp_path / "g.txt",
                  check=False)
    assert r.returncode == 1
    ball = tmp_path / "ball.npy"
    z, y, x = np.indices((15, 15, 15))
    np.save(ball, (((x - 7) ** 2 + (y - 7) ** 2 + (z - 7) ** 2 <= 36) * 255).astype(np.uint8))
    for opts, msg in ((("--spacing", "1,0,1"), "--spacing"), (("--spacing", "1,2"), "--spacing"),
                      (("--divergence", "2"), "divergence"), (("--graph", tmp_path / "g.txt"), ".json, .obj or .swc")):
        r = run_parac("--device", "cpu", "skeleton", ball, out, "--layout", "dhw", *opts, check=False)
        assert r.returncode == 1 and msg in r.stderr, r.stderr
        assert not out.exists()


def test_formats_dtypes_and_explain(tmp_path):
    # the same object as an NRRD and a multi-page TIFF volume, and as u16 and
    # f32 arrays (with --threshold): the same skeleton as from the u8 .npy
    a, _ = tube((24, 44, 44), (12, 10, 6), (12, 10, 34), 4.5)
    b, _ = tube((24, 44, 44), (12, 10, 34), (12, 36, 34), 4.5)
    obj = a | b
    ref = skeleton_cli(tmp_path, obj)
    src = tmp_path / "in.npy"
    np.save(src, obj.astype(np.uint8) * 255)
    for ext in ("nrrd", "tif"):
        vol = tmp_path / f"vol.{ext}"
        run_parac("convert", src, vol, "--layout", "dhw")
        out = tmp_path / f"out_{ext}.npy"
        run_parac("--device", "cpu", "skeleton", vol, out)
        got = np.load(out)
        assert got.shape == obj.shape and np.array_equal(got > 0, ref), ext
    for arr, thr in ((obj.astype(np.uint16) * 1000, "500"), (obj.astype(np.float32) * 0.75 + 0.1, "0.5")):
        p = tmp_path / f"in_{arr.dtype}.npy"
        np.save(p, arr)
        out = tmp_path / "o.npy"
        run_parac("--device", "cpu", "skeleton", p, out, "--layout", "dhw", "--threshold", thr)
        assert np.array_equal(np.load(out) > 0, ref), arr.dtype
    r = run_parac("--device", "cpu", "skeleton", src, tmp_path / "e.npy", "--layout", "dhw", "--explain")
    assert "exact" in r.stdout + r.stderr
