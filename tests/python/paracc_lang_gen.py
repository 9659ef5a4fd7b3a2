"""Random well-formed ParaC programs and what they compute, for the
differential fuzzer of the language (test_paracc_lang_fuzz.py).

Each program is a `parac run` program (parac_main over C planes of H x W) made
of random stages; each stage is written twice: as ParaC text and as a numpy
computation of what that text means (C's integer promotions, truncating
division and modular stores to unsigned types; float32 arithmetic one
rounding per operation). The numpy side is an interpretation written from the
language's definition, independent of the compiler, so a program that every
target computes alike but wrongly still fails.

Stages cover the language: point expressions (arithmetic, comparisons and
?:, bit operations, casts, calls of C functions of the file, macros, locals,
if/else chains, loops of constant trip count, reads at loop-variable columns),
windows of every operator (sum, min, max, mean, median, k-th element,
convolution by a constant matrix, .* products, transe and matrix products) with strides, border rules of
every kind (repeated, mirrored either way, constant, linear extrapolation,
corners; a rule in two declarations named together; a second matrix through a
rule of its own), windows of run-time length (inside the image, or along one axis
through a rule at every distance), whole-image statements (element-wise and convolution), independent
reductions used as scalars, vectors with 1-D rules, iter_element iterators
(down- and upsampling), strided and sub-range iterators, writes into a matrix
written before, window writes, run-time gathers from constant tables,
histograms and sums into shared elements (atomic updates), 3-D
iterators over the channels with a per-channel constant (then a maximum over
a window across the planes and columns through two 3-D rules), the planes passed
to a function of the file by reference, and the output brought down and back up
two pyramids (parac_pyramid) by host loops over a run-time number of levels.

A draw that would overflow 32-bit integers (undefined in C) or divide by zero
raises Reject and the caller draws again."""
import zlib

import numpy as np

TYPES = {"u8": ("unsigned char", np.uint8), "u16": ("unsigned short", np.uint16),
         "i32": ("int", np.int32), "f32": ("float", np.float32)}

INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1


class Reject(Exception):
    """The draw is not a well-defined C program (overflow): draw another."""


def checked(v):
    """An int expression's value, or Reject where C would overflow."""
    if v.dtype.kind in "iu" and v.size and (v.min() < INT_MIN or v.max() > INT_MAX):
        raise Reject("int overflow")
    return v


def cdiv(a, b):
    """C's division of ints: truncation toward zero."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def cmod(a, b):
    return a - b * cdiv(a, b)


def store(v, dt):
    """The value a T matrix holds after `M[..] = v` (v already of type T's
    arithmetic: int for integer types, float32 for f32)."""
    if dt == "u8":
        return v.astype(np.int64) & 0xFF
    if dt == "u16":
        return v.astype(np.int64) & 0xFFFF
    if dt == "i32":
        return checked(v.astype(np.int64))
    return v.astype(np.float32)


class Expr:
    """A scalar expression: its text and its value over the iteration grid."""

    def __init__(self, text, fn, flt):
        self.text, self.fn, self.flt = text, fn, flt

    def __call__(self, env):
        return self.fn(env)


class Rule:
    """A border rule of matrix `m`: per axis (0 rows, 1 columns) a kind and a
    depth; entries -k / +k map to a constant plus a combination of in-image
    lines; corners are the rows' entry applied to the columns' entry."""

    def __init__(self, name, m, kinds, depth, const, flt):
        self.name, self.m, self.kinds, self.depth, self.const, self.flt = name, m, kinds, depth, const, flt
        self.split = False  # written as two declarations (text)

    def entry(self, axis, k, n):
        """Offset k (negative: before the image) along `axis` of size n:
        (constant, [(coefficient, index)])."""
        kind = self.kinds[axis]
        if kind == "replicate":
            return 0, [(1, 0 if k < 0 else n - 1)]
        if kind == "mirror":  # -k -> k
            return 0, [(1, -k if k < 0 else n - 1 - k)]
        if kind == "symmetric":  # -k -> k - 1
            return 0, [(1, -k - 1 if k < 0 else n - k)]
        if kind == "constant":
            return self.const, []
        # linear extrapolation through the edge: 2 * edge - mirror
        return 0, [(2, 0 if k < 0 else n - 1), (-1, -k if k < 0 else n - 1 - k)]

    def entry_text(self, axis, k):
        n = "H" if axis == 0 else "W"
        kind = self.kinds[axis]
        if kind == "replicate":
            return 0, [(1, "0" if k < 0 else f"{n} - 1")]
        if kind == "mirror":
            return 0, [(1, str(-k) if k < 0 else f"{n} - {1 + k}")]
        if kind == "symmetric":
            return 0, [(1, str(-k - 1) if k < 0 else f"{n} - {k}")]
        if kind == "constant":
            return self.const, []
        return 0, [(2, "0" if k < 0 else f"{n} - 1"), (-1, str(-k) if k < 0 else f"{n} - {1 + k}")]

    def text(self):
        m, lines = self.m, []
        d0, d1 = self.depth

        def lin(const, terms, at):
            parts = [f"{c} * {at(i)}" if c != 1 else at(i) for c, i in terms]
            if const or not parts:
                parts.append(self._num(const))
            return " + ".join(parts)

        for k in range(1, d0 + 1):
            for s in (-k, k):
                c, t = self.entry_text(0, s)
                lines.append(f"{m}[{s:+d}][*] = {lin(c, t, lambda i: f'{m}[{i}][*]')};")
        for k in range(1, d1 + 1):
            for s in (-k, k):
                c, t = self.entry_text(1, s)
                lines.append(f"{m}[*][{s:+d}] = {lin(c, t, lambda i: f'{m}[*][{i}]')};")
        for a in range(1, d0 + 1):
            for b in range(1, d1 + 1):
                for sa in (-a, a):
                    for sb in (-b, b):
                        rc, rt = self.entry_text(0, sa)
                        cc, ct = self.entry_text(1, sb)
                        # rows' entry of the columns' entry: sum_i a_i (cc + sum_j b_j M[r_i][c_j]) + rc
                        parts = []
                        for ca, ri in rt:
                            inner = lin(cc, ct, lambda cj: f"{m}[{ri}][{cj}]")
                            parts.append(f"{ca} * ({inner})" if ca != 1 else f"({inner})")
                        if rc or not parts:
                            parts.append(self._num(rc))
                        lines.append(f"{m}[{sa:+d}][{sb:+d}] = {' + '.join(parts)};")
        if not self.split:
            return f"    parac_border_rule {self.name} {{\n" + "".join(f"        {s}\n" for s in lines) + "    }\n"
        # the rows' entries in one declaration, the columns' and the corners' in another; the
        # iterator names both (parac_border_rule(a, b) takes them as one rule)
        rows = [s for s in lines if "][*] =" in s]
        rest = [s for s in lines if "][*] =" not in s]
        return "".join(f"    parac_border_rule {name} {{\n" + "".join(f"        {s}\n" for s in part) + "    }\n"
                       for name, part in ((self.name + "r", rows), (self.name + "c", rest)))

    def names(self):
        """What an iterator names in parac_border_rule(...) to read through this rule."""
        return f"{self.name}r, {self.name}c" if self.split else self.name

    def _num(self, c):
        return f"{c}.0f" if self.flt else str(c)

    def fetch(self, a, xi, yi):
        """a[xi, yi] with the rule's values outside (numpy oracle)."""
        H, W = a.shape
        out = np.zeros(np.broadcast(xi, yi).shape, dtype=np.float32 if self.flt else np.int64)
        xi, yi = np.broadcast_arrays(xi, yi)

        def classes(i, n, d):
            cls = np.where(i < 0, i, np.where(i >= n, i - (n - 1), 0))
            if d == 0 and cls.any():
                raise AssertionError("read outside without a rule")
            if np.abs(cls).max(initial=0) > d:
                raise AssertionError("read beyond the rule")
            return cls

        cx, cy = classes(xi, H, self.depth[0]), classes(yi, W, self.depth[1])
        for kx in np.unique(cx):
            for ky in np.unique(cy):
                sel = (cx == kx) & (cy == ky)
                rx = self.entry(0, int(kx), H) if kx else (0, [(1, None)])
                ry = self.entry(1, int(ky), W) if ky else (0, [(1, None)])
                xs, ys = xi[sel], yi[sel]
                acc = None
                for ca, ri in rx[1]:
                    inner = None
                    for cb, cj in ry[1]:
                        v = a[xs if ri is None else ri, ys if cj is None else cj]
                        v = self._scale(cb, v)
                        inner = v if inner is None else inner + v
                    inner = self._plus(inner, ry[0], xs.shape)
                    inner = self._scale(ca, inner)
                    acc = inner if acc is None else acc + inner
                acc = self._plus(acc, rx[0], xs.shape)
                out[sel] = acc
        return out

    def _scale(self, c, v):
        if c == 1:
            return v
        return (np.float32(c) * v).astype(np.float32) if self.flt else c * v.astype(np.int64)

    def _plus(self, v, c, shape):
        if v is None:
            return np.full(shape, np.float32(c) if self.flt else c)
        if not c:
            return v
        return (v + np.float32(c)).astype(np.float32) if self.flt else v + c


