"""parac.compile: ParaC source compiled by paracc (the C target with OpenMP,
or the OpenCL target: kernels plus host code on libparac's OpenCL runtime)
and the system C compiler into a shared library, its functions callable on
NumPy arrays.

A matrix parameter that some parallel region writes (paracc's analysis) is an
output: allocated when not given, and returned; the others are inputs. Scalar
parameters that name a matrix dimension are taken from the arrays' shapes;
the others are passed by position or keyword."""
import ctypes
import os
import re
import shutil
import subprocess
import tempfile
import weakref

_C_TYPES = {  # C type -> (NumPy dtype, ctypes type)
    "unsigned char": ("uint8", ctypes.c_ubyte), "uint8_t": ("uint8", ctypes.c_uint8),
    "char": ("int8", ctypes.c_byte), "signed char": ("int8", ctypes.c_byte), "int8_t": ("int8", ctypes.c_int8),
    "unsigned short": ("uint16", ctypes.c_ushort), "uint16_t": ("uint16", ctypes.c_uint16),
    "short": ("int16", ctypes.c_short), "int16_t": ("int16", ctypes.c_int16),
    "int": ("int32", ctypes.c_int), "int32_t": ("int32", ctypes.c_int32),
    "unsigned": ("uint32", ctypes.c_uint), "unsigned int": ("uint32", ctypes.c_uint),
    "uint32_t": ("uint32", ctypes.c_uint32), "long": ("int64", ctypes.c_long),
    "long long": ("int64", ctypes.c_longlong), "int64_t": ("int64", ctypes.c_int64),
    "float": ("float32", ctypes.c_float), "double": ("float64", ctypes.c_double),
}


