"""Chunkings that cut everywhere, shared by the Dask tests: the whole array,
one row / column / slice at a time, blocks smaller than a filter's radius,
and random uneven cuts."""
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
