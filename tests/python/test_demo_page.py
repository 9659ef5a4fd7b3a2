"""The demo page as a newcomer sees it: `parac demo` then
tools/demo_compare.py, the page parsed as strict HTML5, every operation of
the registry shown with readable pictures, the comparison's results all
equal, and the page opened in a real browser (headless Chromium): every
picture loaded, nothing wider than the window, a screenshot that is not
blank. Without Chromium the browser checks are skipped, unless
PARAC_REQUIRE_BROWSER=1 (CI) makes that a failure. The demo runs on the CPU
(PARAC_TEST_DEMO_DEVICE=cuda: on the GPU, comparing with CuPy and cuCIM too)."""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

from conftest import ROOT, run_parac

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo") / "parac-demo"
    r = run_parac("--device", os.environ.get("PARAC_TEST_DEMO_DEVICE", "cpu"), "demo", "--out", out)
    assert "wrote" in r.stderr, r.stderr
    cmp = subprocess.run([sys.executable, str(ROOT / "tools" / "demo_compare.py"), str(out), "--runs", "2"],
                         capture_output=True, text=True)
    assert cmp.returncode == 0, cmp.stdout + cmp.stderr
    return out


def registry_ops():
    r = run_parac("--help")
    # the operations are listed one a line, indented, after their heading
    return re.findall(r"^  ([a-z][a-z-]+) {2,}", r.stdout.split("\nOperations", 1)[1], re.M)


def test_every_operation_has_a_demo_with_its_pictures(page):
    manifest = json.loads((page / "demo.json").read_text())
    ops = [o["op"] for o in manifest["operations"]]
    assert ops == registry_ops()
    html = (page / "index.html").read_text()
    for o in manifest["operations"]:
        assert not o["error"], o
        assert 'id="op-%s"' % o["op"] in html
        for f in o["inputs"] + o["outputs"]:
            assert np.load(page / f["npy"]).size > 0
            if "csv" in f:  # a table: its first rows on the page, all of them in the CSV file
                assert (page / f["csv"]).read_text().startswith("label,area,")
                assert f["csv"] in html and '<table class="rows">' in html
                continue
            assert (page / f["png"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert f["png"] in html


def test_volumes_are_drawn_as_three_projections_at_a_readable_size(page):
    import imageio.v2 as imageio

    vol = np.load(page / "data" / "skeleton-in0.npy")
    assert vol.ndim == 3
    pic = imageio.imread(page / "skeleton-in0.png")
    assert max(pic.shape[:2]) >= 256
    d, h, w = vol.shape
    f = pic.shape[1] // (w + 4 + d)  # enlarged by whole pixels
    assert f >= 1 and pic.shape[:2] == ((h + 4 + d) * f, (w + 4 + d) * f)
    top = pic[: h * f : f, : w * f : f]
    np.testing.assert_array_equal(top != 0, vol.max(axis=0) != 0)  # along z
    side = pic[: h * f : f, (w + 4) * f :: f]
    np.testing.assert_array_equal(side != 0, vol.max(axis=2).T != 0)  # along x
    below = pic[(h + 4) * f :: f, : w * f : f]
    np.testing.assert_array_equal(below != 0, vol.max(axis=1) != 0)  # along y
    # the skeleton in red over the object's projection
    out = imageio.imread(page / "skeleton-out0.png")
    skel = np.load(page / "data" / "skeleton-out0.npy").max(axis=0) != 0
    red = (out[: h * f : f, : w * f : f, 0] == 255) & (out[: h * f : f, : w * f : f, 1] == 40)
    np.testing.assert_array_equal(red, skel)


def test_masks_and_changes_are_drawn_over_the_input(page):
    import imageio.v2 as imageio

    marks = np.load(page / "data" / "h-maxima-out0.npy") != 0
    pic = imageio.imread(page / "h-maxima-out0.png")
    red = (pic[..., 0] == 255) & (pic[..., 1] == 40) & (pic[..., 2] == 40)
    np.testing.assert_array_equal(red, marks)
    before = np.load(page / "data" / "fill-holes-in0.npy")
    after = np.load(page / "data" / "fill-holes-out0.npy")
    pic = imageio.imread(page / "fill-holes-out0.png").astype(int)
    tinted = pic[..., 0] - pic[..., 2] > 20  # orange where the hole was filled
    np.testing.assert_array_equal(tinted, before != after)
    assert 0 < np.count_nonzero(before != after) < before.size // 2


def test_the_comparison_is_shown_and_every_result_agrees(page):
    html = (page / "index.html").read_text()
    assert html.count("<!-- parac-demo:comparison -->") == 1 and 'id="comparison"' in html
    rows = json.loads((page / "compare.json").read_text())["rows"]
    peers = [r for r in rows if r["peer"]]
    assert {r["library"] for r in peers} >= {"scipy", "scikit-image", "OpenCV"}
    assert all(r["same"] and r["peer_ms"] > 0 for r in peers), [r for r in peers if not r["same"]]
    svg = (page / "compare.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<rect") == len(peers)
    # a second run replaces the section instead of adding one
    subprocess.run([sys.executable, str(ROOT / "tools" / "demo_compare.py"), str(page), "--runs", "1"],
                   check=True, capture_output=True)
    assert (page / "index.html").read_text().count('id="comparison"') == 1


def test_the_page_is_valid_html5(page):
    html5lib = pytest.importorskip("html5lib")
    text = (page / "index.html").read_text()
    parser = html5lib.HTMLParser(strict=True)
    parser.parse(text)  # raises on the first parse error
    assert not parser.errors
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))
    for tag in re.findall(r"<img\b[^>]*>", text):
        assert re.search(r'\balt="[^"]+"', tag), tag
    for src in re.findall(r'\bsrc="([^"]+)"', text):
        assert (page / src).is_file(), src


