"""Fuzzing the ParaC optimiser: random valid programs (chains of point
stages, row, column and 3x3 stencils with border rules, conditional writes,
sub-range iterators, stages that read the first stage and the input again:
the chains give the fusion pass its pairs and its recomputations) over u8,
u16, i32 and f32 images of odd sizes, run with `parac run` on the OpenCL
device at -O0, -O2, -fno-fuse and 4 and 16 outputs per work-item, with the
alternatives of each fusion choice forced (PARAC_CL_FUSION=1, 2), through
the C target at -O2 and -O0, and through the CUDA target where a CUDA device
exists; every output must match the C target at -O0 (integers exactly,
floats to 1e-5 relative or 32 ulps of the largest value: kernels may
contract a*b+c differently).

Two sizes of run. By default (the README's test command, CI) each program
is compared with every C variant and with the OpenCL target's -O2 plus a
few of its other variants, a different few for each case, so that the fixed
set of programs still runs every variant several times and every construct
(test_the_fixed_set_covers_every_construct_and_variant checks both) while
PoCL, which compiles each OpenCL variant's kernels with LLVM, stays within
a few minutes on an empty cache. PARAC_FUZZ_FULL=1 runs every variant on
every program, PARAC_FUZZ_CASES=N multiplies the number of programs by N and
PARAC_TEST_SEED=S draws other programs: the long runs of docs/parac-language.md."""
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


# -O2 fuses point consumers into their producers and (on the devices) recomputes
# a stencil stage inside the stencil that reads it: -fno-fuse and -O0 do not,
# -fno-fuse-stencils keeps the stencils apart, -ffuse-stencils fuses them in C
# The C target at -O2 runs consecutive iterators in strips of rows: also in
# strips of 3 and 8 rows (many strip borders on small images), and without.
VARIANTS = [("c", ["-O0"]), ("opencl", []), ("opencl", ["-O0"]), ("opencl", ["--vector-width", "4"]),
            ("opencl", ["--vector-width", "16"]), ("opencl", ["-fno-fuse"]), ("c", []),
            ("c", [], {"PARAC_STRIP_ROWS": "3"}), ("c", ["-fno-fuse"], {"PARAC_STRIP_ROWS": "8"}),
            ("c", ["-fno-strips"]), ("opencl", ["-fno-fuse-stencils"]), ("opencl", ["--rows-per-item", "3"]), ("c", ["-ffuse-stencils"]),
            ("c", ["-ffuse-stencils"], {"PARAC_STRIP_ROWS": "3"}), ("opencl", ["-flocal-memory"]),
            ("opencl", [], {"PARAC_CL_SEARCH": "1"}), ("opencl", ["-fif-convert"]), ("c", ["-fno-if-convert"]),
            ("opencl", [], {"PARAC_CL_FUSION": "1"}), ("opencl", [], {"PARAC_CL_FUSION": "2"})]
if _have("cuda"):
    VARIANTS += [("cuda", []), ("cuda", ["-O0"]), ("cuda", ["--vector-width", "16"]), ("cuda", ["--rows-per-item", "5"]),
                 ("cuda", ["-flocal-memory"]), ("cuda", [], {"PARAC_CU_SEARCH": "1"}), ("cuda", [], {"PARAC_CU_FUSION": "2"})]


pytestmark = pytest.mark.skipif(not _have_opencl(), reason="no OpenCL device")

FULL = os.environ.get("PARAC_FUZZ_FULL") == "1"
SCALE = int(os.environ.get("PARAC_FUZZ_CASES", "1"))
SEED = int(os.environ.get("PARAC_TEST_SEED", "0"))
# OpenCL variants besides -O2 that each case runs by default
OPENCL_PER_CASE = 3


def _is_default_opencl(v):
    return v[0] == "opencl" and v[1] == [] and len(v) == 2


