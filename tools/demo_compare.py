#!/usr/bin/env python3
"""Adds "how parac compares" to the page of `parac demo`.

    python tools/demo_compare.py DEMO_DIR [--runs N]

Reads DEMO_DIR/demo.json and the demo's inputs and outputs (DEMO_DIR/data),
runs the same operations with the reference libraries that are importable
(scipy, scikit-image, OpenCV; on a CUDA device also CuPy's cupyx.scipy and
cuCIM), each timed as the demo timed parac: the median of several runs with
the data already where the library works (host memory, or the GPU for CuPy
and cuCIM), after one run to warm up. Every peer's result is checked against
parac's output, exactly or to the tolerance stated beside it. Writes
DEMO_DIR/compare.svg (speed-ups as bars), DEMO_DIR/compare.json, and a
section of DEMO_DIR/index.html in place of its comparison mark (a second run
replaces the section). Needs numpy; every other library is optional.
"""
import argparse
import html
import json
import math
import os
import platform
import re
import statistics
import sys
import time
from pathlib import Path

import numpy as np

MARK = "<!-- parac-demo:comparison -->"
END = "<!-- /parac-demo:comparison -->"


def _try_import(name):
    try:
        return __import__(name, fromlist=["_"])
    except Exception:  # a library that is missing or broken is simply not compared
        return None


class Libraries:
    """The reference libraries this interpreter has, imported once."""

    def __init__(self, gpu):
        self.ndi = _try_import("scipy.ndimage")
        self.skm = _try_import("skimage.morphology")
        self.sks = _try_import("skimage.segmentation")
        self.skme = _try_import("skimage.measure")
        self.cv2 = _try_import("cv2")
        self.cp = _try_import("cupy") if gpu else None
        self.cpx = _try_import("cupyx.scipy.ndimage") if self.cp is not None else None
        self.cum = _try_import("cucim.skimage.morphology") if self.cp is not None else None
        self.cus = _try_import("cucim.skimage.segmentation") if self.cp is not None else None
        self.cume = _try_import("cucim.skimage.measure") if self.cp is not None else None

    def versions(self):
        out = {"Python": platform.python_version(), "numpy": np.__version__}
        for label, mod in (("scipy", "scipy"), ("scikit-image", "skimage"), ("OpenCV", "cv2"),
                           ("CuPy", "cupy"), ("cuCIM", "cucim")):
            m = sys.modules.get(mod)
            if m is not None and getattr(m, "__version__", None):
                out[label] = m.__version__
        return out


# ---- checks: how a peer's result must relate to parac's -----------------------------------------
def exact(ours, theirs):
    theirs = np.asarray(theirs)
    if theirs.shape != ours.shape:
        return False, "shape %s, parac %s" % (theirs.shape, ours.shape)
    same = np.array_equal(ours.astype(np.float64), theirs.astype(np.float64))
    if same:
        return True, "identical"
    return False, "%d pixels differ" % int(np.count_nonzero(ours.astype(np.float64) != theirs.astype(np.float64)))


def within(tol, note):
    def check(ours, theirs):
        theirs = np.asarray(theirs, dtype=np.float64)
        if theirs.shape != ours.shape:
            return False, "shape %s, parac %s" % (theirs.shape, ours.shape)
        err = float(np.max(np.abs(ours.astype(np.float64) - theirs))) if ours.size else 0.0
        return err <= tol, "max |difference| %.3g (tolerance %g: %s)" % (err, tol, note)
    return check


def same_partition(ours, theirs):
    """The same components, numbered in another order (OpenCV's stripes)."""
    theirs = np.asarray(theirs)
    if theirs.shape != ours.shape:
        return False, "shape %s, parac %s" % (theirs.shape, ours.shape)
    pairs = np.unique(np.stack([ours.ravel().astype(np.int64), theirs.ravel().astype(np.int64)]), axis=1)
    same = np.array_equal(ours == 0, theirs == 0) and pairs.shape[1] == len(np.unique(ours))
    return same, "the same components" if same else "other components"


def as_mask(check):
    """parac's masks are 255 where the peer's are 1 or True."""
    return lambda ours, theirs: check(ours != 0, np.asarray(theirs) != 0)


# ---- the peers of each operation ----------------------------------------------------------------
def _seed_xy(params):
    x, y = (int(v) for v in params["seed"].split(";")[0].split(",")[:2])
    return x, y