def _paracc():
    """The compiler: $PARACC, then beside the package (pip install), the
    build tree's bin/ (a CMake build's build/python), then PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    for p in (os.environ.get("PARACC"), os.path.join(here, "bin", "paracc"),
              os.path.join(here, "..", "..", "bin", "paracc"), shutil.which("paracc")):
        if p and os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    raise RuntimeError("parac.compile: paracc not found (set PARACC to the compiler)")


def _library_paths():
    """(include directories, library directory) of libparac for the OpenCL
    target's host code: $PARAC_INCLUDE_DIR / $PARAC_LIB_DIR, then inside the
    package (pip install), then the build tree (CMake's _build_paths.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("PARAC_INCLUDE_DIR") and os.environ.get("PARAC_LIB_DIR"):
        return [os.environ["PARAC_INCLUDE_DIR"]], os.environ["PARAC_LIB_DIR"]
    if os.path.isfile(os.path.join(here, "include", "parac", "opencl.h")):
        return [os.path.join(here, "include")], os.path.join(here, "lib")
    try:
        from . import _build_paths
    except ImportError:
        raise RuntimeError("parac.compile: libparac's headers and shared library were not found (set "
                           "PARAC_INCLUDE_DIR and PARAC_LIB_DIR)") from None
    return list(_build_paths.INCLUDE_DIRS), _build_paths.LIB_DIR


def _cc_command(cc, target, source, so):
    """The C compiler's command line for paracc's output of `target`."""
    # -Bsymbolic: the library's calls of its own functions stay inside it, even
    # where a function is named as a symbol of the process (data_start, environ)
    cmd = [cc, "-O2", "-std=c11", "-shared", "-fPIC", "-Wl,-Bsymbolic", source, "-o", so]
    if target == "c":
        # it runs where it is compiled: the host's vector width (-std=c11
        # keeps floating-point contraction off, so results stay exact); math
        # functions in SIMD lanes (a call that may set errno keeps a loop scalar)
        return cmd + ["-march=native", "-fno-math-errno", "-fopenmp", "-lm"]
    includes, libdir = _library_paths()
    # an installed package holds the library under its soname only (libparac.so.N)
    lib = "-lparac"
    if not os.path.exists(os.path.join(libdir, "libparac.so")):
        sonames = sorted(f for f in os.listdir(libdir) if re.fullmatch(r"libparac\.so\.\d+", f))
        if sonames:
            lib = "-l:" + sonames[0]
    return cmd + ["-I" + d for d in includes] + ["-L" + libdir, lib, "-Wl,-rpath," + libdir, "-lm"]


def _strip_comments(src):
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


class _Param:
    def __init__(self, text):
        text = " ".join(text.replace("const ", " ").split())
        self.matrix = "parac_matrix" in text
        if self.matrix:
            ctype, rest = text.split("parac_matrix", 1)
            m = re.match(r"\s*&?\s*(\w+)\s*((?:\[[^\]]*\])+)\s*$", rest)
            if not m:
                raise ValueError("parac.compile: cannot read the parameter %r" % text)
            self.name, self.dims = m.group(1), re.findall(r"\[([^\]]*)\]", m.group(2))
        else:
            m = re.match(r"(.*?)\s*(\w+)\s*$", text)
            ctype, self.name, self.dims = m.group(1), m.group(2), []
        self.ctype = " ".join(ctype.split())
        if self.ctype not in _C_TYPES:
            raise ValueError("parac.compile: parameter %s has type %r, which Python calls do not take yet" % (
                self.name, self.ctype))


def _split_top(text):
    """text split at commas outside brackets and parentheses."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "([" and 1 or c in ")]" and -1 or 0
        if c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip() and p.strip() != "void"]


def _functions(src):
    """(name, [params]) of every exported function definition with a matrix parameter."""
    src = _strip_comments(src)
    out = []
    for m in re.finditer(r"\b(\w+)\s*\(", src):
        depth, i = 1, m.end()
        while i < len(src) and depth:
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
        rest = src[i:].lstrip()
        line_start = src.rfind("\n", 0, m.start()) + 1
        at_top = not src[line_start:m.start()].startswith((" ", "\t"))  # a definition starts its line
        if depth or not rest.startswith("{") or not at_top:
            continue
        params = _split_top(src[m.end():i - 1])
        words = src[line_start:m.start()].split()
        if "static" in words:  # not exported: no NAME_try() to call
            continue
        if any("parac_matrix" in p for p in params):
            ret = " ".join(src[line_start:m.start()].replace("inline", " ").split())
            out.append((m.group(1), ret, [_Param(p) for p in params]))
    return out


def _written(analysis):
    """Names of the matrices some region writes, from paracc --dump=analysis."""
    return set(re.findall(r"^\s*var (\w+): write", analysis, flags=re.M))


def _macros(src):
    """The source's object-like #defines and enumeration constants: name ->
    body (comments out); a name defined twice or #undef'd has no one value and
    is left out, as paracc leaves it out of its constants."""
    found, twice = {}, set()
    for m in re.finditer(r"^[ \t]*#[ \t]*(define|undef)[ \t]+(\w+)(\(?)(.*)$", src, flags=re.M):
        kind, name, paren, body = m.groups()
        if kind == "undef" or name in found:
            twice.add(name)
        if kind == "define" and not paren:
            found[name] = re.sub(r"/\*.*?\*/", " ", body).split("//")[0].strip()
    # the constants of file-scope enumerations, as paracc takes them: `NAME = expr`,
    # or the one before plus 1 (the first 0)
    for m in re.finditer(r"^[ \t]*(?:typedef\s+)?enum\b[^{;]*\{([^}]*)\}", src, flags=re.M):
        body = re.sub(r"//[^\n]*", " ", re.sub(r"/\*.*?\*/", " ", m.group(1), flags=re.S))
        prev, items, depth, start = None, [], 0, 0
        for i, ch in enumerate(body + ","):  # commas inside parentheses belong to a value
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                items.append(body[start:i])
                start = i + 1
        for item in (i.strip() for i in items):
            if not item:
                continue
            name, _, value = (part.strip() for part in item.partition("="))
            if name in found:
                twice.add(name)
            found[name] = value if value else ("(%s) + 1" % prev if prev else "0")
            prev = name
    return {k: v for k, v in found.items() if k not in twice}


def _dim(expr, values, macros=None, depth=0):
    """A dimension expression (C, integers) with the scalars' values and the
    file's object-like macros."""
    py = re.sub(r"(?<![/])/(?![/])", "//", expr)
    if not re.fullmatch(r"[\w\s+\-*/%()]*", py) or depth > 16:
        raise ValueError("parac.compile: cannot evaluate the dimension %r" % expr)
    env = dict(values)
    for name in set(re.findall(r"[A-Za-z_]\w*", py)) - set(env):
        if macros and name in macros:
            env[name] = _dim(macros[name], values, macros, depth + 1)
    return int(eval(py, {"__builtins__": {}}, env))  # only names, numbers and arithmetic


class _Function:
    def __init__(self, lib, name, ret, params, written, macros=None):
        self.__name__ = name
        self._params = params
        self._macros = macros or {}
        self._outputs = [p for p in params if p.matrix and p.name in written]
        if ret != "void" and ret not in _C_TYPES:
            raise ValueError("parac.compile: %s returns %r, which Python calls do not take yet" % (name, ret))
        self._result = None if ret == "void" else _C_TYPES[ret][1]  # NAME_try's last argument points to it
        self._fn = getattr(lib, name + "_try")
        self._fn.argtypes = [ctypes.c_void_p if p.matrix else _C_TYPES[p.ctype][1] for p in params] + \
            ([ctypes.c_void_p] if self._result else [])
        self._fn.restype = ctypes.c_int
        self._error = getattr(lib, name + "_error")
        self._error.restype = ctypes.c_char_p
        ins = [p.name for p in params if p.matrix and p not in self._outputs]
        self.__doc__ = "%s(%s): the ParaC function %s; returns %s. Scalars that name a matrix dimension " \
                       "default to the arrays' shapes." % (
                           name, ", ".join(ins + [p.name for p in params if not p.matrix] +
                                           ["%s=None" % p.name for p in self._outputs]),
                           name, ", ".join(p.name for p in self._outputs) or "None")

    def __call__(self, *args, **kwargs):
        import numpy as np

        order = [p for p in self._params if p.matrix and p not in self._outputs] + \
                [p for p in self._params if not p.matrix]
        if len(args) > len(order):
            raise TypeError("%s() takes at most %d positional arguments" % (self.__name__, len(order)))
        given = dict(zip((p.name for p in order), args))
        for k, v in kwargs.items():
            if k not in {p.name for p in self._params} or k in given:
                raise TypeError("%s() got an unexpected or repeated argument %r" % (self.__name__, k))
            given[k] = v
        values = {p.name: int(given[p.name]) for p in self._params if not p.matrix and p.name in given}
        for p in self._params:  # scalars that are a dimension of a given array
            if p.matrix and given.get(p.name) is not None:
                a = np.asarray(given[p.name])
                if a.ndim != len(p.dims):
                    raise ValueError("%s(): %s has %d dimensions, the program declares %d" % (
                        self.__name__, p.name, a.ndim, len(p.dims)))
                for d, n in zip(p.dims, a.shape):
                    if re.fullmatch(r"\s*(\w+)\s*", d) and not d.strip().isdigit():
                        values.setdefault(d.strip(), n)
        missing = [p.name for p in self._params if not p.matrix and p.name not in values]
        if missing:
            raise TypeError("%s() missing %s" % (self.__name__, ", ".join(missing)))
        call, outs, keep = [], [], []
        for p in self._params:
            if not p.matrix:
                call.append(given.get(p.name, values[p.name]))
                continue
            shape = tuple(_dim(d, values, self._macros) for d in p.dims)
            dt = np.dtype(_C_TYPES[p.ctype][0])
            a = given.get(p.name)
            if a is None:
                if p not in self._outputs:
                    raise TypeError("%s() missing the input %s" % (self.__name__, p.name))
                a = np.zeros(shape, dt)
            elif p in self._outputs:
                if not (isinstance(a, np.ndarray) and a.dtype == dt and a.shape == shape and a.flags.c_contiguous
                        and a.flags.writeable and a.flags.aligned):
                    raise ValueError("%s(): output %s must be a writable, aligned C-contiguous %s array of shape %s"
                                     % (self.__name__, p.name, dt, shape))
            else:
                a = np.asarray(a)
                if a.shape != shape:
                    raise ValueError("%s(): %s has shape %s, the program declares %s" % (
                        self.__name__, p.name, a.shape, shape))
                if a.dtype != dt:
                    raise TypeError("%s(): %s has dtype %s, the program declares %s" % (
                        self.__name__, p.name, a.dtype, dt))
                a = np.require(a, requirements=("C", "A"))  # C order, aligned: a copy where it is not
            keep.append(a)
            call.append(a.ctypes.data)
            if p in self._outputs:
                outs.append(a)
        result = self._result() if self._result else None
        if result is not None:
            call.append(ctypes.addressof(result))
        status = self._fn(*call)
        if status != 0:
            raise RuntimeError("%s(): %s" % (self.__name__, self._error().decode(errors="replace")))
        if not outs:  # the function's own value, when it has no output matrix
            return result.value if result is not None else None
        return outs[0] if len(outs) == 1 else tuple(outs)


class Program:
    """A compiled ParaC program: each function with matrix parameters is an
    attribute (and, when there is only one, the program itself is callable)."""

    def __init__(self, functions, directory):
        self._functions = functions
        self._cleanup = weakref.finalize(self, shutil.rmtree, directory, True)
        for f in functions:
            setattr(self, f.__name__, f)

    def __call__(self, *args, **kwargs):
        if len(self._functions) != 1:
            raise TypeError("the program has %d functions: call one of %s" % (
                len(self._functions), ", ".join(f.__name__ for f in self._functions)))
        return self._functions[0](*args, **kwargs)


def compile(source, target="c", *, flags=(), cc=None):
    """Compile ParaC source (its text, or the path of a .pc file) and return
    a Program whose functions take and return NumPy arrays.

    ``target``: 'c' (plain C with OpenMP: the host's cores), 'opencl'
    (paracc's OpenCL kernels, run by libparac's OpenCL runtime on the device
    that $PARAC_OPENCL_DEVICE or the runtime's default picks) or 'cuda'
    (paracc's CUDA kernels, compiled by NVRTC when the program first runs and
    cached on disk, on the device $PARAC_CUDA_DEVICE names, else device 0);
    on a device, arrays are copied there and back per call. ``flags``: paracc options (``("-O0",)``, ``("--vector-width",
    "4")``); ``cc``: the C compiler (default $CC, else cc). Compile errors
    raise ValueError with paracc's diagnostics (file:line:col); a run that
    fails (no OpenCL device, out of memory) raises RuntimeError with the
    runtime's message (no CUDA device, or a build of libparac without CUDA)."""
    if target not in ("c", "opencl", "cuda"):
        raise ValueError("parac.compile: target must be 'c', 'opencl' or 'cuda', got %r" % (target,))
    if os.path.isfile(str(source)):
        with open(source) as f:
            text, name = f.read(), os.path.basename(str(source))
    else:
        text, name = str(source), "program.pc"
    d = tempfile.mkdtemp(prefix="parac-compile-")
    try:
        pc = os.path.join(d, name if name.endswith(".pc") else name + ".pc")
        with open(pc, "w") as f:
            f.write(text)
        base = os.path.join(d, "program")
        paracc = _paracc()
        r = subprocess.run([paracc, pc, "--target", target, "-o", base] + list(flags), capture_output=True, text=True)
        if r.returncode != 0:
            raise ValueError("parac.compile: paracc rejected the program:\n" + (r.stderr or r.stdout).strip())
        analysis = subprocess.run([paracc, pc, "--dump=analysis"] + list(flags), capture_output=True, text=True).stdout
        so = os.path.join(d, "program.so")
        cc = cc or os.environ.get("CC") or "cc"
        cmd = _cc_command(cc, target, base + ".c", so)
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0 and "-march=native" in cmd:  # a compiler without it
            r = subprocess.run([a for a in cmd if a != "-march=native"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("parac.compile: %s failed on paracc's output:\n%s" % (cc, r.stderr.strip()))
        lib = ctypes.CDLL(so)
        written = _written(analysis)
        macros = _macros(text)
        functions = [_Function(lib, n, ret, ps, written, macros) for n, ret, ps in _functions(text)]
        if not functions:
            raise ValueError("parac.compile: the program has no function with a parac_matrix parameter")
        return Program(functions, d)
    except BaseException:
        shutil.rmtree(d, True)
        raise