def variants_of(variants, case):
    """The variants case `case` runs: all of them with PARAC_FUZZ_FULL=1;
    else every variant of the C and CUDA targets (cheap to build), the
    OpenCL target at -O2, and OPENCL_PER_CASE of its other variants, taken in
    turn so consecutive cases share none and every one comes round."""
    if FULL:
        return list(variants)
    others = [v for v in variants if v[0] == "opencl" and not _is_default_opencl(v)]
    k = min(OPENCL_PER_CASE, len(others))
    chosen = {id(others[(case * k + j) % len(others)]) for j in range(k)}
    return [v for v in variants if v[0] != "opencl" or _is_default_opencl(v) or id(v) in chosen]


def cases(n):
    return range(n * SCALE)


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


STAGE_KINDS = ("point", "row", "col", "box", "cond", "clamp", "edge", "hoist", "sub", "mix", "total")


def stage(rng, k, src, dst, T, dt, last, total=False, kinds=None, force=None):
    """One parallel stage reading src and writing dst (its kind appended to
    `kinds` when given)."""
    it = f"s{k}"
    x, y = it + "x", it + "y"
    choices = ["point", "row", "col", "box", "cond", "clamp", "hoist", "sub"] if not last else ["point", "row", "col", "box", "cond", "clamp", "hoist"]
    if k >= 2:
        choices.append("mix")  # reads the first stage's output and the input at its point too
    flt = dt == "f32"
    if not flt:
        choices.append("total")  # a global sum or mean of src first (CUDA: folded into the kernel that wrote src)
    kind = "total" if total else force if force else str(rng.choice(choices))
    if kinds is not None:
        kinds.append(kind)
    c = int(rng.integers(1, 9))
    if kind == "point":
        e = (f"{src}[{x}][{y}] * 0.5f + {c}.25f" if flt else
             rng.choice([f"{src}[{x}][{y}] * 3 + {c}", f"{src}[{x}][{y}] / 2 + {c}",
                         f"({src}[{x}][{y}] ^ {c}) + 1", f"{src}[{x}][{y}] > {c * 10} ? {src}[{x}][{y}] - {c} : {c}"]))
        return f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n        {dst}[{x}][{y}] = ({T})({e});\n    }}\n"
    if kind == "total":
        op, m = ("sum", 7) if rng.integers(0, 2) else ("mean", 5)
        return (f"    long long g{k} = parac_matrix_{op}({src});\n"
                f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                f"        {dst}[{x}][{y}] = ({T})({src}[{x}][{y}] + g{k} % {m});\n    }}\n")
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
    if kind == "clamp":
        # clamps of a local (if-conversion: selects where the arms' types allow, branches where not)
        V = "float" if flt else "int"
        return (f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                f"        {V} v = {src}[{x}][{y}] * 2 + {c};\n"
                f"        if (v > {c * 20}) v = {c * 20};\n"
                f"        if (v < {src}[{x}][{y}] / 2) v = {src}[{x}][{y}] / 2;\n"
                f"        else v = v - 1;\n"
                f"        {dst}[{x}][{y}] = ({T})(v);\n    }}\n")
    if kind == "edge":
        # reads at clamped columns and rows, by a macro and by a function of the file (the C
        # target splits its lanes where the column clamps hold), at odd offsets and twice the column
        a, b, d = int(rng.integers(-6, 7)), int(rng.integers(-3, 4)), int(rng.integers(0, 4))
        e = (f"{src}[{x}][PCL({y} + {a}, 0, W - 1)] + {src}[pcl({x} + {b}, 0, H - 1)][{y}] / 2 + "
             f"{src}[{x}][pcl(2 * {y} - {d}, 0, W - 1)] - {src}[{x}][PCL({y} - {c}, {c % 3}, W - 2)]")
        return f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n        {dst}[{x}][{y}] = ({T})({e});\n    }}\n"
    if kind == "hoist":
        # both arms begin alike: hoisted where the condition does not read what they write (t),
        # kept where it does (u)
        V = "float" if flt else "int"
        return (f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                f"        {V} u = {src}[{x}][{y}] * 2;\n"
                f"        if ({src}[{x}][{y}] > {c * 12}) {{ {V} t = {src}[{x}][{y}] * 3 + {c}; u = u + t; {dst}[{x}][{y}] = ({T})(t / 2 + u); }}\n"
                f"        else {{ {V} t = {src}[{x}][{y}] * 3 + {c}; u = u + t; {dst}[{x}][{y}] = ({T})(t - 1 - u); }}\n"
                f"        if (u > {c * 30}) {{ u = u + 1; {dst}[{x}][{y}] = ({T})(u); }} else {{ u = u + 1; }}\n"
                f"    }}\n")
    # a sub-range: a different first column and odd bounds (the rest of dst keeps its zeros)
    lo, hi = int(rng.integers(0, 4)), int(rng.integers(1, 4))
    return (f"    parac_iterator {it}({lo}:H - {hi}:1; {lo + 1}:W - {hi}:1) {{\n"
            f"        {dst}[{x}][{y}] = ({T})({src}[{x}][{y}] + {src}[{x} + {hi - 1}][{y} + {hi - 1}]);\n    }}\n")