def _full(ndim):
    return np.ones((3,) * ndim, dtype=bool)


def _cross(ndim):
    from scipy import ndimage
    return ndimage.generate_binary_structure(ndim, 1)


def _fill_marker(xp, img):
    seed = img.copy()
    inner = (slice(1, -1),) * img.ndim
    seed[inner] = img.max()
    return seed


def peers_of(op, p, L):
    """[(label, library key, run(inputs as arrays of that library), check)] for
    operation `op` with the demo's parameters `p`. run gets the inputs already
    on the library's side (NumPy, or CuPy for the GPU libraries)."""
    out = []
    cpu = lambda label, lib, fn, check: out.append((label, "cpu", lib, fn, check))
    gpu = lambda label, lib, fn, check: out.append((label, "gpu", lib, fn, check))
    if op == "convert" and p.get("channels") == "1" and p.get("dtype") == "u8" and L.cv2 is not None:
        cpu("cv2.cvtColor RGB2GRAY", "OpenCV", lambda a: L.cv2.cvtColor(a[0], L.cv2.COLOR_RGB2GRAY),
            within(1, "OpenCV rounds its fixed-point BT.601 weights"))
    elif op == "gauss" and set(p) <= {"sigma"}:
        s = float(p["sigma"])
        r = int(4.0 * s + 0.5)
        chan = lambda a: (s, s, 0) if a.ndim == 3 else s
        if L.ndi is not None:
            cpu("scipy.ndimage.gaussian_filter", "scipy",
                lambda a: L.ndi.gaussian_filter(a[0], chan(a[0]), mode="mirror", truncate=4.0),
                within(2, "scipy truncates to u8 after each of its two passes, parac rounds once"))
        if L.cv2 is not None:
            cpu("cv2.GaussianBlur", "OpenCV", lambda a: L.cv2.GaussianBlur(a[0], (2 * r + 1, 2 * r + 1), s, sigmaY=s),
                within(1, "OpenCV's fixed-point u8 path"))
        if L.cpx is not None:
            gpu("cupyx.scipy.ndimage.gaussian_filter", "CuPy",
                lambda a: L.cpx.gaussian_filter(a[0], chan(a[0]), mode="mirror", truncate=4.0),
                within(2, "CuPy truncates to u8 after each pass, parac rounds once"))
    elif op == "convolve" and set(p) <= {"kernel", "dtype"} and p.get("dtype") == "f32":
        k = np.array([[float(v) for v in row.split(",")] for row in p["kernel"].split(";")], dtype=np.float32)
        if L.ndi is not None:
            cpu("scipy.ndimage.convolve", "scipy",
                lambda a: L.ndi.convolve(a[0].astype(np.float32), k, mode="mirror"), within(1e-4, "float32 sums"))
        if L.cv2 is not None:
            cpu("cv2.filter2D", "OpenCV", lambda a: L.cv2.filter2D(a[0], L.cv2.CV_32F, k[::-1, ::-1].copy(),
                                                                  borderType=L.cv2.BORDER_REFLECT_101),
                within(1e-4, "float32 sums"))
        if L.cpx is not None:
            kk = L.cp.asarray(k)
            gpu("cupyx.scipy.ndimage.convolve", "CuPy",
                lambda a: L.cpx.convolve(a[0].astype(L.cp.float32), kk, mode="mirror"), within(1e-4, "float32 sums"))
    elif op == "reconstruct" and not p:
        if L.skm is not None:
            cpu("skimage.morphology.reconstruction", "scikit-image",
                lambda a: L.skm.reconstruction(a[0], a[1], method="dilation"), exact)
        if L.cum is not None:
            gpu("cucim reconstruction", "cuCIM", lambda a: L.cum.reconstruction(a[0], a[1], method="dilation"), exact)
    elif op == "fill-holes" and not p:
        # Soille's grayscale fill as scikit-image's gallery writes it, with the
        # background's 4-connectivity (parac's default, as scipy's)
        if L.skm is not None:
            cpu("skimage reconstruction (erosion)", "scikit-image",
                lambda a: L.skm.reconstruction(_fill_marker(np, a[0]), a[0], method="erosion",
                                               footprint=_cross(a[0].ndim)), exact)
        if L.cum is not None:
            gpu("cucim reconstruction (erosion)", "cuCIM",
                lambda a: L.cum.reconstruction(_fill_marker(L.cp, a[0]), a[0], method="erosion",
                                               footprint=L.cp.asarray(_cross(a[0].ndim))), exact)
    elif op in ("h-maxima", "h-minima") and set(p) == {"h"}:
        h = float(p["h"])
        name = op.replace("-", "_")
        if L.skm is not None:
            cpu("skimage.morphology." + name, "scikit-image", lambda a: getattr(L.skm, name)(a[0], h), as_mask(exact))
        if L.cum is not None:
            gpu("cucim " + name, "cuCIM", lambda a: getattr(L.cum, name)(a[0], h), as_mask(exact))
    elif op in ("regional-maxima", "regional-minima") and not p:
        name = "local_maxima" if op == "regional-maxima" else "local_minima"
        if L.skm is not None:
            cpu("skimage.morphology." + name, "scikit-image",
                lambda a: getattr(L.skm, name)(a[0], connectivity=a[0].ndim), as_mask(exact))
    elif op in ("opening-by-reconstruction", "closing-by-reconstruction") and set(p) == {"radius"}:
        side = 2 * int(p["radius"]) + 1
        first, mode = ("erosion", "dilation") if op.startswith("opening") else ("dilation", "erosion")
        if L.skm is not None:
            cpu("skimage %s + reconstruction" % first, "scikit-image",
                lambda a: L.skm.reconstruction(getattr(L.skm, first)(a[0], np.ones((side,) * a[0].ndim, bool)), a[0],
                                               method=mode), exact)
        if L.cum is not None:
            gpu("cucim %s + reconstruction" % first, "cuCIM",
                lambda a: L.cum.reconstruction(getattr(L.cum, first)(a[0], L.cp.ones((side,) * a[0].ndim, bool)), a[0],
                                               method=mode), exact)
    elif op == "clear-border" and not p:
        if L.sks is not None:
            cpu("skimage.segmentation.clear_border", "scikit-image", lambda a: L.sks.clear_border(a[0]), exact)
        if L.cus is not None:
            gpu("cucim clear_border", "cuCIM", lambda a: L.cus.clear_border(a[0]), exact)
    elif op == "fill" and not p:
        if L.ndi is not None:
            cpu("scipy.ndimage.binary_fill_holes", "scipy",
                lambda a: L.ndi.binary_fill_holes(a[0] != 0), as_mask(exact))
        if L.cpx is not None:
            gpu("cupyx binary_fill_holes", "CuPy", lambda a: L.cpx.binary_fill_holes(a[0] != 0), as_mask(exact))
    elif op == "label" and not p:  # full connectivity, parac's default
        if L.ndi is not None:
            cpu("scipy.ndimage.label", "scipy", lambda a: L.ndi.label(a[0], _full(a[0].ndim))[0], exact)
        if L.skme is not None:
            cpu("skimage.measure.label", "scikit-image", lambda a: L.skme.label(a[0] != 0, connectivity=a[0].ndim), exact)
        if L.cv2 is not None:
            cpu("cv2.connectedComponents", "OpenCV",
                lambda a: L.cv2.connectedComponents(a[0], connectivity=8, ltype=L.cv2.CV_32S)[1], same_partition)
        if L.cpx is not None:
            gpu("cupyx.scipy.ndimage.label", "CuPy",
                lambda a: L.cpx.label(a[0], L.cp.asarray(_full(a[0].ndim)))[0], exact)
        if L.cume is not None:
            gpu("cucim measure.label", "cuCIM", lambda a: L.cume.label(a[0] != 0, connectivity=a[0].ndim), exact)
    elif op == "floodfill" and set(p) == {"seed", "value"}:
        x, y = _seed_xy(p)
        v = int(float(p["value"]))
        if L.sks is not None:
            cpu("skimage.segmentation.flood_fill", "scikit-image",
                lambda a: L.sks.flood_fill(a[0], (y, x), v, connectivity=1), exact)
        if L.cv2 is not None:
            def cv_fill(a):
                img = a[0].copy()
                mask = np.zeros((img.shape[0] + 2, img.shape[1] + 2), np.uint8)
                L.cv2.floodFill(img, mask, (x, y), v, 0, 0, 4 | L.cv2.FLOODFILL_FIXED_RANGE)
                return img
            cpu("cv2.floodFill", "OpenCV", cv_fill, exact)
    return out


