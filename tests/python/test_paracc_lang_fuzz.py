"""The differential fuzzer of the ParaC language: random well-formed programs
that use every construct (paracc_lang_gen.py) run through `parac run` on
every target and at every optimisation level, each output compared with an
interpretation of the program in numpy (integers exactly; float32 to 1e-4
relative, kernels may contract a*b+c and sum windows in another order).

By default (the README's test command, CI) LANG_CASES programs, each on two
images (one to three planes, odd sizes from 8 to 45), through the C target
at -O0 and -O2 (also in strips of 3 rows), the OpenCL target at -O2 and two
more of the OpenCL (-O0 among them) and C variants in turn (PoCL compiles
each OpenCL variant's kernels, and again for each image's work-group
shapes: most of the test's time); and the CUDA target's
where a CUDA device exists. PARAC_FUZZ_FULL=1 runs every variant on every
program, PARAC_FUZZ_CASES=N multiplies the programs by N, PARAC_TEST_SEED=S
draws others: the long runs of docs/parac-language.md."""
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import PARAC, run_parac

sys.path.insert(0, str(Path(__file__).resolve().parent))
import paracc_lang_gen as gen  # noqa: E402


def _have(kind):
    if PARAC is None or not PARAC.exists():
        return False
    r = subprocess.run([str(PARAC), "devices"], capture_output=True, text=True)
    # an OpenCL device is listed with its compute units; a build without the OpenCL
    # runtime says "unavailable" and a machine without a platform "no platform found"
    if kind == "opencl":
        return any(line.startswith("opencl:") and "compute units" in line for line in r.stdout.splitlines())
    return bool(re.search(r"^%s: (?!none)" % kind, r.stdout, re.M))


HAVE_OPENCL, HAVE_CUDA = _have("opencl"), _have("cuda")
FULL = os.environ.get("PARAC_FUZZ_FULL") == "1"
SCALE = int(os.environ.get("PARAC_FUZZ_CASES", "1"))
SEED = int(os.environ.get("PARAC_TEST_SEED", "0"))
LANG_CASES = 19

ALWAYS = [("c", ["-O0"]), ("c", []), ("c", [], {"PARAC_STRIP_ROWS": "3"})]
if HAVE_OPENCL:
    ALWAYS += [("opencl", [])]
IN_TURN = [("c", ["-fno-strips"]), ("c", ["-ffuse-stencils"]), ("c", ["-fno-fuse", "-fno-if-convert"])]
if HAVE_OPENCL:
    IN_TURN += [("opencl", ["-O0"]), ("opencl", ["--vector-width", "16"]), ("opencl", ["--rows-per-item", "3"]),
                ("opencl", ["-flocal-memory", "-fif-convert"]), ("opencl", ["-fno-one-launch", "-fno-fuse-stencils"]),
                ("opencl", ["-fno-merge-launches", "-fno-stage-stencils"]), ("opencl", [], {"PARAC_CL_SEARCH": "1"})]
if HAVE_CUDA:
    ALWAYS += [("cuda", []), ("cuda", ["-O0"])]
    IN_TURN += [("cuda", ["--vector-width", "16"]), ("cuda", ["--rows-per-item", "5"]), ("cuda", ["-flocal-memory"]),
                ("cuda", ["-fno-fold-reductions", "-fno-one-launch"]), ("cuda", [], {"PARAC_CU_SEARCH": "1"})]
PER_CASE = 2


def variants_of(case):
    if FULL:
        return ALWAYS + IN_TURN
    return ALWAYS + [IN_TURN[(case * PER_CASE + j) % len(IN_TURN)] for j in range(PER_CASE)]


def random_input(rng, dt, shape):
    if dt == "u8":
        return rng.integers(0, 256, shape).astype(np.uint8)
    if dt == "u16":
        return rng.integers(0, 1200, shape).astype(np.uint16)
    if dt == "i32":
        return rng.integers(-300, 301, shape).astype(np.int32)
    return (rng.random(shape) * 200 - 100).astype(np.float32)


