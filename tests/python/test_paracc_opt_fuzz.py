"""Fuzzing the ParaC optimiser: random valid programs (chains of point
stages, row, column and 3x3 stencils with border rules, conditional writes,
sub-range iterators, stages that read the first stage and the input again:
the chains give the fusion pass its pairs and its recomputations) over u8,
u16, i32 and f32 images of odd sizes, run with `parac run` on the OpenCL
device at -O0, -O2, -fno-fuse and 4 and 16 outputs per work-item, through
the C target at -O2 and -O0, and through the CUDA target where a CUDA device
exists; every output must match -O0 (integers exactly, floats to 1e-5
relative: kernels may contract a*b+c differently)."""
import os
import re
import subprocess

import numpy as np
import pytest

from conftest import PARAC, run_parac

TYPES = {"u8": ("unsigned char", np.uint8), "u16": ("unsigned short", np.uint16),
         "i32": ("int", np.int32), "f32": ("float", np.float32)}
def _have(kind):
    if PARAC is None or not PARAC.exists():
        return False
    r = subprocess.run([str(PARAC), "devices"], capture_output=True, text=True)
    return bool(re.search(r"^%s: (?!none)" % kind, r.stdout, re.M))


def _have_opencl():
    return _have("opencl")


# -O2 fuses point consumers into their producers: -fno-fuse and -O0 do not
# The C target at -O2 runs consecutive iterators in strips of rows: also in
# strips of 3 and 8 rows (many strip borders on small images), and without.
VARIANTS = [("opencl", ["-O0"]), ("opencl", []), ("opencl", ["--vector-width", "4"]),
            ("opencl", ["--vector-width", "16"]), ("opencl", ["-fno-fuse"]), ("c", []), ("c", ["-O0"]),
            ("c", [], {"PARAC_STRIP_ROWS": "3"}), ("c", ["-fno-fuse"], {"PARAC_STRIP_ROWS": "8"}),
            ("c", ["-fno-strips"])]
if _have("cuda"):
    VARIANTS += [("cuda", []), ("cuda", ["-O0"]), ("cuda", ["--vector-width", "16"])]


pytestmark = pytest.mark.skipif(not _have_opencl(), reason="no OpenCL device")


def rule(name, m, radius, rows, cols):
    """Edges repeated, `radius` deep, along columns and/or rows (corners too)."""
    lines = []
    for k in range(1, radius + 1):
        if cols:
            lines += [f"{m}[*][-{k}] = {m}[*][0];", f"{m}[*][+{k}] = {m}[*][W - 1];"]
        if rows:
            lines += [f"{m}[-{k}][*] = {m}[0][*];", f"{m}[+{k}][*] = {m}[H - 1][*];"]
    if rows and cols:
        for k in range(1, radius + 1):
            for j in range(1, radius + 1):
                lines += [f"{m}[-{k}][-{j}] = {m}[0][0];", f"{m}[-{k}][+{j}] = {m}[0][W - 1];",
                          f"{m}[+{k}][-{j}] = {m}[H - 1][0];", f"{m}[+{k}][+{j}] = {m}[H - 1][W - 1];"]
    return f"    parac_border_rule {name} {{\n" + "".join(f"        {s}\n" for s in lines) + "    }\n"


