"""Fuzz harness for the Python extension's argument parsing (_parac.run and
_parac.call): every operation of the registry, and names that are not, with
inputs, parameters, devices, streams and output arrays built from the fuzzer's
bytes: arrays of every dtype numpy has, every rank, empty, huge-strided,
reversed, read-only and misaligned views; objects whose
__cuda_array_interface__ is malformed; parameters of every Python type,
huge, negative, NaN, unknown. A call may raise only the exceptions the
extension documents (TypeError, ValueError, OverflowError, MemoryError,
OSError, and RuntimeError naming a device), or return; it must never crash,
leak or corrupt memory.

    python tests/fuzz/fuzz_python.py [libFuzzer flags] CORPUS   (needs atheris)

tests/python/test_fuzz_python.py replays a fixed set of inputs through
one_input in CI, with the files in tests/fuzz/python-regressions/.
"""
import math
import sys

import numpy as np

from parac import _parac

REGISTRY = {op["name"]: op for op in _parac.ops()}
OPS = sorted(REGISTRY)
PARAMS = sorted({p["name"] for op in REGISTRY.values() for p in op["params"]} | {"method", "mode", "out"})
SUPPORTED = [np.uint8, np.uint16, np.int32, np.float32, np.float64]
ALLOWED = (TypeError, ValueError, OverflowError, MemoryError, OSError)
DTYPES = [np.uint8, np.uint16, np.int32, np.float32, np.float64, np.int8, np.int16, np.int64, np.uint32,
          np.uint64, np.float16, np.complex64, np.bool_]