def drawn(case):
    """Case `case`'s program and its two images: draws again until the
    oracle finds the program well defined on both (no int overflow)."""
    rng = np.random.default_rng(7000 + case + SEED)
    dt = ["u8", "u16", "i32", "f32"][case % 4]
    lead = gen.LEADS[case % len(gen.LEADS)]
    for _ in range(50):
        src, oracle, _, kinds = gen.draw(rng, dt, lead)
        # images as files hold channels last: H x W or H x W x C
        shapes = [(int(rng.integers(8, 46)), int(rng.integers(8, 46))) + ((int(rng.integers(2, 5)),) if rng.random() < 0.5 else ())
                  for _ in range(2)]
        imgs = [random_input(rng, dt, s) for s in shapes]
        try:
            refs = [planes_back(oracle(planes(img)), img) for img in imgs]
        except gen.Reject:
            continue
        return src, dt, kinds, imgs, refs
    raise AssertionError("no well-defined program in 50 draws")


def planes(img):
    """C x H x W planes of an image file's H x W (x C) array."""
    return img[None] if img.ndim == 2 else np.moveaxis(img, 2, 0)


def planes_back(p, img):
    return p[0] if img.ndim == 2 else np.moveaxis(p, 0, 2)


def assert_same(got, ref, dt, msg):
    if dt == "f32":
        scale = max(1.0, float(np.abs(ref).max()) if ref.size else 1.0)
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4 * scale, err_msg=msg)
    else:
        np.testing.assert_array_equal(got, ref, err_msg=msg)


@pytest.mark.skipif(PARAC is None or not PARAC.exists(), reason="parac not built")
@pytest.mark.parametrize("case", range(LANG_CASES * SCALE))
def test_random_programs_compute_what_they_say(tmp_path, case):
    src, dt, kinds, imgs, refs = drawn(case)
    (tmp_path / "p.pc").write_text(src)
    for n, (img, ref) in enumerate(zip(imgs, refs)):
        np.save(tmp_path / "in.npy", img)
        for target, flags, *env in variants_of(case):
            out = tmp_path / "out.npy"
            args = ["run", tmp_path / "p.pc", tmp_path / "in.npy", out, "--target", target]
            for f in flags:
                args += ["--paracc-flag", f]
            run_parac(*args, env={"PARAC_CACHE_DIR": str(tmp_path / "cache"), **(env[0] if env else {})})
            assert_same(np.load(out), ref, dt,
                        f"case {case}: {target} {' '.join(flags)} {env} on {img.shape} {dt} ({kinds}):\n{src}")


def test_the_cases_cover_every_construct_and_variant():
    """The default run's programs use every stage, form and rule kind, every
    dtype, and its cases run every variant."""
    seen, dts = set(), set()
    for case in range(LANG_CASES):
        _, dt, kinds, _, _ = drawn(case)
        seen.update(kinds)
        dts.add(dt)
    want = {"point_expr", "point_locals", "point_loop", "point_loopcol", "reduce", "vector", "element", "inplace",
            "blocks_ewise", "blocks_product", "gather", "scatter", "scatter_own", "local_array", "loop_in_kernel", "whole_ewise", "whole_conv", "channels",
            "window_macros", "window_loops", "called", "macro_matrix", "macro_passed", "rules_two_matrices", "rules_split",
            "window_run_time", "window_run_time_rules", "channels_rules3d", "pyramid", "moved_bounds"}
    want |= {"window_" + op for op in gen.WINDOW_OPS}
    assert want <= seen, sorted(want - seen)
    rules = {k for s in seen if s.startswith("rule_") for k in s[5:].split("_")}
    assert rules == set(gen.RULE_KINDS), rules
    assert dts == set(gen.TYPES)
    ran = {repr(v) for case in range(LANG_CASES) for v in variants_of(case)}
    assert ran == {repr(v) for v in ALWAYS + IN_TURN}


def long_run(seconds, seed):
    """Programs x seconds for the long runs (python tests/python/test_paracc_lang_fuzz.py SECONDS)."""
    global SEED
    SEED = seed
    t0, n = time.time(), 0
    import tempfile
    while time.time() - t0 < seconds:
        with tempfile.TemporaryDirectory() as d:
            test_random_programs_compute_what_they_say(Path(d), n)
        n += 1
    return n, time.time() - t0


if __name__ == "__main__":
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 60
    n, t = long_run(secs, int(os.environ.get("PARAC_TEST_SEED", "0")))
    print(f"{n} programs in {t:.0f} s, every variant agreed with the interpretation")