# ---- timing ------------------------------------------------------------------------------------
def median_ms(fn, args, runs, sync):
    """The median of `runs` timed calls after one to warm up; fewer runs for
    a slow call (at most about two seconds in all)."""
    result = fn(args)
    sync()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(args)
        sync()
        times.append((time.perf_counter() - t0) * 1e3)
        if sum(times) > 2000:
            break
    return statistics.median(times), result


def compare(demo_dir, runs):
    manifest = json.loads((demo_dir / "demo.json").read_text())
    gpu = any(o["device"].startswith("cuda") for o in manifest["operations"])
    L = Libraries(gpu)
    rows = []
    for o in manifest["operations"]:
        if o["error"]:
            continue
        inputs = [np.load(demo_dir / f["npy"]) for f in o["inputs"]]
        ours = np.load(demo_dir / o["outputs"][0]["npy"])
        peers = peers_of(o["op"], o["params"], L)
        if not peers:
            rows.append({"op": o["op"], "parac_ms": o["median_ms"], "peer": None})
        for label, side, lib, fn, check in peers:
            if side == "gpu":
                args = [L.cp.asarray(a) for a in inputs]
                sync = L.cp.cuda.Device().synchronize
            else:
                args, sync = inputs, (lambda: None)
            try:
                ms, result = median_ms(fn, args, runs, sync)
                theirs = L.cp.asnumpy(result) if side == "gpu" else np.asarray(result)
                ok, detail = check(ours, theirs)
            except Exception as e:  # a peer that cannot run this input is reported, not fatal
                ms, ok, detail = None, False, "failed: %s" % e
            rows.append({"op": o["op"], "parac_ms": o["median_ms"], "peer": label, "library": lib, "side": side,
                         "peer_ms": ms, "same": ok, "check": detail})
    return manifest, rows, L.versions()


