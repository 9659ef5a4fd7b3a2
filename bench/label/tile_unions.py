"""The unions of the GPU's 3D tiles pass (src/label/cuda/label_cuda.cu,
tiles_kernel), modelled on the CPU: a tile's rows of 32 voxels as bit masks,
runs joined with the rows before where an overlap starts, and the unions
that the voxel below covers left out. Checks that the partition equals
scipy's labels on random volumes (every connectivity, every rule) and counts
the unions each rule leaves, which is where the numbers in the kernel's
comment come from.

    python bench/label/tile_unions.py [--seed N] [--trials N]
"""
import argparse

import numpy as np
import scipy.ndimage as ndi

FULL = 0xFFFFFFFF
# rows before (dy, dz, diagonals), the row straight below first; cover: what
# the voxel below covers (0 nothing, 1 the straight neighbours, 2 all)
ROWS = {6: ([(-1, 0, 0), (0, -1, 0)], 0),
        18: ([(0, -1, 1), (-1, 0, 1), (-1, -1, 0), (1, -1, 0)], 1),
        26: ([(0, -1, 1), (-1, 0, 1), (-1, -1, 1), (1, -1, 1)], 2)}
# rules: 0 none; 1 the voxel straight below; 2 and the one straight before
# covers the row before both; 3 and the voxels below at x -+ 1 (26 only)
RULES = (0, 1, 2, 3)


def bits(x):
    while x:
        yield (x & -x).bit_length() - 1
        x &= x - 1


def run_start(starts, b):
    return (starts & ((2 << b) - 1)).bit_length() - 1


def tile_labels(vol, conn, rule):
    """Labels (the root's index + 1) of a tile of 32-voxel rows, and the unions made."""
    nz, ny, nx = vol.shape
    assert nx == 32
    weights = 1 << np.arange(32, dtype=np.uint64)
    mask = [[int((vol[z, y].astype(np.uint64) * weights).sum()) for y in range(ny)] for z in range(nz)]
    parent = {}

    def find(a):
        while parent[a] != a:
            a = parent[a]
        return a

    def unite(a, b):
        a, b = find(a), find(b)
        if a != b:
            parent[max(a, b)] = min(a, b)

    def joins_left(m):
        return m & (m << 1) & FULL

    for z in range(nz):
        for y in range(ny):
            m = mask[z][y]
            for b in bits(m & ~joins_left(m)):
                parent[(z * ny + y) * 32 + b] = (z * ny + y) * 32 + b
    rows, cover = ROWS[conn]
    unions = 0
    for z in range(nz):
        for y in range(ny):
            m = mask[z][y]
            sl = joins_left(m)
            starts, base = m & ~sl, (z * ny + y) * 32
            below = below_l = below_r = before = 0
            for j, (dy, dz, diag) in enumerate(rows):
                yn, zn = y + dy, z + dz
                if not (0 <= yn < ny and zn >= 0 and m):
                    continue
                mn = mask[zn][yn]
                nstarts, nbase = mn & ~joins_left(mn), (zn * ny + yn) * 32
                su = m & mn
                left = right = sul = sur = 0
                if diag:
                    left, right = m & (mn << 1) & FULL, m & (mn >> 1)
                    sul, sur = left & ~(sl | su), right & ~((sl >> 1) | su)
                up = su & ~((su << 1) & sl) & FULL
                if rule and cover and j == 0:
                    below, below_l, below_r = su, left, right
                elif rule and cover:
                    covered = below | (before if rule >= 2 and j == 2 else 0)
                    if rule == 3 and cover == 2:
                        up &= ~(covered | below_l | below_r)
                        sul &= ~(covered | below_l)
                        sur &= ~(covered | below_r)
                    else:
                        up &= ~covered
                        if cover == 2:
                            sul &= ~covered
                            sur &= ~covered
                    if j == 1:
                        before = su
                for d, sel in ((0, up), (-1, sul), (1, sur)):
                    for b in bits(sel):
                        unite(base + run_start(starts, b), nbase + run_start(nstarts, b + d))
                        unions += 1
    out = np.zeros(vol.shape, np.int64)
    for z in range(nz):
        for y in range(ny):
            m = mask[z][y]
            starts = m & ~joins_left(m)
            for b in bits(m):
                out[z, y, b] = find((z * ny + y) * 32 + run_start(starts, b)) + 1
    return out, unions


def same_partition(a, b):
    if not np.array_equal(a > 0, b > 0):
        return False
    pairs = set(zip(a[a > 0].tolist(), b[b > 0].tolist()))
    return len(pairs) == len(np.unique(a[a > 0])) == len(np.unique(b[b > 0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trials", type=int, default=60)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    structure = {6: ndi.generate_binary_structure(3, 1), 18: ndi.generate_binary_structure(3, 2),
                 26: np.ones((3, 3, 3), bool)}
    for _ in range(args.trials):
        vol = rng.random((rng.integers(1, 9), rng.integers(1, 12), 32)) < rng.choice([0.1, 0.3, 0.5, 0.7, 0.9])
        for conn in (6, 18, 26):
            want, _ = ndi.label(vol, structure[conn])
            for rule in RULES:
                got, _ = tile_labels(vol, conn, rule)
                assert same_partition(got, want), (conn, rule)
    print("partitions equal to scipy's: %d random volumes, 6/18/26 neighbours, rules %s" % (args.trials, RULES))
    for density in (0.3, 0.5):
        vol = rng.random((16, 32, 32)) < density
        for conn in (18, 26):
            counts = [tile_labels(vol, conn, rule)[1] for rule in RULES]
            print("a tile of 32 x 32 x 16, noise %d %%, %d neighbours: unions %s (%s)" % (
                100 * density, conn, " / ".join(map(str, counts)),
                " / ".join("%.0f %%" % (100 * (1 - c / counts[0])) for c in counts)))


if __name__ == "__main__":
    main()