def program(rng, dt, total_at=None, kinds=None, mix_at=None, edge_at=None):
    T = TYPES[dt][0]
    first = total_at if total_at is not None else mix_at if mix_at is not None else 0
    n = int(rng.integers(first + 1, 5))
    body = [f"    {T} parac_matrix &I[H][W] = in_data;\n", f"    {T} parac_matrix &O[H][W] = out_data;\n"]
    if n > 1:
        body.append(f"    {T} parac_matrix " + ", ".join(f"A{i}[H][W]" for i in range(1, n)) + ";\n")
    src = "I"
    for k in range(n):
        dst = "O" if k == n - 1 else f"A{k + 1}"
        force = "mix" if k == mix_at else "edge" if k == edge_at else None
        body.append(stage(rng, k, src, dst, T, dt, k == n - 1, k == total_at, kinds, force))
        src = dst
    return (f'const char parac_main_dtype[] = "{dt}";\n\n'
            "#define PCL(v, lo, hi) ((v) < (lo) ? (lo) : (v) > (hi) ? (hi) : (v))\n"
            "static int pcl(int v, int lo, int hi) { return v >= hi ? hi : v <= lo ? lo : v; }\n\n"
            f"void parac_main(int C, int H, int W, {T} *in_data, {T} *out_data)\n{{\n"
            + "".join(body) + "}\n")


RANDOM_CASES = 20


@pytest.mark.parametrize("case", cases(RANDOM_CASES))
def test_random_programs_give_the_same_output_at_every_level(tmp_path, case):
    src, dt, rng = random_program(case)
    (tmp_path / "p.pc").write_text(src)
    H, W = int(rng.integers(8, 140)), int(rng.integers(8, 90))
    same_as_first(tmp_path, src, dt, rng, variants_of(VARIANTS, case), ((H, W),))


def random_program(case, kinds=None):
    """Case `case`'s program, its dtype and the generator that goes on to
    draw its image. Of each RANDOM_CASES: 0 to 11 draw every stage; 12 to 17
    take a global sum or mean of the stage before (folded into its kernel on
    CUDA); 18 and 19 have a third stage that reads the first stage's output
    and the input at its point (what fusion recomputes), and a first stage
    that reads at clamped columns and rows."""
    rng = np.random.default_rng(1000 + case + SEED)
    k = case % RANDOM_CASES
    if k < 12:
        dt = ["u8", "u16", "i32", "f32"][k % 4]
        return program(rng, dt, kinds=kinds), dt, rng
    if k < 18:
        dt = ["u8", "u16", "i32"][k % 3]
        return program(rng, dt, total_at=1 + k % 2, kinds=kinds), dt, rng
    dt = ["u16", "f32"][k % 2]
    return program(rng, dt, mix_at=2, kinds=kinds, edge_at=0), dt, rng


def test_the_fixed_set_covers_every_construct_and_variant():
    """The programs of the default run use every kind of stage and every
    dtype, and each test's cases run every one of its variants."""
    kinds, dts = [], set()
    for case in cases(RANDOM_CASES):
        dts.add(random_program(case, kinds)[1])
    assert set(kinds) == set(STAGE_KINDS), sorted(set(STAGE_KINDS) - set(kinds))
    assert dts == set(TYPES)
    for variants, n in ((VARIANTS, RANDOM_CASES), (PAIR_VARIANTS, 8), (STAGE_VARIANTS, 8), (EDGE_VARIANTS, 8)):
        ran = {repr(v) for case in cases(n) for v in variants_of(variants, case)}
        assert ran == {repr(v) for v in variants}
        assert all(variants_of(variants, case)[0] == variants[0] for case in cases(n))  # the -O0 C baseline


