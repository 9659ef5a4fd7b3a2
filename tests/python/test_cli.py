"""The command-line interface: help generated from the registry, exit codes,
error messages, convert against numpy/OpenCV, info statistics, devices and
the demo report."""
import re

import numpy as np
import pytest

from conftest import DEVICES, random_image, run_parac


def test_version_and_help(parac_bin):
    r = run_parac("--version")
    assert r.stdout.startswith("parac ")
    r = run_parac("--help")
    for word in ("info", "convert", "devices", "demo", "bench"):
        assert word in r.stdout
    r = run_parac("convert", "--help")
    assert "usage: parac convert IN OUT" in r.stdout
    assert "--dtype" in r.stdout and "--scale" in r.stdout and "methods:" in r.stdout


@pytest.mark.parametrize(
    "args, needle",
    [
        (["frobnicate"], "unknown command"),
        (["convert", "nonexistent.npy", "out.npy"], "nonexistent.npy"),
        (["convert", "a.npy"], "expected IN OUT"),
        (["--device", "tpu:0", "devices"], "unknown device"),
        (["info"], "no file"),
    ],
)
def test_user_errors_exit_1(parac_bin, tmp_path, args, needle):
    r = run_parac(*args, check=False)
    assert r.returncode == 1, r
    assert needle in r.stderr
    assert r.stderr.count("\n") == 1, "a user error is one line"


def test_bad_parameter_and_no_partial_output(parac_bin, tmp_path, rng):
    src = tmp_path / "in.npy"
    np.save(src, random_image(rng, (9, 7), np.uint8))
    out = tmp_path / "out.npy"
    for bad in (["--dtype", "u9"], ["--channels", "9"], ["--colour", "red"], ["--method", "magic"]):
        r = run_parac("convert", src, out, *bad, check=False)
        assert r.returncode == 1, bad
        assert not out.exists()
    # A corrupt input: clear message, exit 1, no output.
    bad_file = tmp_path / "bad.npy"
    bad_file.write_bytes(b"\x93NUMPY\x01\x00garbage")
    r = run_parac("convert", bad_file, out, check=False)
    assert r.returncode == 1 and "bad.npy" in r.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.npy", "in.npy"]


def _rint_saturate(x, dtype):
    info = np.iinfo(dtype)
    y = np.rint(np.nan_to_num(x, nan=0.0))
    return np.clip(y, info.min, info.max).astype(dtype)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("src_dtype", [np.uint8, np.uint16, np.int32, np.float32, np.float64, np.int64])
@pytest.mark.parametrize("dst", ["u8", "u16", "i32", "f32", "f64", "i64"])
def test_convert_dtypes_match_numpy(parac_bin, tmp_path, rng, device, src_dtype, dst):
    a = random_image(rng, (23, 37, 3), src_dtype)  # int64: the whole range
    np.save(tmp_path / "a.npy", a)
    run_parac("convert", tmp_path / "a.npy", tmp_path / "b.npy", "--dtype", dst, "--device", device)
    b = np.load(tmp_path / "b.npy")
    dst_np = {"u8": np.uint8, "u16": np.uint16, "i32": np.int32, "f32": np.float32, "f64": np.float64,
              "i64": np.int64}[dst]
    assert b.dtype == dst_np and b.shape == a.shape
    x = a.astype(np.float64)
    nominal = {np.uint8: 255.0, np.uint16: 65535.0, np.int32: 2147483647.0}
    if src_dtype in nominal and dst_np in nominal and src_dtype != dst_np:
        x = x * (nominal[dst_np] / nominal[src_dtype])  # scale=auto: full range; i64 is never scaled
    if dst_np == np.int64:
        want = a if src_dtype == np.int64 else np.rint(x).astype(np.int64)  # i64 to i64: kept exactly
    else:
        want = _rint_saturate(x, dst_np) if np.dtype(dst_np).kind in "ui" else x.astype(dst_np)
    np.testing.assert_array_equal(b, want)


@pytest.mark.parametrize("device", DEVICES)
def test_convert_i64_has_no_nominal_range(parac_bin, tmp_path, device):
    a = np.array([[0, 1, -5, 2**40 + 1]], np.int64)
    np.save(tmp_path / "a.npy", a)
    for args, frm in ((("--dtype", "i32", "--scale", "full"), "from"), (("--dtype", "i64", "--scale", "minmax"), "to")):
        r = run_parac("convert", tmp_path / "a.npy", tmp_path / "b.npy", *args, "--device", device, check=False)
        assert r.returncode == 1 and "no nominal range" in r.stderr and frm + " i64" in r.stderr
        assert not (tmp_path / "b.npy").exists()
    # minmax from i64 stretches the data's range as for any dtype
    run_parac("convert", tmp_path / "a.npy", tmp_path / "b.npy", "--dtype", "u8", "--scale", "minmax",
              "--device", device)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), [[0, 0, 0, 255]])


