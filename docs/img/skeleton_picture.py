"""Draws docs/img/skeleton.png: parac's skeletons (red, from the --graph
JSON; nodes: saddles blue, attracting green, junctions black, free ends
orange) inside their objects (grey surface) for a Y junction, a torus and a
helix. Needs matplotlib and scikit-image.
  python docs/img/skeleton_picture.py build/bin/parac docs/img/skeleton.png"""
import json
import os
import subprocess
import sys
import tempfile

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import scipy.ndimage as ndi  # noqa: E402
from mpl_toolkits.mplot3d.art3d import Poly3DCollection  # noqa: E402
from skimage.measure import marching_cubes  # noqa: E402


def capsules(shape, segs, r):
    p = np.stack(np.indices(shape), -1).astype(float)
    m = np.zeros(shape, bool)
    for a, b in segs:
        a, b = np.asarray(a, float), np.asarray(b, float)
        t = np.clip(((p - a) @ (b - a)) / ((b - a) @ (b - a)), 0, 1)
        m |= np.linalg.norm(p - (a + t[..., None] * (b - a)), axis=-1) <= r
    return m


def torus(R=14, r=5, pad=4):
    n, m = 2 * (R + r + pad) + 1, 2 * (r + pad) + 1
    z, y, x = np.indices((m, n, n)).astype(float)
    c = (n - 1) / 2
    return (np.hypot(x - c, y - c) - R) ** 2 + (z - (m - 1) / 2) ** 2 <= r * r


def helix(R=10, pitch=24, turns=2, r=4.5, pad=4):
    t = np.linspace(0, 2 * np.pi * turns, 2000)
    n, length = int(2 * (R + r) + 2 * pad + 1), int(pitch * turns + 2 * r + 2 * pad + 1)
    c = (n - 1) / 2
    line = np.stack([pad + r + pitch * t / (2 * np.pi), c + R * np.sin(t), c + R * np.cos(t)], 1)
    grid = np.ones((length, n, n), bool)
    grid[tuple(np.round(line).astype(int).T)] = False
    return ndi.distance_transform_edt(grid) <= r


COLORS = {"saddle": "tab:blue", "attracting": "tab:green", "junction": "black", "end": "tab:orange",
          "repelling": "tab:purple"}


def draw(ax, parac, vol, title, tmp):
    src, out, g = (os.path.join(tmp, n) for n in ("in.npy", "out.npy", "g.json"))
    np.save(src, vol.astype(np.uint8) * 255)
    subprocess.run([parac, "--device", "cpu", "skeleton", src, out, "--layout", "dhw", "--graph", g], check=True)
    doc = json.load(open(g))
    verts, faces, _, _ = marching_cubes(np.pad(vol, 1).astype(float), 0.5)
    verts -= 1  # (z, y, x) voxel coordinates
    mesh = Poly3DCollection(verts[faces][:, :, ::-1], alpha=0.12, facecolor="grey", edgecolor="none")
    ax.add_collection3d(mesh)
    for seg in doc["segments"]:
        p = np.array(seg["points"])
        ax.plot(p[:, 0], p[:, 1], p[:, 2], color="red", lw=1.6)
    for n in doc["nodes"]:
        x, y, z = n["position"]
        ax.scatter([x], [y], [z], s=10, color=COLORS.get(n["kind"], "grey"), depthshade=False)
    ax.set_xlim(0, vol.shape[2]), ax.set_ylim(0, vol.shape[1]), ax.set_zlim(0, vol.shape[0])
    ax.set_box_aspect((vol.shape[2], vol.shape[1], vol.shape[0]))
    ax.set_title(title, fontsize=10)
    ax.set_axis_off()


def main():
    parac, png = sys.argv[1], sys.argv[2]
    shapes = [
        (capsules((22, 50, 50), [((11, 25, 6), (11, 25, 25)), ((11, 25, 25), (11, 8, 43)),
                                 ((11, 25, 25), (11, 42, 43))], 4), "Y junction"),
        (torus(), "torus: the loop is kept"),
        (helix(), "helix"),
    ]
    fig = plt.figure(figsize=(12, 4.2), dpi=110)
    with tempfile.TemporaryDirectory() as tmp:
        for i, (vol, title) in enumerate(shapes):
            ax = fig.add_subplot(1, 3, i + 1, projection="3d")
            ax.view_init(elev=35, azim=-60)
            draw(ax, parac, vol, title, tmp)
    fig.tight_layout()
    fig.savefig(png)


if __name__ == "__main__":
    main()