def pair_rule(name, m, radius, axis, mirror):
    """Rows (axis 0) or columns (axis 1) repeated or mirrored, `radius` deep."""
    n = "H" if axis == 0 else "W"
    lines = []
    for k in range(1, radius + 1):
        lo, hi = (str(k), f"{n} - {k + 1}") if mirror else ("0", f"{n} - 1")
        if axis == 0:
            lines += [f"{m}[-{k}][*] = {m}[{lo}][*];", f"{m}[+{k}][*] = {m}[{hi}][*];"]
        else:
            lines += [f"{m}[*][-{k}] = {m}[*][{lo}];", f"{m}[*][+{k}] = {m}[*][{hi}];"]
    return f"    parac_border_rule {name} {{\n" + "".join(f"        {s}\n" for s in lines) + "    }\n"


def stencil_pair(rng, dt, radii=(1, 3)):
    """A stencil along one axis, then one along the other that reads it, each
    with a sum or a convolution by a constant filter and its own border rule
    (edges repeated or mirrored): what -O2 fuses on the devices (radii 1 and
    2: recomputed; 3 and 4: staged in local memory)."""
    T = TYPES[dt][0]
    flt = dt == "f32"
    first = int(rng.integers(0, 2))  # the producer's axis
    r1, r2 = int(rng.integers(*radii)), int(rng.integers(*radii))
    mirror1, mirror2 = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))
    conv1, conv2 = bool(rng.integers(0, 2)), bool(rng.integers(0, 2))

    def expr(src, it, axis, r, conv, fname):
        x, y = it + "x", it + "y"
        win = f"{src}[{x}][{y} - {r}:{2 * r + 1}:1]" if axis == 1 else f"{src}[{x} - {r}:{2 * r + 1}:1][{y}]"
        if conv:
            return f"parac_convolution({fname}, {win})"
        return f"parac_matrix_sum({win}) / {2 * r + 1}{'.0f' if flt else ''}"

    def filt(name, axis, r):
        vals = [int(v) for v in rng.integers(1, 5, 2 * r + 1)]
        shape = f"[1][{2 * r + 1}]" if axis == 1 else f"[{2 * r + 1}][1]"
        fv = ", ".join(f"{v}.0f" if flt else str(v) for v in vals)
        return f"    {T if flt else 'int'} parac_matrix {name}{shape} = {{{fv}}};\n"

    body = [f"    {T} parac_matrix &I[H][W] = in_data;\n", f"    {T} parac_matrix &O[H][W] = out_data;\n",
            f"    {T} parac_matrix M[H][W];\n", filt("f1", first, r1), filt("f2", 1 - first, r2),
            pair_rule("b1", "I", r1, first, mirror1),
            f"    parac_iterator p(0:H:1; 0:W:1) parac_border_rule(b1) {{\n"
            f"        M[px][py] = ({T})({expr('I', 'p', first, r1, conv1, 'f1')});\n    }}\n",
            pair_rule("b2", "M", r2, 1 - first, mirror2),
            f"    parac_iterator c(0:H:1; 0:W:1) parac_border_rule(b2) {{\n"
            f"        O[cx][cy] = ({T})({expr('M', 'c', 1 - first, r2, conv2, 'f2')} + I[cx][cy]);\n    }}\n"]
    return (f'const char parac_main_dtype[] = "{dt}";\n\n'
            f"void parac_main(int C, int H, int W, {T} *in_data, {T} *out_data)\n{{\n"
            + "".join(body) + "}\n")