class Program:
    """A program being drawn: its text pieces and the oracle's matrices."""

    def __init__(self, rng, dt, H, W, C):
        self.rng, self.dt, self.H, self.W, self.C = rng, dt, H, W, C
        self.T = TYPES[dt][0]
        self.flt = dt == "f32"
        self.V = "float" if self.flt else "int"
        self.helpers = []   # file-scope text
        self.body = []      # the plane function's statements
        self.mats = {}      # name -> oracle array (H x W)
        self.n = 0
        self.kinds = []
        self.force = {}     # choices a caller makes: {"window": op}

    # --- drawing helpers -------------------------------------------------
    def ri(self, lo, hi):
        """An int in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, seq):
        return seq[int(self.rng.integers(0, len(seq)))]

    def num(self, c):
        return f"{c}.0f" if self.flt else str(c)

    def const(self, c):
        return np.float32(c) if self.flt else np.int64(c)

    def fresh(self, prefix):
        self.n += 1
        return f"{prefix}{self.n}"

    def arith(self, v):
        """A value in the expression type (int64 checked, or float32)."""
        return v.astype(np.float32) if self.flt else checked(v.astype(np.int64))

    def point_expr(self, srcs, x, y, depth, allow_idx=True):
        """A random scalar expression of the sources at the point (x, y)."""
        rng = self.rng
        if depth == 0 or rng.random() < 0.25:
            r = rng.random()
            if r < 0.7 or not allow_idx:
                m = self.pick(srcs)
                return Expr(f"{m}[{x}][{y}]", lambda e, m=m: e.read(m, 0, 0), self.flt)
            if r < 0.85:
                c = self.ri(0, 9)
                return Expr(self.num(c), lambda e, c=c: np.broadcast_to(self.const(c), e.shape), self.flt)
            # the iteration's own indices
            c = self.ri(2, 7)
            return Expr(f"(({x} + 2 * {y}) % {c})", lambda e, c=c: self.arith(cmod(e.X + 2 * e.Y, c)), self.flt)
        ops = ["+", "-", "*c", "/c", "?:", "call", "min", "neg"]
        if not self.flt:
            ops += ["%c", "&", "^", ">>", "cast"]
        op = self.pick(ops)
        a = self.point_expr(srcs, x, y, depth - 1, allow_idx)
        if op in ("+", "-"):
            b = self.point_expr(srcs, x, y, depth - 1, allow_idx)
            f = (lambda e, a=a, b=b: self.arith(a(e) + b(e))) if op == "+" else \
                (lambda e, a=a, b=b: self.arith(a(e) - b(e)))
            return Expr(f"({a.text} {op} {b.text})", f, self.flt)
        if op == "*c":
            c = self.ri(-3, 3)
            return Expr(f"({a.text} * {self.num(c)})", lambda e, a=a, c=c: self.arith(a(e) * self.const(c)), self.flt)
        if op == "/c":
            c = self.ri(2, 7)
            if self.flt:
                return Expr(f"({a.text} / {self.num(c)})", lambda e, a=a, c=c: (a(e) / np.float32(c)).astype(np.float32), True)
            return Expr(f"({a.text} / {c})", lambda e, a=a, c=c: cdiv(a(e), c), False)
        if op == "%c":
            c = self.ri(2, 9)
            return Expr(f"({a.text} % {c})", lambda e, a=a, c=c: cmod(a(e), c), False)
        if op == "&":
            c = self.ri(1, 255)
            return Expr(f"({a.text} & {c})", lambda e, a=a, c=c: a(e) & c, False)
        if op == "^":
            c = self.ri(1, 63)
            return Expr(f"({a.text} ^ {c})", lambda e, a=a, c=c: a(e) ^ c, False)
        if op == ">>":
            c = self.ri(1, 3)  # of a non-negative value: (a & 1023) >> c
            return Expr(f"(({a.text} & 1023) >> {c})", lambda e, a=a, c=c: (a(e) & 1023) >> c, False)
        if op == "cast":
            return Expr(f"(int)(unsigned char)({a.text})", lambda e, a=a: a(e) & 0xFF, False)
        if op == "neg":
            return Expr(f"(-{a.text})", lambda e, a=a: self.arith(-a(e)), self.flt)
        if op == "min":
            b = self.point_expr(srcs, x, y, depth - 1, allow_idx)
            return Expr(f"({a.text} < {b.text} ? {a.text} : {b.text})",
                        lambda e, a=a, b=b: np.minimum(a(e), b(e)), self.flt)
        if op == "call":
            return Expr(f"clampv({a.text})", lambda e, a=a: np.clip(a(e), self.const(-LIMIT), self.const(LIMIT)), self.flt)
        b = self.point_expr(srcs, x, y, depth - 1, allow_idx)
        c = self.ri(0, 60)
        d = self.point_expr(srcs, x, y, depth - 1, allow_idx)
        return Expr(f"({a.text} > {self.num(c)} ? {b.text} : {d.text})",
                    lambda e, a=a, b=b, c=c, d=d: np.where(a(e) > self.const(c), b(e), d(e)), self.flt)


LIMIT = 5000


class Env:
    """The iteration grid of one stage and reads of the oracle's matrices."""

    def __init__(self, prog, X, Y, rules=None):
        self.prog, self.X, self.Y = prog, X, Y
        self.shape = X.shape
        self.rules = rules or {}

    def read(self, m, dx, dy):
        a = self.prog.mats[m]
        xi, yi = self.X + dx, self.Y + dy
        rule = self.rules.get(m)
        if rule is None:
            v = a[xi, yi]
        else:
            v = rule.fetch(a, xi, yi)
        return v.astype(np.float32) if self.prog.flt else v.astype(np.int64)


def grid(h, w, x0=0, y0=0, sx=1, sy=1):
    xs = np.arange(x0, h, sx)
    ys = np.arange(y0, w, sy)
    return np.meshgrid(xs, ys, indexing="ij")


# --- stages ---------------------------------------------------------------
# Each appends its text to prog.body and returns the oracle's step: a
# function of prog that updates prog.mats for one plane.

def _full(prog):
    return grid(prog.H, prog.W)


def _wrap_store(prog, e, clamp):
    """`(T)(clampv(e))` or `(T)(e)` and its oracle."""
    if clamp:
        return (f"({prog.T})(clampv({e.text}))",
                lambda env: store(np.clip(e(env), prog.const(-LIMIT), prog.const(LIMIT)), prog.dt))
    return f"({prog.T})({e.text})", lambda env: store(e(env), prog.dt)


def _body_stage(prog, it, dst, name, fn, lines):
    """An iterator over the image whose body is `lines` and then
    `dst = (T)(clampv(name))`, the local `name` having the values fn gives."""
    text, f = _wrap_store(prog, Expr(name, fn, prog.flt), True)
    x, y = it + "x", it + "y"
    prog.body.append(f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n" + "".join(f"        {line}\n" for line in lines) +
                     f"        {dst}[{x}][{y}] = {text};\n    }}\n")
    return f