# ---- in a real browser ---------------------------------------------------------------------------
def browser():
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("PARAC_REQUIRE_BROWSER") == "1":
        pytest.fail("no Chromium found (scripts/install-deps.sh --browser installs it)")
    pytest.skip("no Chromium (scripts/install-deps.sh --browser installs it)")


# Runs in the page once everything loaded: which pictures did not load, and
# what sticks out past the window's right edge.
CHECK = """<script>
window.addEventListener("load", function () {
  var bad = [], wide = [], w = document.documentElement.clientWidth;
  document.querySelectorAll("img").forEach(function (im) {
    if (!im.complete || im.naturalWidth === 0) bad.push(im.getAttribute("src"));
  });
  document.querySelectorAll("body *").forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.right > w + 1) wide.push(el.tagName + (el.id ? "#" + el.id : "") + " " + Math.round(r.right));
  });
  document.body.setAttribute("data-check", JSON.stringify({
    images: document.images.length, broken: bad, wide: wide.slice(0, 5),
    scroll: document.documentElement.scrollWidth, width: w}));
});
</script>"""


def run_browser(exe, profile, *args):
    # --no-sandbox: CI runs as root, where Chromium's sandbox cannot start;
    # a profile of its own, so no earlier run's state is read
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
           "--user-data-dir=%s" % profile] + list(args)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("width", [1280, 700])
def test_in_a_browser_every_picture_loads_and_nothing_overflows(page, width, tmp_path):
    exe = browser()
    probe = page / ("check-%d.html" % width)  # beside the page, so its relative paths hold
    probe.write_text((page / "index.html").read_text().replace("</body>", CHECK + "</body>"))
    r = run_browser(exe, tmp_path / "profile", "--window-size=%d,1000" % width, "--virtual-time-budget=10000", "--dump-dom",
                    probe.as_uri())
    m = re.search(r'data-check="([^"]*)"', r.stdout)
    assert m, r.stdout[-2000:] + r.stderr[-2000:]
    got = json.loads(m.group(1).replace("&quot;", '"'))
    manifest = json.loads((page / "demo.json").read_text())
    pictures = sum(1 for o in manifest["operations"] for f in o["inputs"] + o["outputs"] if "png" in f)
    assert got["images"] == pictures + 1  # and the comparison's chart
    assert got["broken"] == [], got
    assert got["wide"] == [] and got["scroll"] <= got["width"], got


def test_in_a_browser_the_screenshot_shows_the_page(page, tmp_path):
    import imageio.v2 as imageio

    exe = browser()
    shot = tmp_path / "shot.png"
    r = run_browser(exe, tmp_path / "profile", "--window-size=1280,1600", "--virtual-time-budget=10000", "--screenshot=%s" % shot,
                    (page / "index.html").as_uri())
    assert shot.exists(), r.stderr[-2000:]
    pic = imageio.imread(shot)
    assert pic.shape[:2] == (1600, 1280)
    gray = pic[..., :3].mean(axis=2)
    assert gray.std() > 20  # not a blank page: text, pictures and the chart
    assert (gray < 128).mean() > 0.02