# ---- the chart and the section ------------------------------------------------------------------
COLOURS = {"scipy": "#1f77b4", "scikit-image": "#2ca02c", "OpenCV": "#d62728", "CuPy": "#9467bd", "cuCIM": "#8c564b"}


def svg_chart(rows):
    """Horizontal bars, one per (operation, peer): the peer's time over
    parac's, on a log scale with 1x marked."""
    bars = [r for r in rows if r.get("peer_ms")]
    if not bars:
        return None
    labels = ["%s: %s" % (r["op"], r["peer"]) for r in bars]
    left = 12 + int(6.8 * max(len(t) for t in labels))  # room for the longest label at 12 px
    width, bar_h, gap = 520, 16, 4
    speed = [r["peer_ms"] / r["parac_ms"] for r in bars]
    lo = math.floor(math.log10(min(speed + [1.0]))) if min(speed) > 0 else -1
    hi = math.ceil(math.log10(max(speed + [1.0])))
    hi = max(hi, lo + 1)
    xs = lambda v: left + (math.log10(v) - lo) / (hi - lo) * width
    height = 40 + len(bars) * (bar_h + gap) + 30
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
           'font-family="sans-serif" font-size="12" role="img" aria-label="speed-up of parac over each library">'
           % (left + width + 70, height, left + width + 70, height)]
    out.append('<text x="%d" y="16" font-weight="bold">speed-up of parac (peer time / parac time, log scale)</text>' % left)
    for e in range(lo, hi + 1):
        x = xs(10.0 ** e)
        out.append('<line x1="%.1f" y1="26" x2="%.1f" y2="%d" stroke="%s"/>' % (x, x, height - 24, "#444" if e == 0 else "#ddd"))
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%sx</text>' % (x, height - 8, ("%g" % 10.0 ** e)))
    y = 32
    for r, s, label in zip(bars, speed, labels):
        x0, x1 = xs(1.0), xs(s)
        colour = COLOURS.get(r["library"], "#777")
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 6, y + bar_h - 4, html.escape(label)))
        out.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                   % (min(x0, x1), y, max(abs(x1 - x0), 1.0), bar_h, colour))
        out.append('<text x="%.1f" y="%d">%.3gx</text>' % (max(x0, x1) + 4, y + bar_h - 4, s))
        y += bar_h + gap
    out.append("</svg>")
    return "\n".join(out) + "\n"