PAIR_VARIANTS = [("c", ["-O0"]), ("opencl", []), ("opencl", ["-O0"]), ("opencl", ["--vector-width", "16"]),
                 ("opencl", ["--rows-per-item", "4"]), ("opencl", ["--rows-per-item", "16", "--vector-width", "4"]),
                 ("opencl", ["-fno-fuse-stencils"]), ("c", ["-ffuse-stencils"]),
                 ("opencl", ["-flocal-memory"]), ("opencl", ["-flocal-memory", "--rows-per-item", "3", "-fif-convert"]),
                 ("opencl", [], {"PARAC_CL_FUSION": "1"})]
if _have("cuda"):
    PAIR_VARIANTS += [("cuda", []), ("cuda", ["--vector-width", "8"]), ("cuda", ["--rows-per-item", "4"]),
                      ("cuda", ["-flocal-memory"])]


@pytest.mark.parametrize("case", cases(8))
def test_stencil_pairs_fuse_and_keep_their_bits(tmp_path, case):
    """A stencil recomputed inside the stencil that reads it (rows then columns
    or columns then rows, sums and convolutions, edges repeated or mirrored,
    sizes down to 3 pixels, smaller than the stencils) gives -O0's output."""
    rng = np.random.default_rng(2000 + case + SEED)
    dt = ["u8", "u16", "i32", "f32"][case % 4]
    src = stencil_pair(rng, dt)
    (tmp_path / "p.pc").write_text(src)
    explain = subprocess.run([str(PARAC.parent / "paracc"), str(tmp_path / "p.pc"), "--target", "opencl", "-o",
                              str(tmp_path / "x"), "--explain"], capture_output=True, text=True)
    assert "recomputed at each of its" in explain.stdout, explain.stdout + explain.stderr + src
    tiles = subprocess.run([str(PARAC.parent / "paracc"), str(tmp_path / "p.pc"), "--target", "opencl", "-o",
                            str(tmp_path / "x"), "--explain", "-flocal-memory"], capture_output=True, text=True)
    assert "local-memory tiles: yes" in tiles.stdout, tiles.stdout + tiles.stderr + src
    same_as_first(tmp_path, src, dt, rng, variants_of(PAIR_VARIANTS, case),
                  ((int(rng.integers(3, 60)), int(rng.integers(3, 70))), (3, 4)))


def f32_slack(base):
    """The absolute difference float results may show: kernels contract
    a*b+c into one rounding where the C target at -O0 rounds twice, so each
    of a chain's operations may differ by an ulp of the largest value in the
    computation (the inputs go up to 100); 32 such ulps, so that a result
    that cancels to near zero (a - b with a and b near 100) still compares."""
    largest = max(100.0, float(np.abs(base).max()) if base.size else 0.0)
    return 32 * float(np.spacing(np.float32(largest)))


def same_as_first(tmp_path, src, dt, rng, variants, sizes):
    """Program p.pc run on random images of each size under every (target,
    flags) variant gives the first variant's output."""
    for H, W in sizes:
        img = (rng.random((H, W)) * 100).astype(TYPES[dt][1])
        np.save(tmp_path / "in.npy", img)
        outs = []
        for i, (target, flags, *env) in enumerate(variants):
            args = ["run", tmp_path / "p.pc", tmp_path / "in.npy", tmp_path / f"o{i}.npy", "--target", target]
            for f in flags:
                args += ["--paracc-flag", f]
            run_parac(*args, env={"PARAC_CACHE_DIR": str(tmp_path / "cache"), **(env[0] if env else {})})
            outs.append(np.load(tmp_path / f"o{i}.npy"))
        for (target, flags, *env), got in zip(variants[1:], outs[1:]):
            msg = f"{target} {' '.join(flags)} {env} differs from -O0 on {H}x{W} {dt}:\n{src}"
            if dt == "f32":
                np.testing.assert_allclose(got, outs[0], rtol=1e-5, atol=f32_slack(outs[0]), err_msg=msg)
            else:
                np.testing.assert_array_equal(got, outs[0], err_msg=msg)