@pytest.mark.parametrize("device", DEVICES)
def test_convert_channels_match_opencv(parac_bin, tmp_path, rng, device):
    cv2 = pytest.importorskip("cv2")
    rgb = random_image(rng, (31, 45, 3), np.uint8)
    np.save(tmp_path / "rgb.npy", rgb)
    run_parac("convert", tmp_path / "rgb.npy", tmp_path / "g.npy", "--channels", "1", "--device", device)
    g = np.load(tmp_path / "g.npy")
    exact = np.rint(rgb.astype(np.float64) @ np.array([0.299, 0.587, 0.114]))
    np.testing.assert_array_equal(g, exact.astype(np.uint8))
    ref = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)  # fixed point inside OpenCV: within 1
    assert np.abs(g.astype(int) - ref.astype(int)).max() <= 1
    run_parac("convert", tmp_path / "rgb.npy", tmp_path / "rgba.npy", "--channels", "4", "--device", device)
    rgba = np.load(tmp_path / "rgba.npy")
    np.testing.assert_array_equal(rgba[..., :3], rgb)
    assert (rgba[..., 3] == 255).all()


@pytest.mark.parametrize("device", DEVICES)
def test_convert_minmax(parac_bin, tmp_path, rng, device):
    a = random_image(rng, (17, 19), np.float32)
    np.save(tmp_path / "a.npy", a)
    run_parac("convert", tmp_path / "a.npy", tmp_path / "b.npy", "--dtype", "u8", "--scale", "minmax",
              "--device", device)
    b = np.load(tmp_path / "b.npy")
    x = a.astype(np.float64)
    scale = 255.0 / (x.max() - x.min())
    want = _rint_saturate(scale * x - x.min() * scale, np.uint8)
    assert np.abs(b.astype(int) - want.astype(int)).max() <= 1  # float rounding of the scale
    assert b.min() == 0 and b.max() == 255


def _parse_info(text):
    chans = {}
    for m in re.finditer(r"channel (\d+): min (\S+) max (\S+) mean (\S+)", text):
        chans[int(m.group(1))] = tuple(float(v) for v in m.groups()[1:])
    fields = dict(re.findall(r"^(\w+): (.*)$", text, re.M))
    return fields, chans


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape, dtype", [((29, 31), np.uint8), ((5, 29, 31, 2), np.uint16),
                                          ((13, 11, 4), np.float32), ((3, 7, 9), np.float64)])
def test_info_statistics(parac_bin, tmp_path, rng, device, shape, dtype):
    a = random_image(rng, shape, dtype)
    np.save(tmp_path / "a.npy", a)
    r = run_parac("info", tmp_path / "a.npy", "--device", device)
    fields, chans = _parse_info(r.stdout)
    assert fields["format"] == "npy"
    assert fields["dtype"] == {np.uint8: "u8", np.uint16: "u16", np.float32: "f32", np.float64: "f64"}[dtype]
    if len(shape) == 2:
        h, w, d, c = shape[0], shape[1], 1, 1
    elif len(shape) == 4:
        d, h, w, c = shape
    elif shape[-1] <= 4:
        h, w, c, d = shape[0], shape[1], shape[2], 1
    else:
        d, h, w, c = shape[0], shape[1], shape[2], 1
    assert fields["size"] == f"{w}x{h}x{d}" and int(fields["channels"]) == c
    flat = a.reshape(-1, c).astype(np.float64)
    for ch in range(c):
        lo, hi, mean = chans[ch]
        assert lo == flat[:, ch].min() and hi == flat[:, ch].max()
        assert mean == pytest.approx(flat[:, ch].mean(), rel=1e-12, abs=1e-12)


def test_devices(parac_bin):
    r = run_parac("devices")
    assert r.stdout.startswith("cpu: ")
    assert "selected: " in r.stdout
    assert re.search(r"^cuda", r.stdout, re.M)
    r = run_parac("devices", "--cuda-count")
    assert r.stdout.strip().isdigit()


def test_demo_report(parac_bin, tmp_path):
    out = tmp_path / "demo"
    r = run_parac("demo", "--out", out)
    html = (out / "index.html").read_text()
    assert 'id="op-convert"' in html and "<!-- parac-demo:comparison -->" in html
    for img in re.findall(r'src="([^"]+)"', html):
        assert (out / img).exists(), img
        assert (out / img).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "ms" in r.stderr


def test_bench_command(parac_bin, tmp_path):
    r = run_parac("bench", "--runs", "3", "--only", "convert", "--json", tmp_path / "b.jsonl")
    assert "convert" in r.stdout
    line = (tmp_path / "b.jsonl").read_text().strip()
    assert '"op":"convert"' in line