def stage(rng, k, src, dst, T, dt, last):
    """One parallel stage reading src and writing dst."""
    it = f"s{k}"
    x, y = it + "x", it + "y"
    kinds = ["point", "row", "col", "box", "cond", "sub"] if not last else ["point", "row", "col", "box", "cond"]
    if k >= 2:
        kinds.append("mix")  # reads the first stage's output and the input at its point too
    kind = rng.choice(kinds)
    flt = dt == "f32"
    c = int(rng.integers(1, 9))
    if kind == "point":
        e = (f"{src}[{x}][{y}] * 0.5f + {c}.25f" if flt else
             rng.choice([f"{src}[{x}][{y}] * 3 + {c}", f"{src}[{x}][{y}] / 2 + {c}",
                         f"({src}[{x}][{y}] ^ {c}) + 1", f"{src}[{x}][{y}] > {c * 10} ? {src}[{x}][{y}] - {c} : {c}"]))
        return f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n        {dst}[{x}][{y}] = ({T})({e});\n    }}\n"
    if kind == "mix":
        # with a point first stage and a stencil between, the fusion pass may recompute A1 here
        e = (f"{src}[{x}][{y}] + A1[{x}][{y}] * 0.25f - I[{x}][{y}]" if flt else
             f"{src}[{x}][{y}] + A1[{x}][{y}] / 4 - I[{x}][{y}]")
        return f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n        {dst}[{x}][{y}] = ({T})({e});\n    }}\n"
    if kind in ("row", "col"):
        r = int(rng.integers(1, 3))
        win = f"{src}[{x}][{y} - {r}:{2 * r + 1}:1]" if kind == "row" else f"{src}[{x} - {r}:{2 * r + 1}:1][{y}]"
        div = f"{2 * r + 1}.0f" if flt else f"{2 * r + 1}"
        return (rule(f"b{k}", src, r, kind == "col", kind == "row") +
                f"    parac_iterator {it}(0:H:1; 0:W:1) parac_border_rule(b{k}) {{\n"
                f"        {dst}[{x}][{y}] = ({T})(parac_matrix_sum({win}) / {div});\n    }}\n")
    if kind == "box":
        return (rule(f"b{k}", src, 1, True, True) +
                f"    parac_iterator {it}(0:H:1; 0:W:1) parac_border_rule(b{k}) {{\n"
                f"        {dst}[{x}][{y}] = ({T})((parac_matrix_sum({src}[{x} - 1:3:1][{y} - 1:3:1]) + "
                f"{src}[{x}][{y}]) / {'10.0f' if flt else '10'});\n    }}\n")
    if kind == "cond":
        return (f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                f"        if ({src}[{x}][{y}] > {c * 12}) {dst}[{x}][{y}] = ({T})({src}[{x}][{y}] - {c});\n"
                f"        else {dst}[{x}][{y}] = ({T})({src}[{x}][{y}] + {c});\n    }}\n")
    # a sub-range: a different first column and odd bounds (the rest of dst keeps its zeros)
    lo, hi = int(rng.integers(0, 4)), int(rng.integers(1, 4))
    return (f"    parac_iterator {it}({lo}:H - {hi}:1; {lo + 1}:W - {hi}:1) {{\n"
            f"        {dst}[{x}][{y}] = ({T})({src}[{x}][{y}] + {src}[{x} + {hi - 1}][{y} + {hi - 1}]);\n    }}\n")


def program(rng, dt):
    T = TYPES[dt][0]
    n = int(rng.integers(1, 5))
    body = [f"    {T} parac_matrix &I[H][W] = in_data;\n", f"    {T} parac_matrix &O[H][W] = out_data;\n"]
    if n > 1:
        body.append(f"    {T} parac_matrix " + ", ".join(f"A{i}[H][W]" for i in range(1, n)) + ";\n")
    src = "I"
    for k in range(n):
        dst = "O" if k == n - 1 else f"A{k + 1}"
        body.append(stage(rng, k, src, dst, T, dt, k == n - 1))
        src = dst
    return (f'const char parac_main_dtype[] = "{dt}";\n\n'
            f"void parac_main(int C, int H, int W, {T} *in_data, {T} *out_data)\n{{\n"
            + "".join(body) + "}\n")


@pytest.mark.parametrize("case", range(12))
def test_random_programs_give_the_same_output_at_every_level(tmp_path, case):
    rng = np.random.default_rng(1000 + case + int(os.environ.get("PARAC_TEST_SEED", "0")))
    dt = ["u8", "u16", "i32", "f32"][case % 4]
    src = program(rng, dt)
    (tmp_path / "p.pc").write_text(src)
    H, W = int(rng.integers(8, 140)), int(rng.integers(8, 90))
    npt = TYPES[dt][1]
    img = (rng.random((H, W)) * 100).astype(npt)
    np.save(tmp_path / "in.npy", img)
    outs = []
    for i, (target, flags, *env) in enumerate(VARIANTS):
        args = ["run", tmp_path / "p.pc", tmp_path / "in.npy", tmp_path / f"o{i}.npy", "--target", target]
        for f in flags:
            args += ["--paracc-flag", f]
        run_parac(*args, env={"PARAC_CACHE_DIR": str(tmp_path / "cache"), **(env[0] if env else {})})
        outs.append(np.load(tmp_path / f"o{i}.npy"))
    base = outs[0]
    assert base.shape[-2:] == (H, W)
    for (target, flags, *env), got in zip(VARIANTS[1:], outs[1:]):
        msg = f"{target} {' '.join(flags)} {env} differs from -O0 on {H}x{W} {dt}:\n{src}"
        if dt == "f32":
            np.testing.assert_allclose(got, base, rtol=1e-5, atol=1e-5, err_msg=msg)
        else:
            np.testing.assert_array_equal(got, base, err_msg=msg)