def edges_program(rng, dt):
    """Small one-axis iterators after a whole first stage, each writing a row
    or a column of O (near either edge, over a random span, sometimes the
    same row twice or reading O itself): what -O2 merges into one launch on
    the devices where the writes lie provably apart, and must keep in order
    where they do not."""
    T = TYPES[dt][0]
    body = [f"    {T} parac_matrix &I[H][W] = in_data;\n", f"    {T} parac_matrix &O[H][W] = out_data;\n",
            "    parac_iterator w(0:H:1; 0:W:1) {\n        O[wx][wy] = I[wx][wy];\n    }\n"]
    for k in range(int(rng.integers(2, 6))):
        along_rows = bool(rng.integers(0, 2))
        n, m = ("W", "H") if along_rows else ("H", "W")
        fixed = rng.choice(["0", "1", "2", f"{m} - 1", f"{m} - 2", f"{m} - 3"])
        lo, hi = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        it = f"e{k}"
        x = it + "x"
        at = f"[{fixed}][{x}]" if along_rows else f"[{x}][{fixed}]"
        other = f"[{rng.choice(['0', '1', m + ' - 1'])}][{x}]" if along_rows else f"[{x}][{rng.choice(['0', '1', m + ' - 1'])}]"
        src = "O" if rng.integers(0, 4) == 0 else "I"  # now and then a dependence on an earlier one
        if src == "O":  # O at its own element: another row of O, which this iterator writes, would be refused
            other = at  # (rows 0 and H - 1 are apart only when H > 1: paracc does not assume it)
        body.append(f"    parac_iterator {it}({lo}:{n} - {hi}:1) {{\n        O{at} = ({T})({src}{other} / 2 + {k + 1});\n    }}\n")
    return (f'const char parac_main_dtype[] = "{dt}";\n\n'
            f"void parac_main(int C, int H, int W, {T} *in_data, {T} *out_data)\n{{\n" + "".join(body) + "}\n")


EDGE_VARIANTS = [v for v in VARIANTS if len(v) == 2 and v[1] in ([], ["-O0"])]


@pytest.mark.parametrize("case", cases(8))
def test_merged_launches_keep_the_order_of_writes(tmp_path, case):
    rng = np.random.default_rng(3000 + case + SEED)
    dt = ["u8", "i32"][case % 2]
    src = edges_program(rng, dt)
    (tmp_path / "p.pc").write_text(src)
    H, W = int(rng.integers(5, 70)), int(rng.integers(5, 70))
    same_as_first(tmp_path, src, dt, rng, variants_of(EDGE_VARIANTS, case), ((H, W),))


STAGE_VARIANTS = [("c", ["-O0"]), ("opencl", []), ("opencl", ["-O0"]), ("opencl", ["-fno-stage-stencils"]),
                  ("opencl", ["--rows-per-item", "2"]), ("c", ["-O0"]),
                  ("opencl", [], {"PARAC_CL_FUSION": "1"}), ("opencl", [], {"PARAC_CL_FUSION": "2"})]
if _have("cuda"):
    STAGE_VARIANTS += [("cuda", []), ("cuda", ["--rows-per-item", "16"]), ("cuda", ["-fno-stage-stencils"])]


@pytest.mark.parametrize("case", cases(8))
def test_stage_chains_keep_their_bits(tmp_path, case):
    """Stencils of radius 3 and 4 (too costly to recompute) computed by the
    reader's work-groups in local memory, the image's tile loaded first
    through its rule: -O0's output on odd sizes, smaller and larger than a
    work-group's tile of 32 x 64 outputs."""
    rng = np.random.default_rng(3000 + case + SEED)
    dt = ["u8", "u16", "i32", "f32"][case % 4]
    src = stencil_pair(rng, dt, radii=(3, 5))
    (tmp_path / "p.pc").write_text(src)
    explain = subprocess.run([str(PARAC.parent / "paracc"), str(tmp_path / "p.pc"), "--target", "opencl", "-o",
                              str(tmp_path / "x"), "--explain"], capture_output=True, text=True)
    assert "local-memory stages: I " in explain.stdout, explain.stdout + explain.stderr + src
    same_as_first(tmp_path, src, dt, rng, variants_of(STAGE_VARIANTS, case),
                  ((int(rng.integers(10, 90)), int(rng.integers(10, 150))), (9, 10)))