def stage_point(prog, srcs, dst):
    """A point expression, maybe through locals, an if / else if chain and a
    loop of constant trip count."""
    it = prog.fresh("s")
    x, y = it + "x", it + "y"
    form = prog.pick(["expr", "locals", "loop", "loopcol"])
    prog.kinds.append("point_" + form)
    e = prog.point_expr(srcs, x, y, prog.ri(1, 3))
    if form == "expr":
        text, f = _wrap_store(prog, e, prog.rng.random() < 0.5)
        prog.body.append(f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n        {dst}[{x}][{y}] = {text};\n    }}\n")
    elif form == "locals":
        a = prog.point_expr(srcs, x, y, 2)
        b = prog.point_expr(srcs, x, y, 2)
        c1, c2 = prog.ri(0, 80), prog.ri(0, 40)

        def fl(env, e=e, a=a, b=b, c1=c1, c2=c2):
            t = e(env)
            return np.where(a(env) > prog.const(c1), prog.arith(t + b(env)), np.where(t < prog.const(c2), b(env), t))
        f = _body_stage(prog, it, dst, "t", fl, [f"{prog.V} t = {e.text};",
                                                  f"if ({a.text} > {prog.num(c1)}) t = t + {b.text};",
                                                  f"else if (t < {prog.num(c2)}) t = {b.text};"])
    elif form == "loop":
        K = prog.ri(2, 4)

        def fl(env, e=e, K=K):
            v = np.zeros(env.shape, np.float32 if prog.flt else np.int64)
            ev = e(env)
            for k in range(K):
                v = prog.arith(v + prog.arith(ev * prog.const(k + 1)))
            return v
        f = _body_stage(prog, it, dst, "acc", fl, [f"{prog.V} acc = 0;", f"for (int k = 0; k < {K}; k++)",
                                                    f"    acc += {e.text} * (k + 1);"])
    else:
        # reads at a loop variable's columns (or rows), bounds constant: no border rule involved;
        # spelled through a macro that takes the matrix itself (expanded by paracc)
        m = prog.pick(srcs)
        K = prog.ri(2, 4)
        along_rows = prog.rng.random() < 0.5
        idx = f"AT2({m}, k, {y})" if along_rows else f"AT2({m}, {x}, k)"
        if m == "I":  # a macro naming I passed by name to another (no draw: the programs stay as they were)
            idx = f"CALL2(ATI, k, {y})" if along_rows else f"CALL2(ATI, {x}, k)"
            prog.kinds.append("macro_passed")
        prog.kinds.append("macro_matrix")

        def fl(env, m=m, K=K, along_rows=along_rows, e=e):
            v = e(env)
            a = prog.mats[m]
            for k in range(K):
                r = a[k, env.Y] if along_rows else a[env.X, k]
                r = r.astype(np.float32) if prog.flt else r.astype(np.int64)
                v = prog.arith(v + prog.arith(r * prog.const(k + 1)))
            return v
        f = _body_stage(prog, it, dst, "acc", fl, [f"{prog.V} acc = {e.text};",
                                                    f"for (int k = 0; k < {K}; k++) acc += {idx} * (k + 1);"])

    def step(p, f=f, dst=dst):
        X, Y = _full(p)
        p.mats[dst] = f(Env(p, X, Y))
    return step


class DistanceRule(Rule):
    """A rule at every distance on one axis (parac_border_rule NAME(d)), of
    the kinds whose entries follow the distance: the same values as Rule's
    entries, written once for all d."""

    def __init__(self, name, m, kind, axis, reach, const, flt):
        super().__init__(name, m, [kind, kind], (reach, 0) if axis == 0 else (0, reach), const, flt)
        self.axis = axis

    def text(self):
        n = "H" if self.axis == 0 else "W"
        kind = self.kinds[self.axis]

        def at(i):  # the matrix at index i on the rule's axis, every index on the other
            return f"{self.m}[{i}][*]" if self.axis == 0 else f"{self.m}[*][{i}]"
        lo, hi = {"replicate": (at("0"), at(f"{n} - 1")), "mirror": (at("d"), at(f"{n} - 1 - d")),
                  "symmetric": (at("d - 1"), at(f"{n} - d")),
                  "constant": (self._num(self.const), self._num(self.const))}[kind]
        return (f"    parac_border_rule {self.name}(d) {{\n        {at('-d')} = {lo};\n"
                f"        {at('+d')} = {hi};\n    }}\n")


WINDOW_OPS = ["sum", "min", "max", "mean", "conv", "dot", "median", "kth"]
RULE_KINDS = ["replicate", "mirror", "symmetric", "constant", "extrapolate"]


def _rule(prog, m, depth):
    kinds = [prog.pick(RULE_KINDS if prog.dt in ("i32", "f32") else RULE_KINDS[:4]) for _ in range(2)]
    const = prog.ri(0, 255) if prog.dt != "i32" else prog.ri(-50, 50)
    r = Rule(prog.fresh("r"), m, kinds, depth, const, prog.flt)
    prog.kinds.append("rule_" + "_".join(kinds[a] for a in range(2) if depth[a]))
    return r


