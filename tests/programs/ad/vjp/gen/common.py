"""Shared helpers of the reverse-mode corpus generators.

Each generator script defines programs as gradus source text plus, for every entry point, a
Python function that computes the expected results independently (JAX with 64-bit floats, or
numpy / plain Python with hand-derived formulas where JAX's conventions differ from gradus's,
e.g. ties of min/max and integer leaves). `Program.write` inserts a `-- ==` test block before
each `entry NAME` line and writes the `.fut` file.
"""

import math
import os
import sys

import numpy as np

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
VJP_DIR = os.path.normpath(os.path.join(HERE, ".."))
HESSIAN_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "hessian"))

__all__ = ["jax", "jnp", "np", "f64", "f32", "i32", "i64", "u8", "Program", "fmt", "VJP_DIR", "HESSIAN_DIR"]


def f64(x):
    return np.asarray(x, dtype=np.float64)


def f32(x):
    return np.asarray(x, dtype=np.float32)


def i32(x):
    return np.asarray(x, dtype=np.int32)


def i64(x):
    return np.asarray(x, dtype=np.int64)


def u8(x):
    return np.asarray(x, dtype=np.uint8)


_SUFFIX = {
    np.dtype(np.float64): "",
    np.dtype(np.float32): "f32",
    np.dtype(np.int32): "",
    np.dtype(np.int64): "i64",
    np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
}


def _scalar(v, dt):
    if dt == np.dtype(bool):
        return "true" if bool(v) else "false"
    suf = _SUFFIX[dt]
    if dt.kind == "f":
        x = float(v)
        name = "f64" if dt == np.dtype(np.float64) else "f32"
        if math.isnan(x):
            return name + ".nan"
        if math.isinf(x):
            return ("-" if x < 0 else "") + name + ".inf"
        if dt == np.dtype(np.float32):
            y = np.float32(x)
            if y == 0 or 1e-4 <= abs(y) < 1e7:
                s = np.format_float_positional(y, unique=True, trim="0")
            else:
                s = np.format_float_scientific(y, unique=True, trim="0")
            if s.endswith("."):
                s += "0"
            s = s.replace("e+", "e")
        else:
            s = repr(x)
        if "." not in s and "e" not in s and "inf" not in s:
            s += ".0"
        return s + suf
    return str(int(v)) + suf


def fmt(v):
    """A value (numpy scalar/array, python bool, or tuple of them) in the textual format."""
    if isinstance(v, tuple):
        return " ".join(fmt(x) for x in v)
    if isinstance(v, bool):
        return "true" if v else "false"
    a = np.asarray(v)
    dt = a.dtype
    if a.ndim == 0:
        return _scalar(a[()], dt)
    if a.size == 0:
        name = {np.dtype(np.float64): "f64", np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
                np.dtype(np.int64): "i64", np.dtype(bool): "bool"}[dt]
        return "empty(" + "".join("[%d]" % d for d in a.shape) + name + ")"

    def rec(x):
        if x.ndim == 0:
            return _scalar(x[()], dt)
        return "[" + ", ".join(rec(y) for y in x) + "]"

    return rec(a)


def _as_outputs(r):
    if isinstance(r, tuple):
        out = []
        for x in r:
            out.extend(_as_outputs(x))
        return out
    if isinstance(r, list):
        raise TypeError("return tuples, not lists")
    return [np.asarray(r) if not isinstance(r, bool) else r]


class Program:
    def __init__(self, name, doc, source, directory=None):
        self.name = name
        self.doc = doc
        self.source = source.strip("\n")
        self.directory = directory or VJP_DIR
        self.tests = {}

    def test(self, entry, fn, cases, dtypes=None):
        """Adds cases for `entry`: `cases` is a list of input tuples; `fn(*inputs)` gives the
        expected results (a value or a tuple); `dtypes` optionally casts each result."""
        block = []
        for inp in cases:
            if not isinstance(inp, tuple):
                inp = (inp,)
            res = fn(*inp)
            outs = _as_outputs(res)
            if dtypes is not None:
                outs = [np.asarray(o, dtype=d) for o, d in zip(outs, dtypes)]
            block.append((inp, outs))
        self.tests.setdefault(entry, []).extend(block)
        return self

    def write(self):
        lines = ["-- " + l if l else "--" for l in self.doc.strip().split("\n")]
        lines.append("")
        seen = set()
        src = self.source.split("\n")
        for idx, line in enumerate(src):
            if line.startswith("entry "):
                name = line.split()[1]
                if name in self.tests and name not in seen:
                    seen.add(name)
                    block = ["-- ==", "-- entry: " + name]
                    for inp, outs in self.tests[name]:
                        block.append("-- input { %s }" % " ".join(fmt(x) for x in inp))
                        block.append("-- output { %s }" % " ".join(fmt(o) for o in outs))
                    lines.extend(block)
            lines.append(line)
        missing = set(self.tests) - seen
        if missing:
            sys.exit("%s: no entry line for %s" % (self.name, sorted(missing)))
        path = os.path.join(self.directory, self.name + ".fut")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path


def vjp(f, x, yb):
    """JAX reverse mode. `x` is one argument, or a tuple of arguments when `f` takes several;
    the result is the cotangent (a tuple for several arguments)."""
    if isinstance(x, tuple):
        _, back = jax.vjp(f, *x)
        return tuple(np.asarray(r) if not isinstance(r, tuple) else r for r in back(yb))
    _, back = jax.vjp(f, x)
    return np.asarray(back(yb)[0])


def rng(seed):
    return np.random.default_rng(seed)


def rand(seed, *shape, lo=-1.0, hi=1.0, dtype=np.float64):
    """Reproducible inputs with few decimals, so the test files stay readable."""
    r = np.random.default_rng(seed).uniform(lo, hi, size=shape)
    return np.round(r, 2).astype(dtype)


__all__ += ["vjp", "rng", "rand"]