def chain_program(rng, dt, mode):
    """A chain of stencil stages over row and column ranges of their own, no
    border rules: what the C target runs in strips of rows. `mode` "inside":
    each stage reads the stage before inside the rows and columns it wrote,
    into a matrix of its own (what storage folding keeps as rings of rows);
    "pingpong": two matrices written in turn, each rewritten while the stage
    before still reads it; "any": reads of any earlier matrix at any offset
    that stays inside the image, each stage now and then reading what it
    writes at its own point; "loop": "inside"'s chain in a host loop of 1 to
    4 rounds, its first stage adding the counter, its last adding to O at
    its own point (what the C target runs inside its strips, a thread over
    its own strips), now and then a stage before the last reading O at an
    offset (which keeps the loop around the strips). Returns the text and
    whether the loop may run inside the strips."""
    T = TYPES[dt][0]
    flt = dt == "f32"
    n = int(rng.integers(2, 7))
    looped = mode == "loop"
    if looped:
        mode = "inside"
        rounds = int(rng.integers(1, 5))
        offset_read = n > 2 and rng.integers(0, 3) == 0
    if mode == "inside":
        mats = [f"A{i}" for i in range(1, n)]
    elif mode == "pingpong":
        mats = ["A1", "A2"]
    else:
        mats = [f"A{i}" for i in range(1, int(rng.integers(2, 5)))]
    body = [f"    {T} parac_matrix &I[H][W] = in_data;\n", f"    {T} parac_matrix &O[H][W] = out_data;\n",
            f"    {T} parac_matrix " + ", ".join(f"{m}[H][W]" for m in mats) + ";\n"]
    if looped:
        body.append(f"    parac_iterator z(0:H; 0:W) {{ O[zx][zy] = ({T})0; }}\n    for (int k = 0; k < {rounds}; k++) {{\n")
    box = {"I": (0, 0, 0, 0)}  # rows from the top, to the bottom, columns from the left, to the right
    prev = "I"

    def window(lo, hi, inside_lo, inside_hi, shortest):
        """An offset and a length whose reads from [lo, N - hi) stay in [inside_lo, N - inside_hi)."""
        ln = int(rng.integers(shortest, 4))
        a_min, a_max = inside_lo - lo, hi - inside_hi - (ln - 1)
        if a_min > a_max:
            return 0, 1, False
        return int(rng.integers(a_min, a_max + 1)), ln, True

    for s in range(n):
        last = s == n - 1
        dst = "O" if last else mats[s] if mode == "inside" else mats[s % 2] if mode == "pingpong" else str(rng.choice(mats))
        x, y = f"s{s}x", f"s{s}y"
        lo, hi, clo, chi = (int(v) for v in rng.integers(0, 5, 4))
        # (a stage reads what it writes only at its own point: paracc refuses the rest)
        readable = sorted({"I", *box} - {dst})
        srcs = [prev] if mode in ("inside", "pingpong") else [str(m) for m in rng.choice(readable, int(rng.integers(1, 4)))]
        terms = []
        for src in srcs:
            blo, bhi, bclo, bchi = box[src] if mode != "any" else (0, 0, 0, 0)
            if mode != "any":  # the stage's ranges follow the reads, inside the writer's box
                lo, hi = blo + int(rng.integers(1, 4)), bhi + int(rng.integers(1, 4))
                clo, chi = bclo + int(rng.integers(0, 3)), bchi + int(rng.integers(0, 3))
            # (inside: windows of 2 or 3 rows, which fusion leaves to the strips)
            a, ln, ok = window(lo, hi, blo, bhi, 2 if mode == "inside" else 1)
            b, lc, okc = window(clo, chi, bclo, bchi, 1)
            # else a point on that axis (one source: over the writer's rows; "any": the stage's
            # ranges stay, which earlier sources' windows were fitted to)
            if not ok:
                a, ln = 0, 1
                if mode != "any":
                    lo, hi = blo, bhi
            if not okc:
                b, lc = 0, 1
                if mode != "any":
                    clo, chi = bclo, bchi
            if ln == 1 and lc == 1:
                terms.append(f"{src}[{x} + {a}][{y} + {b}]" if a or b else f"{src}[{x}][{y}]")
            else:
                terms.append(f"parac_matrix_sum({src}[{x} + {a}:{ln}][{y} + {b}:{lc}]) / {ln * lc}{'.0f' if flt else ''}")
        if mode == "any" and dst != "O" and dst not in srcs and rng.integers(0, 3) == 0:
            terms.append(f"{dst}[{x}][{y}]")  # what it writes, at its own point
        if looped and s == n - 2 and offset_read:  # O, which the rounds carry, a few rows off
            terms.append(f"O[{x} + {int(rng.integers(-lo, hi + 1))}][{y}]")
        c = int(rng.integers(1, 9))
        e = f"({' + '.join(terms)}) / {len(terms)}{'.0f' if flt else ''} + {c}"
        if looped and s == 0:
            e += " + k"
        if looped and last:
            e = f"{dst}[{x}][{y}] + {e}"
        body.append(f"    parac_iterator s{s}({lo}:H - {hi}; {clo}:W - {chi}) {{\n        {dst}[{x}][{y}] = ({T})({e});\n    }}\n")
        box[dst] = (lo, hi, clo, chi)
        prev = dst
    if looped:
        body.append("    }\n")
    return (f'const char parac_main_dtype[] = "{dt}";\n\n'
            f"void parac_main(int C, int H, int W, {T} *in_data, {T} *out_data)\n{{\n" + "".join(body) + "}\n"), \
        looped and not offset_read