def _window_shape(prog):
    while True:
        h, w = prog.pick([1, 3, 5]), prog.pick([1, 3, 5])
        sx, sy = prog.pick([1, 1, 2]), prog.pick([1, 1, 2])
        if (h > 1 or w > 1) and (h // 2) * sx <= 3 and (w // 2) * sy <= 3:
            return h, w, (sx if h > 1 else 1), (sy if w > 1 else 1)


# object-like macros of the file (head below) that windows may spell their lengths and strides with
WINDOW_MACROS = {1: "WIN1", 3: "WIN3", 5: "WIN5"}
STRIDE_MACROS = {1: "WIN1", 2: "STEP2"}
MACRO_LINES = ("#define WIN1 1\n"
               "#define WIN3 (WIN1 + 2) /* a macro of a macro */\n"
               "#define WIN5 (2 * WIN3 - 1)\n"
               "#define STEP2 (WIN5 / 2)\n"
               "#define AT2(m, r, c) m[r][c] /* a matrix through an argument: paracc expands its uses */\n"
               "/* a macro that names a matrix in its body, passed by name to another: CALL2(ATI, r, c) */\n"
               "#define ATI(r, c) I[r][c]\n"
               "#define CALL2(P, r, c) P(r, c)\n")


def _window_text(m, x, y, h, w, sx, sy, macros=False):
    def ax(i, n, s):
        if n == 1:
            return i
        r = (n // 2) * s
        ln, st = (WINDOW_MACROS[n], STRIDE_MACROS[s]) if macros else (n, s)
        return f"{i} - {r}:{ln}:{st}" if s != 1 or macros else f"{i} - {r}:{ln}"
    return f"{m}[{ax(x, h, sx)}][{ax(y, w, sy)}]"


def _window_values(env, m, h, w, sx, sy):
    return [env.read(m, (i - h // 2) * sx, (j - w // 2) * sy) for i in range(h) for j in range(w)]


def _small_matrix(prog, name, h, w, lo=-3, hi=3):
    vals = [prog.ri(lo, hi) for _ in range(h * w)]
    ty = "float" if prog.flt else "int"
    text = f"    {ty} parac_matrix {name}[{h}][{w}] = {{{', '.join(prog.num(v) for v in vals)}}};\n"
    return vals, text


def stage_window(prog, srcs, dst):
    """An operator over a window (strides, every border rule kind), maybe
    plus a point read of another source."""
    it = prog.fresh("s")
    x, y = it + "x", it + "y"
    m = prog.pick(srcs)
    h, w, sx, sy = _window_shape(prog)
    rule = _rule(prog, m, ((h // 2) * sx, (w // 2) * sy))
    op = prog.force.pop("window", None) or prog.pick(WINDOW_OPS)
    prog.kinds.append("window_" + op)
    macros = prog.n % 3 == 0  # every third stage's window, drawing nothing (the draws of the cases stay)
    if macros:
        prog.kinds.append("window_macros")
    win = _window_text(m, x, y, h, w, sx, sy, macros)
    # some sums and convolutions written as loops over the offsets: reads at loop variables of
    # constant bounds under the rule (drawing nothing: the draws of the cases stay)
    loops = not macros and prog.n % 2 == 0 and op in ("sum", "conv", "dot")
    pre, lines = "", []
    if op in ("conv", "dot"):
        kname = prog.fresh("k")
        kvals, pre = _small_matrix(prog, kname, h, w)
        e_text = f"parac_convolution({kname}, {win})" if op == "conv" else f"parac_matrix_sum({kname} .* {win})"
    elif op == "kth":
        kk = prog.ri(0, h * w - 1)
        e_text = f"parac_matrix_kth({win}, {kk})"
    else:
        e_text = f"parac_matrix_{op}({win})"
    if loops:
        prog.kinds.append("window_loops")
        read = f"{m}[{x} + {sx} * i][{y} + {sy} * j]"
        term = read if op == "sum" else f"{kname}[i + {h // 2}][j + {w // 2}] * {read}"
        down = prog.n % 2 == 1  # the columns counted down: the sum's order follows (below)
        lines = [f"{prog.V} lw = 0;", f"for (int i = -{h // 2}; i <= {h // 2}; i++)",
                 f"    for (int j = {w // 2}; j >= -{w // 2}; j -= 1)" if down else
                 f"    for (int j = -{w // 2}; j < {w // 2 + 1}; ++j)",
                 f"        lw += {term};"]
        e_text = "lw"
    extra = prog.pick(srcs) if prog.rng.random() < 0.5 else None
    # (drawing nothing: the draws of the cases stay) where the loops are not written, the
    # stage reads its extra matrix as a 3x3 sum through a rule of its own, the iterator naming
    # both rules, or else has its one rule split into two declarations named together
    # (drawing nothing) some sums, extremes and means over windows of run-time length: no
    # border rule then, the iterator inside the image and a copy of m around it
    runtime = op in ("sum", "min", "max", "mean") and not macros and not loops and prog.n % 5 in (1, 2)
    rules = {m: rule}
    extra_rule = None
    if runtime:
        rules = {}
        prog.kinds.append("window_run_time")
        rn, cn = prog.fresh("rn"), prog.fresh("cn")
        ax_r = f"{x} - {rn} * {sx}:2 * {rn} + 1:{sx}" if h > 1 else x
        ax_c = f"{y} - {cn} * {sy}:2 * {cn} + 1:{sy}" if w > 1 else y
        e_text = f"parac_matrix_{op}({m}[{ax_r}][{ax_c}])"
    elif extra is None and not loops:
        extra = next((s for s in srcs if s != m), None)  # another source, if the stage has one
    if extra is not None and extra != m and not loops:
        extra_rule = Rule(prog.fresh("r"), extra, [rule.kinds[1], rule.kinds[0]], (1, 1), rule.const, prog.flt)
        rules[extra] = extra_rule
        prog.kinds.append("rules_two_matrices")
    elif rule.depth[0] and rule.depth[1] and not loops:
        rule.split = True
        prog.kinds.append("rules_split")

    def val(env):
        vs = _window_values(env, m, h, w, sx, sy)
        ks = kvals if op in ("conv", "dot") else None
        if loops and down:  # each row's columns in the loop's order
            order = [i * w + j for i in range(h) for j in reversed(range(w))]
            vs = [vs[k] for k in order]
            ks = [ks[k] for k in order] if ks is not None else None
        if op in ("sum",):
            acc = vs[0]
            for v in vs[1:]:
                acc = prog.arith(acc + v)
        elif op == "min":
            acc = np.minimum.reduce(vs)
        elif op == "max":
            acc = np.maximum.reduce(vs)
        elif op in ("median", "kth"):
            acc = np.sort(np.stack(vs), axis=0)[(len(vs) - 1) // 2 if op == "median" else kk]
        elif op == "mean":
            acc = vs[0]
            for v in vs[1:]:
                acc = prog.arith(acc + v)
            # a float (of any type's window): what is added to it is added in
            # float, and the store truncates the sum, not the mean
            acc = (acc.astype(np.float32) / np.float32(len(vs))).astype(np.float32)
        else:
            acc = None
            for kv, v in zip(ks, vs):
                t = prog.arith(prog.const(kv) * v)
                acc = t if acc is None else prog.arith(acc + t)
        add = (lambda a, b: (a + b.astype(np.float32)).astype(np.float32)) if op == "mean" else \
            (lambda a, b: prog.arith(a + b))
        if extra_rule is not None:  # the window's sum first, in its order
            es = [env.read(extra, i, j) for i in (-1, 0, 1) for j in (-1, 0, 1)]
            e = es[0]
            for v in es[1:]:
                e = prog.arith(e + v)
            acc = add(acc, e)
        elif extra is not None:
            acc = add(acc, env.read(extra, 0, 0))
        return acc
    if extra_rule is not None:
        e_text = f"{e_text} + parac_matrix_sum({extra}[{x} - 1:3][{y} - 1:3])"
    elif extra is not None:
        e_text = f"{e_text} + {extra}[{x}][{y}]"
    e = Expr(e_text, val, prog.flt)
    clamp = op != "mean" and prog.rng.random() < 0.6
    text, f = _wrap_store(prog, e, clamp)
    # (drawing nothing) a run-time window along one axis over the whole image instead, read
    # through a rule at every distance on that axis
    every = runtime and (h == 1) != (w == 1) and zlib.crc32(e_text.encode()) % 2 == 0
    if every:
        prog.kinds.append("window_run_time_rules")
        axis = 0 if h > 1 else 1
        kind = ["replicate", "mirror", "symmetric", "constant"][zlib.crc32(text.encode()) % 4]
        drule = DistanceRule(prog.fresh("rd"), m, kind, axis, (h // 2) * sx if axis == 0 else (w // 2) * sy,
                             rule.const, prog.flt)
        rules[m] = drule
        names = drule.name + (", " + extra_rule.names() if extra_rule is not None else "")
        prog.body.append(f"    int {rn} = {h // 2}, {cn} = {w // 2}; /* run-time values to paracc */\n" + drule.text() +
                         (extra_rule.text() if extra_rule is not None else "") +
                         f"    parac_iterator {it}(0:H:1; 0:W:1) parac_border_rule({names}) {{\n"
                         f"        {dst}[{x}][{y}] = {text};\n    }}\n")

        def step_every(p, f=f, dst=dst, rules=rules):
            X, Y = _full(p)
            p.mats[dst] = f(Env(p, X, Y, rules))
        return step_every
    if runtime:
        d0, d1 = (h // 2) * sx, (w // 2) * sy
        if extra_rule is not None:  # no rule here: the extra matrix's 3 x 3 sum stays inside the image
            d0, d1 = max(d0, 1), max(d1, 1)
        cp = prog.fresh("s")
        prog.body.append(f"    int {rn} = {h // 2}, {cn} = {w // 2}; /* run-time values to paracc */\n"
                         f"    parac_iterator {cp}(0:H:1; 0:W:1) {{ {dst}[{cp}x][{cp}y] = {m}[{cp}x][{cp}y]; }}\n"
                         f"    parac_iterator {it}({d0}:H - {d0}:1; {d1}:W - {d1}:1) {{\n"
                         f"        {dst}[{x}][{y}] = {text};\n    }}\n")

        def step_rt(p, f=f, dst=dst, m=m, d0=d0, d1=d1):
            D = p.mats[m].copy()
            X, Y = grid(p.H - d0, p.W - d1, d0, d1)
            if X.size:
                D[X, Y] = f(Env(p, X, Y, {}))
            p.mats[dst] = D
        return step_rt
    names = rule.names() + (", " + extra_rule.names() if extra_rule is not None else "")
    prog.body.append(pre + rule.text() + (extra_rule.text() if extra_rule is not None else "") +
                     f"    parac_iterator {it}(0:H:1; 0:W:1) parac_border_rule({names}) {{\n" +
                     "".join(f"        {line}\n" for line in lines) +
                     f"        {dst}[{x}][{y}] = {text};\n    }}\n")

    def step(p, f=f, dst=dst):
        X, Y = _full(p)
        p.mats[dst] = f(Env(p, X, Y, rules))
    return step


def stage_whole(prog, srcs, dst):
    """Whole-image statements: an element-wise expression, or a convolution
    by a constant matrix under a border rule."""
    if prog.rng.random() < 0.5:
        prog.kinds.append("whole_ewise")
        a, b = prog.pick(srcs), prog.pick(srcs)
        c = prog.ri(1, 3)
        prog.body.append(f"    {dst} = {a} .* {b} + {a} * {prog.num(c)} - {b};\n")

        def step(p, a=a, b=b, c=c, dst=dst):
            X, Y = _full(p)
            env = Env(p, X, Y)
            A, B = env.read(a, 0, 0), env.read(b, 0, 0)
            p.mats[dst] = store(p.arith(p.arith(p.arith(A * B) + p.arith(A * p.const(c))) - B), p.dt)
        return step
    prog.kinds.append("whole_conv")
    m = prog.pick(srcs)
    h, w = prog.pick([1, 3, 5]), prog.pick([1, 3])
    if h == 1 and w == 1:
        h = 3
    rule = _rule(prog, m, (h // 2, w // 2))
    kname = prog.fresh("k")
    kvals, pre = _small_matrix(prog, kname, h, w, 0, 3)
    prog.body.append(pre + rule.text() + f"    {dst} = parac_convolution({kname}, {m}) parac_border_rule({rule.name});\n")

    def step(p, dst=dst):
        X, Y = _full(p)
        env = Env(p, X, Y, {m: rule})
        acc = None
        for kv, v in zip(kvals, _window_values(env, m, h, w, 1, 1)):
            t = p.arith(p.const(kv) * v)
            acc = t if acc is None else p.arith(acc + t)
        p.mats[dst] = store(acc, p.dt)
    return step


def stage_reduce(prog, srcs, dst):
    """Independent reductions of a whole matrix, used as scalars by the next
    iterator."""
    prog.kinds.append("reduce")
    a = prog.pick(srcs)
    g = prog.fresh("g")
    it = prog.fresh("s")
    x, y = it + "x", it + "y"
    if prog.flt:
        prog.body.append(f"    float {g}lo = parac_matrix_min({a}), {g}hi = parac_matrix_max({a});\n"
                         f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                         f"        {dst}[{x}][{y}] = (float)(({a}[{x}][{y}] - {g}lo) / ({g}hi - {g}lo + 1.0f));\n    }}\n")

        def step(p, a=a, dst=dst):
            v = p.mats[a].astype(np.float32)
            lo, hi = v.min(), v.max()
            p.mats[dst] = ((v - lo) / ((hi - lo) + np.float32(1))).astype(np.float32)
        return step
    use_mean = prog.rng.random() < 0.5
    prog.body.append(f"    long long {g}s = parac_matrix_sum({a});\n"
                     f"    int {g}lo = parac_matrix_min({a}), {g}hi = parac_matrix_max({a});\n"
                     + (f"    float {g}m = parac_matrix_mean({a});\n" if use_mean else "") +
                     f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                     f"        {dst}[{x}][{y}] = ({prog.T})({a}[{x}][{y}] - {g}lo + (int)({g}s % 7) + ({g}hi > 100)"
                     + (f" + (int){g}m % 5" if use_mean else "") + ");\n    }\n")

    def step(p, a=a, dst=dst, use_mean=use_mean):
        v = p.mats[a].astype(np.int64)
        s, lo, hi = int(v.sum()), int(v.min()), int(v.max())
        if abs(s) >= 2 ** 24:
            raise Reject("mean of a sum beyond float's integers")
        r = v - lo + int(cmod(np.int64(s), np.int64(7))) + int(hi > 100)
        if use_mean:
            mean = np.float32(s) / np.float32(v.size)
            r = r + int(cmod(np.int64(np.trunc(mean)), np.int64(5)))
        p.mats[dst] = store(checked(r), p.dt)
    return step


def stage_vector(prog, srcs, dst):
    """A column profile in a vector, filtered along the vector under a 1-D
    border rule (a window with a stride), added to every row."""
    prog.kinds.append("vector")
    a = prog.pick(srcs)
    v, r = prog.fresh("v"), prog.fresh("vr")
    i, j, s = prog.fresh("i"), prog.fresh("j"), prog.fresh("s")
    n, st = prog.pick([(3, 1), (3, 2), (5, 1)])
    reach = (n // 2) * st
    kind = prog.pick(["replicate", "mirror", "constant"])
    lines = []
    for k in range(1, reach + 1):
        lo = {"replicate": f"{v}[0]", "mirror": f"{v}[{k}]", "constant": prog.num(7)}[kind]
        hi = {"replicate": f"{v}[W - 1]", "mirror": f"{v}[W - {1 + k}]", "constant": prog.num(7)}[kind]
        lines += [f"{v}[-{k}] = {lo};", f"{v}[+{k}] = {hi};"]
    prog.body.append(
        f"    {prog.T} parac_vector {v}[W], {r}[W];\n"
        f"    parac_iterator {i}(0:W:1) {{ {v}[{i}x] = ({prog.T})({a}[0][{i}x] + {a}[H - 1][{i}x]); }}\n"
        f"    parac_border_rule {v}e {{ " + " ".join(lines) + " }\n"
        f"    parac_iterator {j}(0:W:1) parac_border_rule({v}e) {{\n"
        f"        {r}[{j}x] = ({prog.T})(parac_matrix_max({v}[{j}x - {reach}:{n}:{st}]) - {v}[{j}x]);\n    }}\n"
        f"    parac_iterator {s}(0:H:1; 0:W:1) {{ {dst}[{s}x][{s}y] = ({prog.T})({a}[{s}x][{s}y] + {r}[{s}y]); }}\n")

    def step(p, a=a, dst=dst):
        A = p.mats[a].astype(np.float32 if p.flt else np.int64)
        vec = store(p.arith(A[0] + A[-1]), p.dt)
        W = vec.shape[0]
        idx = np.arange(W)
        vals = []
        for t in range(n):
            q = idx + (t - n // 2) * st
            if kind == "replicate":
                vals.append(vec[np.clip(q, 0, W - 1)])
            elif kind == "mirror":
                vals.append(vec[np.where(q < 0, -q, np.where(q >= W, 2 * (W - 1) - q, q))])
            else:
                vals.append(np.where((q < 0) | (q >= W), p.const(7), vec[np.clip(q, 0, W - 1)]))
        vals = [x.astype(np.float32) if p.flt else x.astype(np.int64) for x in vals]
        res = store(p.arith(np.maximum.reduce(vals) - vec), p.dt)
        p.mats[dst] = store(p.arith(A + res[None, :]), p.dt)
    return step


def stage_element(prog, srcs, dst):
    """iter_element: 2 x 2 blocks down to a half-size matrix (max - min), then
    back up by a read at halved, clamped indices."""
    prog.kinds.append("element")
    a = prog.pick(srcs)
    dn, b, u = prog.fresh("dn"), prog.fresh("b"), prog.fresh("u")
    prog.body.append(
        f"    {prog.T} parac_matrix {dn}[H / 2][W / 2];\n"
        f"    parac_iterator {b}(iter_element; 0:H / 2:1; 0:W / 2:1) {{\n"
        f"        {dn}[{b}x / 2][{b}y / 2] = ({prog.T})(parac_matrix_max({a}[{b}x:2:1][{b}y:2:1]) - parac_matrix_min({a}[{b}x:2:1][{b}y:2:1]));\n    }}\n"
        f"    parac_iterator {u}(0:H:1; 0:W:1) {{\n"
        f"        int r = {u}x / 2 < H / 2 - 1 ? {u}x / 2 : H / 2 - 1, c = {u}y / 2 < W / 2 - 1 ? {u}y / 2 : W / 2 - 1;\n"
        f"        {dst}[{u}x][{u}y] = ({prog.T})({a}[{u}x][{u}y] + {dn}[r][c]);\n    }}\n")

    def step(p, a=a, dst=dst):
        A = p.mats[a].astype(np.float32 if p.flt else np.int64)
        h2, w2 = p.H // 2, p.W // 2
        blk = A[:2 * h2, :2 * w2].reshape(h2, 2, w2, 2)
        d = store(p.arith(blk.max(axis=(1, 3)) - blk.min(axis=(1, 3))), p.dt)
        d = d.astype(np.float32 if p.flt else np.int64)
        X, Y = _full(p)
        r, c = np.minimum(X // 2, h2 - 1), np.minimum(Y // 2, w2 - 1)
        p.mats[dst] = store(p.arith(A + d[r, c]), p.dt)
    return step


def stage_inplace(prog, srcs, dst):
    """A strided or sub-range iterator that updates a matrix written before,
    reading it (and others) at its own point or, in a sub-range, at offsets
    that stay inside."""
    m = prog.pick([s for s in srcs if s != "I"] or srcs)
    if m == "I":
        return None
    prog.kinds.append("inplace")
    it = prog.fresh("s")
    x, y = it + "x", it + "y"
    x0, y0 = prog.ri(0, 3), prog.ri(0, 3)
    sx, sy = prog.pick([1, 2, 3]), prog.pick([1, 2, 3])
    hx, hy = prog.ri(0, 2), prog.ri(0, 2)   # rows / columns left out at the end
    dx, dy = prog.ri(-min(x0, 2), min(hx, 2)), prog.ri(-min(y0, 2), min(hy, 2))
    other = prog.pick(srcs)
    if other == m:  # a neighbour of what other iterations write: refused (a race)
        dx = dy = 0
    c = prog.ri(1, 9)
    ub_x = f"H - {hx}" if hx else "H"
    ub_y = f"W - {hy}" if hy else "W"
    prog.body.append(
        f"    parac_iterator {it}({x0}:{ub_x}:{sx}; {y0}:{ub_y}:{sy}) {{\n"
        f"        {m}[{x}][{y}] = ({prog.T})({m}[{x}][{y}] / 2 + {other}[{x} + ({dx})][{y} + ({dy})] - {prog.num(c)});\n    }}\n"
        f"    parac_iterator {prog.fresh('s')}(0:H:1; 0:W:1) {{ {dst}[{it}cx][{it}cy] = {m}[{it}cx][{it}cy]; }}\n"
        .replace(f"{it}cx", "CPX").replace(f"{it}cy", "CPY"))
    cp = prog.body[-1]
    nm = "s" + str(prog.n)
    prog.body[-1] = cp.replace("CPX", nm + "x").replace("CPY", nm + "y")

    def step(p, m=m, dst=dst):
        M = p.mats[m]
        X, Y = grid(p.H - hx, p.W - hy, x0, y0, sx, sy)
        env = Env(p, X, Y)
        cur = env.read(m, 0, 0)
        half = (cur / np.float32(2)).astype(np.float32) if p.flt else cdiv(cur, 2)
        val = store(p.arith(p.arith(half + env.read(other, dx, dy)) - p.const(c)), p.dt)
        M = M.copy()
        M[X, Y] = val
        p.mats[m] = M
        p.mats[dst] = M.copy()
    return step


def stage_blocks(prog, srcs, dst):
    """2 x 2 windows written whole: an element-wise expression of windows, or
    m * window * transe(m) (matrix products) with a constant m."""
    it = prog.fresh("t")
    x, y = it + "x", it + "y"
    a, b = prog.pick(srcs), prog.pick(srcs)
    wa = f"{a}[{x} * 2:2:1][{y} * 2:2:1]"
    wb = f"{b}[{x} * 2:2:1][{y} * 2:2:1]"
    if prog.rng.random() < 0.5:
        prog.kinds.append("blocks_ewise")
        c = prog.ri(1, 3)
        pre, rhs = "", f"{wa} .* {wb} + {wa} * {prog.num(c)} - {wb}"

        def blockval(A, B, c=c):
            return [[prog.arith(prog.arith(prog.arith(A[i][j] * B[i][j]) + prog.arith(A[i][j] * prog.const(c))) - B[i][j])
                     for j in range(2)] for i in range(2)]
    else:
        prog.kinds.append("blocks_product")
        mname = prog.fresh("mp")
        mv, pre = _small_matrix(prog, mname, 2, 2, -2, 3)
        rhs = f"{mname} * {wa} * transe({mname})"

        def blockval(A, B, mv=mv):
            M = [[prog.const(mv[0]), prog.const(mv[1])], [prog.const(mv[2]), prog.const(mv[3])]]
            # (M * A)[i][k] = sum_j M[i][j] A[j][k]; then (MA * M^T)[i][l] = sum_k MA[i][k] M[l][k]
            MA = [[prog.arith(prog.arith(M[i][0] * A[0][k]) + prog.arith(M[i][1] * A[1][k])) for k in range(2)] for i in range(2)]
            return [[prog.arith(prog.arith(MA[i][0] * M[l][0]) + prog.arith(MA[i][1] * M[l][1])) for l in range(2)] for i in range(2)]
    prog.body.append(pre + f"    parac_iterator {it}(0:H / 2:1; 0:W / 2:1) {{\n        {dst}[{x} * 2:2:1][{y} * 2:2:1] = {rhs};\n    }}\n")

    def step(p, a=a, b=b, dst=dst):
        h2, w2 = p.H // 2, p.W // 2
        X, Y = grid(h2, w2)
        env = Env(p, X, Y)
        A = [[env.read(a, 0, 0) for _ in range(2)] for _ in range(2)]
        A = [[Env(p, 2 * X + i, 2 * Y + j).read(a, 0, 0) for j in range(2)] for i in range(2)]
        B = [[Env(p, 2 * X + i, 2 * Y + j).read(b, 0, 0) for j in range(2)] for i in range(2)]
        v = blockval(A, B)
        out = np.zeros((p.H, p.W), np.float32 if p.flt else np.int64)
        for i in range(2):
            for j in range(2):
                out[2 * X + i, 2 * Y + j] = store(v[i][j], p.dt)
        p.mats[dst] = out
    return step


def stage_gather(prog, srcs, dst):
    """A constant table indexed by data (a run-time gather)."""
    prog.kinds.append("gather")
    it = prog.fresh("s")
    x, y = it + "x", it + "y"
    a = prog.pick(srcs)
    lname = prog.fresh("lut")
    n = prog.pick([4, 8, 16])
    vals, pre = _small_matrix(prog, lname, n, 1, -20, 20)
    idx = f"((int)clampv({a}[{x}][{y}]) & {n - 1})" if prog.flt else f"({a}[{x}][{y}] & {n - 1})"
    prog.body.append(pre + f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n"
                     f"        {dst}[{x}][{y}] = ({prog.T})({a}[{x}][{y}] + {lname}[{idx}][0]);\n    }}\n")
    table = np.array(vals, np.float32 if prog.flt else np.int64)

    def step(p, a=a, dst=dst):
        X, Y = _full(p)
        A = Env(p, X, Y).read(a, 0, 0)
        i = (np.trunc(np.clip(A, -LIMIT, LIMIT)).astype(np.int64) if p.flt else A) & (n - 1)
        p.mats[dst] = store(p.arith(A + table[i]), p.dt)
    return step


def stage_scatter(prog, srcs, dst):
    """A histogram of data-dependent bins (+= 1, -= value, --) and sums of
    rows into shared elements (atomic updates), and a histogram of each
    pixel's own in a matrix of the program's type (stored by a loop, then
    own[x][y][bin] += v and ++, bins from data: plain writes), then read by
    the next iterator, which also counts into an array of its iteration at
    an index from data (local memory on the GPU)."""
    prog.kinds.append("scatter")
    a = prog.pick(srcs)
    hist, rows = prog.fresh("hist"), prog.fresh("rows")
    it, it2 = prog.fresh("s"), prog.fresh("s")
    x, y = it + "x", it + "y"
    n = prog.pick([8, 16, 32])
    form = prog.pick(["one", "value", "dec"])
    v = f"(int)clampv({a}[{x}][{y}])" if prog.flt else f"{a}[{x}][{y}]"
    upd = {"one": f"{hist}[0][{v} & {n - 1}] += 1;", "value": f"{hist}[0][{v} & {n - 1}] -= {v} % 5;",
           "dec": f"{hist}[0][{v} & {n - 1}]--;"}[form]
    v2 = v.replace(x, it2 + "x").replace(y, it2 + "y")
    own, la = prog.fresh("own"), prog.fresh("la")
    prog.kinds += ["scatter_own", "local_array"]
    # own's bins stored by a loop (= at a loop's index), then updated at bins from
    # data; la: an array of the iteration indexed by data (local memory on the GPU)
    prog.body.append(
        f"    int parac_matrix {hist}[1][{n}];\n    int parac_matrix {rows}[H][1];\n"
        f"    {prog.T} parac_matrix {own}[H][W][{n}];\n"
        f"    parac_iterator {it}(0:H:1; 0:W:1) {{\n        {upd}\n        {rows}[{x}][0] += {v} & 255;\n"
        f"        for (int k = 0; k < {n}; k++) {own}[{x}][{y}][k] = ({prog.T})(k & 1);\n"
        f"        {own}[{x}][{y}][{v} & {n - 1}] += {v} % 5;\n        {own}[{x}][{y}][({v} >> 1) & {n - 1}]++;\n    }}\n"
        f"    parac_iterator {it2}(0:H:1; 0:W:1) {{\n        int {la}[{n}];\n"
        f"        for (int k = 0; k < {n}; k++) {la}[k] = 3 * k;\n        {la}[{v2} & {n - 1}] += 7;\n"
        f"        {dst}[{it2}x][{it2}y] = ({prog.T})({a}[{it2}x][{it2}y] + {hist}[0][{v2} & {n - 1}] % 97 + {rows}[{it2}x][0] % 13"
        f" + {own}[{it2}x][{it2}y][{v2} & {n - 1}] + {own}[{it2}x][{it2}y][({v2} + 3) & {n - 1}]"
        f" + {la}[({v2} >> 1) & {n - 1}]);\n    }}\n")

    def step(p, a=a, dst=dst):
        A = p.mats[a].astype(np.float32 if p.flt else np.int64)
        V = np.trunc(np.clip(A, -LIMIT, LIMIT)).astype(np.int64) if p.flt else A
        bins = V & (n - 1)
        w = {"one": np.ones_like(V), "value": -cmod(V, 5), "dec": -np.ones_like(V)}[form]
        h = np.zeros(n, np.int64)
        np.add.at(h, bins.ravel(), w.ravel())
        r = (V & 255).sum(axis=1)
        t = p.arith(A + p.const(0) + cmod(h[bins], 97).astype(A.dtype))
        t = p.arith(t + cmod(r, 13)[:, None].astype(A.dtype))
        # the pixel's own bins: k & 1 at k, v % 5 more at `bins`, then one more at (v >> 1) & (n - 1)
        halves, nexts = (V >> 1) & (n - 1), (V + 3) & (n - 1)
        at_bin = store(store((bins & 1) + cmod(V, 5), p.dt) + (halves == bins), p.dt)
        at_next = ((nexts & 1) + (halves == nexts)).astype(np.int64)
        t = p.arith(t + at_bin.astype(A.dtype))
        t = p.arith(t + at_next.astype(A.dtype))
        # la[k] = 3 k, 7 more at `bins`, read at `halves`
        p.mats[dst] = store(p.arith(t + (3 * halves + 7 * (halves == bins)).astype(A.dtype)), p.dt)
    return step


def stage_loop(prog, srcs, dst):
    """A host loop (of a constant bound, or of one the host computes) around
    a stage over a wider space, the source moved by the round, and an
    iterator that adds it at two offsets and the round to its own element:
    on the device targets the stage is computed in local memory and the
    loop runs inside the kernel (fuse_loops.c), on the C target inside the
    two iterators' strips of rows, a thread running every round over its own
    strips (strips.c)."""
    prog.kinds.append("loop_in_kernel")
    a = prog.pick(srcs)
    d, it0, ite, itr, k = prog.fresh("wide"), prog.fresh("l"), prog.fresh("l"), prog.fresh("l"), prog.fresh("k")
    n = prog.ri(1, 4)
    runtime = prog.rng.random() < 0.5
    bound = f"(W % 3) + {n}" if runtime else str(n)
    T = prog.T

    def cl(v, size):
        return f"({v} < 0 ? 0 : {v} > {size} - 1 ? {size} - 1 : {v})"

    ex, ey = f"{ite}x - 1", f"{ite}y - 1 + {k} % 2"
    prog.body.append(
        f"    {T} parac_matrix {d}[H + 2][W + 2];\n"
        f"    parac_iterator {it0}(0:H; 0:W) {{ {dst}[{it0}x][{it0}y] = ({T})0; }}\n"
        f"    for (int {k} = 0; {k} < {bound}; {k}++) {{\n"
        f"        parac_iterator {ite}(0:H + 2; 0:W + 2) {{ {d}[{ite}x][{ite}y] = {a}[{cl(ex, 'H')}][{cl(ey, 'W')}]; }}\n"
        f"        parac_iterator {itr}(0:H; 0:W) {{\n"
        f"            {dst}[{itr}x][{itr}y] = ({T})({dst}[{itr}x][{itr}y] + {d}[{itr}x][{itr}y] + {d}[{itr}x + 2][{itr}y + 1]"
        f" + {k});\n        }}\n    }}\n")

    def step(p, a=a, dst=dst):
        A = p.mats[a]
        H, W = A.shape
        X, Y = np.arange(H)[:, None], np.arange(W)[None, :]
        rounds = (W % 3) + n if runtime else n
        acc = store(np.zeros((H, W), np.float32 if p.flt else np.int64), p.dt)
        for r in range(rounds):
            d1 = A[np.clip(X - 1, 0, H - 1), np.clip(Y - 1 + r % 2, 0, W - 1)]
            d2 = A[np.clip(X + 1, 0, H - 1), np.clip(Y + r % 2, 0, W - 1)]
            if p.flt:
                v = (acc.astype(np.float32) + d1.astype(np.float32)).astype(np.float32)
                v = (v + d2.astype(np.float32)).astype(np.float32)
                v = (v + np.float32(r)).astype(np.float32)
            else:
                v = p.arith(acc.astype(np.int64) + d1.astype(np.int64) + d2.astype(np.int64) + r)
            acc = store(v, p.dt)
        p.mats[dst] = acc
    return step


PYRAMID_HELPERS = """static void pyr_copy(int H, int W, pixel parac_matrix &a[H][W], pixel parac_matrix &b[H][W])
{
    parac_iterator s(0:H; 0:W) { b[sx][sy] = a[sx][sy]; }
}

static void pyr_down(int H, int W, pixel parac_matrix &a[H][W], pixel parac_matrix &d[(H + 1) / 2][(W + 1) / 2])
{
    parac_iterator s(0:(H + 1) / 2; 0:(W + 1) / 2) {
        int x1 = 2 * sx + 1 < H ? 2 * sx + 1 : 2 * sx;
        d[sx][sy] = (pixel)clampv(a[2 * sx][2 * sy] + a[x1][2 * sy]);
    }
}

static void pyr_up(int H, int W, pixel parac_matrix &a[H][W], pixel parac_matrix &u[(H + 1) / 2][(W + 1) / 2],
                   pixel parac_matrix &o[H][W])
{
    parac_iterator s(0:H; 0:W) { o[sx][sy] = (pixel)clampv(a[sx][sy] - u[sx / 2][sy / 2] / 2); }
}

static int pyr_size(int n, int l)
{
    while (l-- > 0) n = (n + 1) / 2;
    return n;
}

"""


def stage_pyramids(prog):
    """O brought down a pyramid G of 1 to 4 levels (a run-time count: sums of
    two rows, every other pixel) and back up into a pyramid R (each level
    less half the level below's, by repetition), by host loops passing the
    levels to functions of the file."""
    prog.kinds.append("pyramid")
    prog.helpers.append(PYRAMID_HELPERS)
    prog.body.append("    {\n"
                     "        const int L = 1 + (H + W) % 4;\n"
                     "        pixel parac_pyramid G[L][H][W];\n"
                     "        pixel parac_pyramid R[L][H][W];\n"
                     "        pyr_copy(H, W, O, G[0]);\n"
                     "        for (int l = 1; l < L; l++) pyr_down(pyr_size(H, l - 1), pyr_size(W, l - 1), G[l - 1], G[l]);\n"
                     "        pyr_copy(pyr_size(H, L - 1), pyr_size(W, L - 1), G[L - 1], R[L - 1]);\n"
                     "        for (int l = L - 1; l > 0; l--)\n"
                     "            pyr_up(pyr_size(H, l - 1), pyr_size(W, l - 1), G[l - 1], R[l], R[l - 1]);\n"
                     "        pyr_copy(H, W, R[0], O);\n"
                     "    }\n")

    def clamp(p, v):
        return np.clip(v, p.const(-LIMIT), p.const(LIMIT))

    def step(p):
        levels = [p.mats["O"]]
        for _ in range(1, 1 + (p.H + p.W) % 4):
            a = levels[-1]
            h = a.shape[0]
            below = np.minimum(np.arange(0, h, 2) + 1, h - 1)
            levels.append(store(clamp(p, p.arith(a[0::2, 0::2] + a[below][:, 0::2])), p.dt))
        r = levels[-1]
        for a in reversed(levels[:-1]):
            h, w = a.shape
            u = np.repeat(np.repeat(r, 2, 0), 2, 1)[:h, :w]
            half = (u / np.float32(2)).astype(np.float32) if p.flt else cdiv(u, 2)
            r = store(clamp(p, p.arith(a - half)), p.dt)
        p.mats["O"] = r
    return step


def moved_bounds(prog, srcs, dst, step, v):
    """After a stage (drawing nothing: its numbers from v, a hash of the
    program's text): a point producer over the first rows of a matrix
    declared here, whose row count the host then raises, and a reader over
    as many rows as the bound now says, which reads the producer's source
    at its point too. Bounds of the same text are not the same value: the
    rows the producer left are zeros (a reader recomputing the producer
    there, or storage left unzeroed, would differ)."""
    prog.kinds.append("moved_bounds")
    h, c1, c2, S = 1 + v % 3, 1 + (v >> 4) % 3, (v >> 8) % 7, srcs[(v >> 12) % len(srcs)]
    k = len(prog.body)
    n, mv, a, b = f"n{k}", f"mv{k}", f"m{k}a", f"m{k}b"
    prog.body.append(
        f"    pixel parac_matrix {mv}[H][W];\n"
        f"    int {n} = H - {h};\n"
        f"    parac_iterator {a}(0:{n}:1; 0:W:1) {{\n"
        f"        {mv}[{a}x][{a}y] = (pixel)(clampv({S}[{a}x][{a}y] * {prog.num(c1)} + {prog.num(c2)}));\n    }}\n"
        f"    {n} = {n} + {h};\n"
        f"    parac_iterator {b}(0:{n}:1; 0:W:1) {{\n"
        f"        {dst}[{b}x][{b}y] = (pixel)(clampv({dst}[{b}x][{b}y] + {mv}[{b}x][{b}y] + {S}[{b}x][{b}y]));\n    }}\n")

    def moved(p, step=step):
        step(p)
        lim = (p.const(-LIMIT), p.const(LIMIT))
        X, Y = grid(p.H - h, p.W)
        e = Env(p, X, Y)
        m = np.zeros((p.H, p.W), np.float32 if p.flt else np.int64)
        m[X, Y] = store(np.clip(p.arith(p.arith(e.read(S, 0, 0) * p.const(c1)) + p.const(c2)), *lim), p.dt)
        X, Y = _full(p)
        e = Env(p, X, Y)
        v2 = p.arith(p.arith(e.read(dst, 0, 0) + m[X, Y]) + e.read(S, 0, 0))
        p.mats[dst] = store(np.clip(v2, *lim), p.dt)
    return moved


STAGES = {"point": stage_point, "window": stage_window, "whole": stage_whole, "reduce": stage_reduce,
          "vector": stage_vector, "element": stage_element, "inplace": stage_inplace, "blocks": stage_blocks,
          "gather": stage_gather, "scatter": stage_scatter, "loop": stage_loop}


LEADS = list(STAGES) + ["window:" + op for op in WINDOW_OPS]


def draw(rng, dt=None, lead=None):
    """(source text, oracle function of the input planes, dtype, kinds used):
    two to five random stages, the first of kind `lead` when given (a name of
    LEADS; "window:OP" for a window of operator OP)."""
    dt = dt or ["u8", "u16", "i32", "f32"][int(rng.integers(0, 4))]
    prog = Program(rng, dt, 0, 0, 0)
    n = int(rng.integers(2, 6))
    names = [str(k) for k in rng.choice(list(STAGES), n)]
    if lead:
        kind, _, op = lead.partition(":")
        names[0] = kind
        if op:
            prog.force["window"] = op
    steps, srcs = [], ["I"]
    temps = []
    for k, kind in enumerate(names):
        dst = f"A{k + 1}"
        temps.append(dst)
        mark = len(prog.body)
        step = STAGES[kind](prog, srcs, dst)
        if step is None:
            step = stage_point(prog, srcs, dst)
        hashed = zlib.crc32(("moved" + "".join(prog.body[mark:])).encode())
        if hashed % 4 == 0:
            step = moved_bounds(prog, srcs, dst, step, hashed >> 2)
        if zlib.crc32("".join(prog.body[mark:]).encode()) % 10 < 3:
            # the stage as a function of the file, called with the plane's matrices
            # (declared ones among them: padded rows, on the device only); chosen
            # by the stage's text, not the generator, whose draws stay as they were
            fn = f"stage_fn{k + 1}"
            params = ", ".join(f"pixel parac_matrix &{m}[H][W]" for m in srcs + [dst])
            prog.helpers.append(f"static void {fn}(int H, int W, {params})\n{{\n" + "".join(prog.body[mark:]) + "}\n\n")
            del prog.body[mark:]
            prog.body.append(f"    {fn}(H, W, {', '.join(srcs + [dst])});\n")
            prog.kinds.append("called")
        steps.append(step)
        srcs = srcs + [dst] if len(srcs) < 3 else [srcs[0], srcs[-1], dst]
    # the last stage writes every output pixel
    last = stage_point(prog, srcs[-2:], "O")
    steps.append(last)
    # (drawing nothing: chosen by the program's text) the output through two pyramids
    if zlib.crc32(("pyramid" + "".join(prog.body)).encode()) % 3 == 0:
        steps.append(stage_pyramids(prog))
    T = prog.T
    three_d = rng.random() < 0.4
    wts = [int(rng.integers(-2, 4)) for _ in range(3)]
    decl = "".join(f"    {T} parac_matrix {t}[H][W];\n" for t in temps)
    head = (f'const char parac_main_dtype[] = "{dt}";\n\n'
            f"#define LIMIT {LIMIT}\n" + MACRO_LINES +
            f"typedef {T} pixel;\n\n"
            f"static {prog.V} clampv({prog.V} v) {{ return v < -LIMIT ? -LIMIT : v > LIMIT ? LIMIT : v; }}\n\n")
    plane = (f"static void plane(int H, int W, pixel *in_data, pixel *out_data)\n{{\n"
             f"    pixel parac_matrix &I[H][W] = in_data;\n"
             f"    pixel parac_matrix &O[H][W] = out_data;\n" + decl + "".join(prog.body) + "}\n\n")
    main = (f"void parac_main(int C, int H, int W, pixel *in, pixel *out)\n{{\n"
            f"    for (int c = 0; c < C; c++)\n"
            f"        plane(H, W, in + (long)c * H * W, out + (long)c * H * W);\n")
    if three_d:
        prog.kinds.append("channels")
        wt = "float" if prog.flt else "int"
        main += (f"    pixel parac_matrix &P[C][H][W] = out;\n"
                 f"    {wt} parac_matrix wts[3][1] = {{{', '.join(prog.num(w) for w in wts)}}};\n"
                 f"    parac_iterator ch(0:C:1; 0:H:1; 0:W:1) {{\n"
                 f"        P[chx][chy][chz] = (pixel)(clampv(P[chx][chy][chz] * wts[chx % 3][0] + chx));\n    }}\n")
    # (drawing nothing: chosen by the program's text) then a maximum over a window across the
    # planes and the columns, through two rules on the 3-D matrix named together: the planes
    # repeated, the columns (and the edges between) a constant
    rules3d = three_d and zlib.crc32(main.encode() + "".join(prog.body).encode()) % 2 == 0
    if rules3d:
        prog.kinds.append("channels_rules3d")
        kc = prog.num(7)
        main += (f"    pixel parac_matrix Q[C][H][W];\n"
                 f"    parac_border_rule pl {{ P[-1][*][*] = P[0][*][*]; P[+1][*][*] = P[C - 1][*][*]; }}\n"
                 f"    parac_border_rule co {{\n"
                 f"        P[*][*][-1] = P[*][*][+1] = {kc};\n"
                 f"        P[-1][*][-1] = P[-1][*][+1] = P[+1][*][-1] = P[+1][*][+1] = {kc};\n    }}\n"
                 f"    parac_iterator cq(0:C:1; 0:H:1; 0:W:1) parac_border_rule(pl, co) {{\n"
                 f"        Q[cqx][cqy][cqz] = parac_matrix_max(P[cqx - 1:3:1][cqy][cqz - 1:3:1]);\n    }}\n"
                 f"    parac_iterator cb(0:C:1; 0:H:1; 0:W:1) {{ P[cbx][cby][cbz] = Q[cbx][cby][cbz]; }}\n")
    main += "}\n"
    src = head + "".join(prog.helpers) + plane + main

    def oracle(img):
        C, H, W = img.shape
        out = np.zeros(img.shape, np.float32 if prog.flt else np.int64)
        for c in range(C):
            prog.H, prog.W = H, W
            prog.mats = {"I": img[c].astype(np.float32 if prog.flt else np.int64)}
            for t in temps:
                prog.mats[t] = np.zeros((H, W), np.float32 if prog.flt else np.int64)
            for s in steps:
                s(prog)
            out[c] = prog.mats["O"]
        if three_d:
            for c in range(C):
                v = prog.arith(out[c] * prog.const(wts[c % 3]))
                v = prog.arith(v + prog.const(c))
                out[c] = store(np.clip(v, prog.const(-LIMIT), prog.const(LIMIT)), dt)
        if rules3d:
            pp = np.concatenate([out[:1], out, out[-1:]], axis=0)
            pc = np.full((C + 2, H, W + 2), prog.const(7), out.dtype)
            pc[:, :, 1:-1] = pp
            out = np.max([pc[i:i + C, :, j:j + W] for i in range(3) for j in range(3)], axis=0)
        return out.astype(TYPES[dt][1])
    return src, oracle, dt, list(prog.kinds)
