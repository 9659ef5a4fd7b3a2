"""The Python extension's argument parsing (_parac.run, _parac.call) under
the fuzz harness tests/fuzz/fuzz_python.py, replayed without a fuzzer: a fixed
set of generated inputs and every file in tests/fuzz/python-regressions/ (the
inputs that once found a fault). Each call returns or raises one of the
documented exceptions; a crash fails the whole run."""
import os
import random
import sys
from pathlib import Path

import pytest

_dir = os.environ.get("PARAC_PYTHON_DIR")
if _dir:
    sys.path.insert(0, _dir)
pytest.importorskip("parac", reason="the parac extension was not built (Python development files)")
FUZZ = Path(__file__).resolve().parents[1] / "fuzz"
sys.path.insert(0, str(FUZZ))
import fuzz_python  # noqa: E402


@pytest.mark.parametrize("seed", range(8))
def test_generated_inputs(seed):
    rng = random.Random(seed)
    for _ in range(250):
        fuzz_python.one_input(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 300))))


def test_regressions():
    files = sorted((FUZZ / "python-regressions").glob("*"))
    for f in files:
        fuzz_python.one_input(f.read_bytes())


def test_run_names_a_parameter_that_is_not_text():
    np = pytest.importorskip("numpy")
    from parac import _parac

    with pytest.raises(TypeError, match=r"gauss: run\(\) takes parameters as text: 'sigma': 1.0 is str: float"):
        _parac.run("gauss", (np.zeros((4, 4), np.float32),), {"sigma": 1.0}, "cpu")


def test_view_at_an_odd_byte_offset():
    """A float view of a byte buffer at offset 1 (the fuzzer's finding: read
    as misaligned floats): the package copies it, the extension refuses it."""
    np = pytest.importorskip("numpy")
    ndi = pytest.importorskip("scipy.ndimage")
    import parac.ndimage as pndi
    from parac import _parac

    raw = np.zeros(4 * 21 * 19 + 1, np.uint8)[1:]
    a = raw.view(np.float32).reshape(21, 19)
    a[:] = np.random.default_rng(3).random((21, 19), dtype=np.float32)
    assert not a.flags.aligned
    np.testing.assert_allclose(pndi.gaussian_filter(a, 2.0), ndi.gaussian_filter(a, 2.0), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="not aligned"):
        _parac.run("gauss", (a,), {"sigma": "2"}, "cpu")
