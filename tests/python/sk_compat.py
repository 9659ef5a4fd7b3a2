"""scikit-image's functions in the parameters of the installed version, for
the tests that compare with it (0.26 renamed min_size / area_threshold to
max_size, which removes sizes up to and including it)."""
import skimage
import skimage.morphology as skmorph


def sk_version():
    return tuple(int(p) for p in skimage.__version__.split(".")[:2])


def sk_remove_objects(a, size, c):
    """scikit-image's removal of objects of fewer than `size` pixels."""
    if sk_version() >= (0, 26):
        return skmorph.remove_small_objects(a, max_size=size - 1, connectivity=c) if size > 0 else a.copy()
    return skmorph.remove_small_objects(a, size, connectivity=c)


def sk_remove_holes(a, size, c):
    """scikit-image's fill of holes of fewer than `size` pixels."""
    if sk_version() >= (0, 26):
        return skmorph.remove_small_holes(a, max_size=size - 1, connectivity=c) if size > 0 else a.astype(bool)
    return skmorph.remove_small_holes(a, size, connectivity=c)