class Bytes:
    """The fuzzer's bytes as a stream of small decisions (FuzzedDataProvider's
    job, written here so that the harness also runs without atheris)."""

    def __init__(self, data):
        self.data = data
        self.pos = 0
        self.state = len(data) * 2654435761 + 1

    def byte(self):
        if self.pos >= len(self.data):  # past the end: a generator seeded by the input, not zeros
            self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
            return self.state >> 56
        self.pos += 1
        return self.data[self.pos - 1]

    def int(self, lo, hi):
        """An integer in [lo, hi]."""
        span = hi - lo + 1
        v = 0
        for _ in range((span.bit_length() + 7) // 8):
            v = (v << 8) | self.byte()
        return lo + v % span

    def pick(self, seq):
        return seq[self.int(0, len(seq) - 1)]

    def text(self, most):
        n = self.int(0, most)
        return bytes(self.byte() for _ in range(n)).decode("latin-1")


def number(b):
    kind = b.int(0, 9)
    if kind == 0:
        return b.int(-3, 12)
    if kind == 1:
        return b.pick([2**31, 2**31 - 1, -2**31, 2**63, 2**64 + 5, -2**63 - 1, 10**30])
    if kind == 2:
        return b.pick([math.nan, math.inf, -math.inf, -0.0, 1e-320, 1e308, 0.5, 2.5, -1.5])
    if kind == 3:
        return float(b.int(-100, 100)) / 8.0
    if kind == 4:
        return b.pick([True, False])
    if kind == 5:
        return b.text(12)
    if kind == 6:
        return None
    if kind == 7:
        return [number(b) for _ in range(b.int(0, 4))]
    if kind == 8:
        return tuple(number(b) for _ in range(b.int(0, 3)))
    return b.pick([b"\x00", {}, object(), np.float32(1.5), np.int64(-7), np.array(3), 1j])


def param_value(b, spec):
    """Mostly a value of the parameter's own kind, near or past its range."""
    if spec is None or b.int(0, 4) == 0:
        return number(b)
    kind = spec["type"]
    if kind == "choice" and spec["choices"]:
        return b.pick(spec["choices"].split("|"))
    if kind in ("int", "float", "double"):
        lo, hi = spec["min"], spec["max"]
        if hi <= lo:
            lo, hi = -4.0, 40.0
        v = b.pick([lo, hi, lo - 1, hi + 1, (lo + hi) / 2, lo + (hi - lo) * b.int(0, 16) / 16])
        return int(v) if kind == "int" and b.int(0, 3) else v
    if kind == "bool":
        return b.pick([True, False, 0, 1, "yes"])
    return number(b)


def array(b):
    dtype = b.pick(SUPPORTED) if b.int(0, 3) else b.pick(DTYPES)
    ndim = b.pick([2, 2, 3, 3]) if b.int(0, 3) else b.int(0, 4)
    shape = tuple(b.int(1, 12) if b.int(0, 7) else b.int(0, 2) for _ in range(ndim))
    a = np.zeros(shape, dtype=dtype)
    if a.size:
        values = [b.int(0, 255) for _ in range(min(a.size, 64))]
        a.flat[:] = np.resize(np.array(values, dtype=np.float64), a.size).astype(dtype)
    view = b.int(0, 6)
    if view == 1 and ndim:
        a = a[::-1]
    elif view == 2 and ndim:
        a = a[..., ::2]
    elif view == 3:
        a.flags.writeable = False
    elif view == 4 and ndim:
        a = np.swapaxes(a, 0, -1)
    elif view == 5 and a.size:  # a view whose data is not aligned to its element
        raw = np.zeros(a.nbytes + 1, np.uint8)[1:]
        a = raw.view(a.dtype).reshape(a.shape) if a.dtype.itemsize and raw.size % a.dtype.itemsize == 0 else a
    elif view == 6 and ndim:
        a = np.lib.stride_tricks.as_strided(a, shape=a.shape, strides=(0,) * ndim)
    return a


class FakeCudaArray:
    """An object that claims to be a CUDA array, with a malformed or absent
    device pointer: the extension must refuse it before touching memory."""

    def __init__(self, b):
        iface = {}
        for key in ("shape", "typestr", "data", "strides", "version", "stream", "mask"):
            if b.int(0, 3):
                iface[key] = b.pick([
                    (b.int(0, 9), b.int(0, 9)), "<f4", "|u1", ">i4", "<c8", "bogus", (0, False), (0, True),
                    None, 3, -1, (1, 2, 3), [4, 4], (2**70, False), 2, 1,
                ])
        self.__cuda_array_interface__ = iface


def one_input(data):
    b = Bytes(data)
    name = b.pick(OPS) if b.int(0, 7) else b.text(10)
    op = REGISTRY.get(name)
    n_in = op["n_inputs"] if op and b.int(0, 3) else b.int(0, 3)
    inputs = []
    for _ in range(n_in):
        kind = b.int(0, 9)
        inputs.append(FakeCudaArray(b) if kind == 0 else number(b) if kind == 1 else array(b))
    params = {}
    own = op["params"] if op else []
    for _ in range(b.int(0, 4)):
        spec = b.pick(own) if own and b.int(0, 3) else None
        key = spec["name"] if spec else b.pick(PARAMS) if b.int(0, 5) else b.pick([b.text(6), 3, None, ("a",)])
        if key == "method" and op and b.int(0, 1):
            params[key] = b.pick([m["name"] for m in op["methods"]] + ["auto"])
        else:
            params[key] = param_value(b, spec)
    which = b.pick([0, 0, 0, 1, 1, 2])
    try:
        if which == 0:
            device = b.pick(["cpu", "auto", None, "cuda", "cuda:7", "", b.text(6)])
            out = None
            if b.int(0, 3) == 0:
                n_out = op["n_outputs"] if op and b.int(0, 3) else b.int(0, 2)
                out = tuple(b.pick([None, array(b), FakeCudaArray(b), 5]) for _ in range(n_out))
            if b.int(0, 3):  # as the package passes them: names and values as text
                params = {str(k): str(v).lower() if isinstance(v, bool) else str(v) for k, v in params.items()}
            _parac.run(name, tuple(inputs), params, device,
                       b.int(0, 2), bool(b.int(0, 1)), out, bool(b.int(0, 1)))
        elif which == 1:
            stream = b.pick([None, 0, 7, -1, 2**64, "s"])
            _parac.call(name, tuple(inputs), params, stream)
        else:  # the wrong types for the parsers themselves
            _parac.run(*[number(b) for _ in range(b.int(0, 9))])
    except ALLOWED:
        pass
    except RuntimeError as e:
        text = str(e).lower()
        if not any(w in text for w in ("cuda", "device", "gpu", "opencl")):
            raise


def main():
    import atheris

    atheris.instrument_all()  # coverage of the harness's and the package's Python: which paths the bytes chose
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
