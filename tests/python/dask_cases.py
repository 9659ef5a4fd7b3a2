"""Shared by the Dask tests: chunkings that cut everywhere (the whole array,
one row / column / slice at a time, blocks smaller than a filter's radius,
random uneven cuts) and a spiral that crosses every chunk face."""
import numpy as np


def chunkings(shape, seed, small=3, random=2):
    r = np.random.default_rng(seed)
    yield shape
    yield tuple(1 if i == 0 else n for i, n in enumerate(shape))
    yield tuple(1 if i == len(shape) - 1 else n for i, n in enumerate(shape))
    yield tuple(min(n, small) for n in shape)
    for _ in range(random):
        cuts = []
        for n in shape:
            sizes = []
            while sum(sizes) < n:
                sizes.append(int(min(n - sum(sizes), r.integers(1, max(2, n // 2)))))
            cuts.append(tuple(sizes))
        yield tuple(cuts)


def spiral(n):
    """A one-pixel-wide square spiral with one-pixel gaps, walked inwards
    from a corner: one component whose path crosses every chunk face many
    times."""
    a = np.zeros((n, n), bool)
    y = x = d = 0
    a[0, 0] = True
    steps = ((0, 1), (1, 0), (0, -1), (-1, 0))

    def free(i, j):
        return not (0 <= i < n and 0 <= j < n) or not a[i, j]

    while True:
        for _turn in range(2):
            dy, dx = steps[d]
            if 0 <= y + dy < n and 0 <= x + dx < n and free(y + dy, x + dx) and free(y + 2 * dy, x + 2 * dx):
                y, x = y + dy, x + dx
                a[y, x] = True
                break
            d = (d + 1) % 4
        else:
            return a