def breakable(name):
    """A library function's name that may wrap after its dots and
    underscores and between the words of a camelCase name
    (connectedComponents), for narrow windows, and nowhere else."""
    text = html.escape(name).replace(".", ".<wbr>").replace("_", "_<wbr>")
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "<wbr>", text)


def section(manifest, rows, versions, have_chart):
    dev = html.escape(manifest["device"])
    libs = ", ".join("%s %s" % (k, html.escape(v)) for k, v in versions.items())
    h = [MARK, '<section id="comparison"><h2>How parac compares</h2>',
         "<p>The same operations on the same inputs with the libraries this machine has, in the same run "
         "(%s; %s). Each time is the median of several runs with the data already where the "
         "library works: host memory for scipy, scikit-image and OpenCV, the GPU for CuPy and cuCIM; parac's "
         "time is the demo's own. Every result is checked against parac's output.</p>" % (dev, libs)]
    if have_chart:
        h.append('<figure><img src="compare.svg" alt="speed-up of parac over each library"></figure>')
    compared = [r for r in rows if r["peer"]]
    differ = sum(1 for r in compared if not r["same"])
    verdict = ("every result the same as parac's" if not differ else
               '<span class="err">%d result(s) NOT the same as parac\'s</span>' % differ)
    # the table folded when every check passed, so that the pictures follow the chart
    h.append("<details%s><summary>%d comparisons, %s: the times and checks</summary>"
             % (" open" if differ else "", len(compared), verdict))
    h.append("<table><tr><th>operation</th><th>library</th><th>its time (ms)</th><th>parac (ms)</th>"
             "<th>speed-up</th><th>same result?</th></tr>")
    for r in rows:
        if r["peer"] is None:
            h.append("<tr><td>%s</td><td colspan=\"5\">no peer in these libraries</td></tr>" % breakable(r["op"]))
            continue
        t = "%.3f" % r["peer_ms"] if r["peer_ms"] is not None else "&ndash;"
        sp = "%.2fx" % (r["peer_ms"] / r["parac_ms"]) if r["peer_ms"] else "&ndash;"
        same = ('<span class="ok">yes</span>: ' if r["same"] else '<span class="err">NO</span>: ') + html.escape(r["check"])
        h.append('<tr><td>%s</td><td>%s</td><td class="t">%s</td><td class="t">%.3f</td><td class="t">%s</td><td>%s</td></tr>'
                 % (breakable(r["op"]), breakable(r["peer"]), t, r["parac_ms"], sp, same))
    h.append("</table></details></section>")
    h.append(END)
    return "\n".join(h)


def write_atomic(path, text):
    tmp = path.with_name("." + path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("demo_dir", type=Path)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args(argv)
    page = a.demo_dir / "index.html"
    if not (a.demo_dir / "demo.json").exists() or not page.exists():
        print("demo_compare: %s has no demo.json and index.html (run 'parac demo --out %s' first)"
              % (a.demo_dir, a.demo_dir), file=sys.stderr)
        return 1
    manifest, rows, versions = compare(a.demo_dir, a.runs)
    chart = svg_chart(rows)
    if chart:
        write_atomic(a.demo_dir / "compare.svg", chart)
    write_atomic(a.demo_dir / "compare.json", json.dumps({"versions": versions, "rows": rows}, indent=1) + "\n")
    text = page.read_text()
    if END in text:  # a second run: replace the section it wrote
        start = text.index(MARK)
        text = text[:start] + MARK + text[text.index(END) + len(END):]
    if MARK not in text:
        print("demo_compare: %s has no comparison mark" % page, file=sys.stderr)
        return 1
    write_atomic(page, text.replace(MARK, section(manifest, rows, versions, chart is not None), 1))
    bad = [r for r in rows if r["peer"] and not r["same"]]
    for r in rows:
        if r["peer"]:
            print("%-27s %-38s %9s ms  parac %8.3f ms  %s" % (
                r["op"], r["peer"], "%.3f" % r["peer_ms"] if r["peer_ms"] else "-", r["parac_ms"],
                ("same: " if r["same"] else "DIFFERENT: ") + r["check"]))
    print("wrote %s (%d comparisons, %d different)" % (page, sum(1 for r in rows if r["peer"]), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