# strips of 1, 3 and 8 rows (3 threads in strips of 3: blocks of 1 to 30 rows, so that a block
# has one strip or several), the default height (which folded matrices use at any size), no
# folding, the team's strips, no strips; OpenCL at -O2 beside them
CHAIN_VARIANTS = [("c", ["-O0"]), ("c", []), ("c", [], {"PARAC_STRIP_ROWS": "1"}),
                  ("c", [], {"PARAC_STRIP_ROWS": "3", "OMP_NUM_THREADS": "3"}),
                  ("c", [], {"PARAC_STRIP_ROWS": "8"}), ("c", ["-fno-fold-storage"], {"PARAC_STRIP_ROWS": "3"}),
                  ("c", ["-fno-strip-loops"], {"PARAC_STRIP_ROWS": "2"}),
                  ("c", ["-fno-thread-strips"], {"PARAC_STRIP_ROWS": "3"}), ("c", ["-fno-strips"]), ("opencl", [])]
if _have("cuda"):
    CHAIN_VARIANTS += [("cuda", [])]


@pytest.mark.parametrize("case", cases(12))
def test_strip_chains_keep_their_bits(tmp_path, case):
    """Chains of stencils over ranges of their own (strips.c: reaches from every
    pair of stages touching a matrix, intermediates folded into rings of rows;
    each thread over strips of its own where the run's intermediates are its
    alone), and such chains in a host loop (run inside the strips, each thread
    over its own): -O0's output on odd sizes, in strips of several heights."""
    rng = np.random.default_rng(4000 + case + SEED)
    dt = ["u8", "u16", "i32", "f32"][(case + case // 4) % 4]
    mode = ["inside", "pingpong", "any", "loop"][case % 4]
    src, inside_strips = chain_program(rng, dt, mode)
    (tmp_path / "p.pc").write_text(src)
    explain = subprocess.run([str(PARAC.parent / "paracc"), str(tmp_path / "p.pc"), "--target", "c", "-o",
                              str(tmp_path / "x"), "--explain"], capture_output=True, text=True)
    assert explain.returncode == 0, explain.stderr + src
    if mode == "inside" or inside_strips:  # every intermediate written once and read inside what was written
        assert "storage folded" in explain.stdout, explain.stdout + src
    if mode == "inside":  # ... so each thread runs every stage over strips of its own
        assert "a thread running every stage over its own strips" in explain.stdout, explain.stdout + src
    if mode == "loop":  # the loop inside the strips unless a stage reads O at an offset
        assert ("with the loop of line" in explain.stdout) == inside_strips, explain.stdout + src
    same_as_first(tmp_path, src, dt, rng, CHAIN_VARIANTS,
                  ((int(rng.integers(12, 90)), int(rng.integers(12, 70))), (23, 9)))
