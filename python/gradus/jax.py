"""gradus entry points as JAX functions: ``gradus.jax.function(prog, "objective")``.

The function works under ``jax.jit``, ``jax.grad``, ``jax.vjp``, ``jax.jvp`` and ``jax.vmap``,
and its derivatives are gradus's own, compiled on demand (``prog.jvp`` and ``prog.vjp`` or
``prog.grad`` of the entry point, with respect to the parameters JAX differentiates). It is a JAX primitive with three modes:

- ``f``: the entry point, ``args -> results``;
- ``jvp``: its forward derivative, ``(args, xdot) -> ydot``, linear in ``xdot``;
- ``vjp``: its reverse derivative, ``(args, ybar) -> xbar``, the transpose of ``jvp`` (for
  an entry point with one float scalar result, ``ybar`` times ``prog.grad``).

The JVP rule of ``f`` calls ``jvp``; the transpose rule of ``jvp`` calls ``vjp``. So
``jax.jvp`` runs gradus's forward mode, and ``jax.grad`` (which JAX builds as the transpose
of the JVP) runs gradus's reverse mode; neither evaluates the other. ``jax.vmap`` runs the
call once per element of the batch (``lax.map``). Inside ``jax.jit`` the call is a
``jax.pure_callback`` into the compiled program (the arrays are handed to it as numpy arrays
on the host); outside it, the program is called directly.

Derivatives of a derivative (``jax.hessian`` of a gradus function) are not supported: ask the
program for ``prog.hessian`` instead.

The results' shapes must be known when JAX traces the function: they are found from the
entry point's signature (``(x: [n][d]f64) -> [n]f64`` gives the first result the first
dimension of ``x``). Where a size is not the size of a parameter's dimension (an ``i64``
parameter, a size computed by the program) pass ``result_shapes``, a function from the
arguments' shapes to the results' shapes.
"""

import functools
import re

import numpy as np

import jax
import jax.numpy as jnp
from jax.extend.core import Primitive
from jax.interpreters import ad, batching, mlir

__all__ = ["function"]

_DTYPES = {
    "f64": np.float64,
    "f32": np.float32,
    "i64": np.int64,
    "i32": np.int32,
    "i16": np.int16,
    "i8": np.int8,
    "u64": np.uint64,
    "u32": np.uint32,
    "u16": np.uint16,
    "u8": np.uint8,
    "bool": np.bool_,
}

_DIM = re.compile(r"\[([^\]]*)\]")


def _parse(ty):
    """``"[n][3]f64"`` -> (["n", "3"], np.float64)."""
    dims = _DIM.findall(ty)
    elem = ty[ty.rfind("]") + 1 :] if dims else ty
    if elem not in _DTYPES:
        raise TypeError(f"gradus.jax: the type {ty} cannot be exchanged with JAX")
    return dims, np.dtype(_DTYPES[elem])


class _Fn:
    """What the primitive needs about one entry point (hashed by identity)."""

    def __init__(self, prog, entry, result_shapes):
        ep = prog[entry]
        self.prog = prog
        self.entry = entry
        self.call = ep
        self.params = [(name, *_parse(ty)) for name, ty in ep.parameters]
        self.results = [_parse(ty) for ty in ep.results]
        self.floats = [k for k, (_, _, dt) in enumerate(self.params) if dt.kind == "f"]
        if not self.floats:
            raise ValueError(f"gradus.jax: `{entry}` has no float parameter to differentiate")
        self.scalar_result = len(self.results) == 1 and not self.results[0][0] and (
            self.results[0][1].kind == "f"
        )
        self.result_shapes = result_shapes
        self._derived = {}

    def derived(self, kind, wrt):
        """``prog.KIND(entry, wrt)``, derived on first use."""
        key = (kind, wrt)
        if key not in self._derived:
            self._derived[key] = getattr(self.prog, kind)(self.entry, wrt=list(wrt))
        return self._derived[key]

    def out_shapes(self, shapes):
        """The results' shapes, from the arguments' shapes."""
        if self.result_shapes is not None:
            return [tuple(s) for s in self.result_shapes(*shapes)]
        sizes = {}
        for (name, dims, _), shape in zip(self.params, shapes):
            for d, n in zip(dims, shape):
                if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_']*", d):
                    sizes.setdefault(d, n)
        out = []
        for dims, _ in self.results:
            shape = []
            for d in dims:
                try:
                    shape.append(int(eval(d, {"__builtins__": {}}, dict(sizes))))
                except Exception:
                    raise ValueError(
                        f"gradus.jax: the size [{d}] of a result of `{self.entry}` is not "
                        "known from the arguments' shapes; pass result_shapes="
                    ) from None
            out.append(tuple(shape))
        return out

    def out_dtypes(self):
        return [jax.dtypes.canonicalize_dtype(dt) for _, dt in self.results]


def _tuple(r):
    return r if isinstance(r, tuple) else (r,)


def _host(fn, mode, wrt, out_dtypes, *args):
    """Runs one mode of the entry point on numpy arrays (the callback's body)."""
    nparams = len(fn.params)
    point = [np.asarray(a, dtype=dt) for a, (_, _, dt) in zip(args[:nparams], fn.params)]
    rest = args[nparams:]
    if mode == "f":
        out = _tuple(fn.call(*point))
    elif mode == "jvp":
        dots = [np.asarray(a, dtype=fn.params[k][2]) for a, k in zip(rest, wrt)]
        out = _tuple(fn.derived("jvp", wrt)(*point, *dots)[1])
    elif fn.scalar_result:
        # xbar = ybar * grad: the gradient entry point is the hand-written one's code (its
        # seed is the constant 1, which the optimiser folds in), cheaper than a general vjp.
        ybar = np.asarray(rest[0], dtype=fn.results[0][1])
        out = _tuple(fn.derived("grad", wrt)(*point))
        if ybar != 1:
            out = tuple(ybar * np.asarray(o) for o in out)
    else:
        bars = [np.asarray(a, dtype=dt) for a, (_, dt) in zip(rest, fn.results)]
        out = _tuple(fn.derived("vjp", wrt)(*point, *bars)[1])
    return tuple(np.asarray(o, dtype=dt) for o, dt in zip(out, out_dtypes))


_call_p = Primitive("gradus_call")
_call_p.multiple_results = True


def _avals(args, fn, mode, wrt):
    shapes = [a.shape for a in args[: len(fn.params)]]
    if mode == "vjp":
        return [
            jax.core.ShapedArray(shapes[k], jax.dtypes.canonicalize_dtype(fn.params[k][2]))
            for k in wrt
        ]
    return [
        jax.core.ShapedArray(s, dt) for s, dt in zip(fn.out_shapes(shapes), fn.out_dtypes())
    ]


def _abstract(*args, fn, mode, wrt):
    return _avals(args, fn, mode, wrt)


def _impl(*args, fn, mode, wrt):
    avals = _avals(args, fn, mode, wrt)
    out = _host(fn, mode, wrt, [a.dtype for a in avals], *[np.asarray(a) for a in args])
    return [jnp.asarray(o) for o in out]


def _lowered(*args, fn, mode, wrt):
    avals = _avals(args, fn, mode, wrt)
    specs = tuple(jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals)
    host = functools.partial(_host, fn, mode, wrt, [a.dtype for a in avals])
    return jax.pure_callback(host, specs, *args, vmap_method="sequential")


def _jvp_rule(primals, tangents, *, fn, mode, wrt):
    if mode != "f":
        raise NotImplementedError(
            "gradus.jax: derivatives of derivatives are not supported; ask the program for "
            "prog.hessian or write the nested derivative in the program"
        )
    out = _call_p.bind(*primals, fn=fn, mode="f", wrt=())
    # Only the parameters with a tangent are differentiated: gradus derives the jvp (and, on
    # transposition, the gradient) with respect to those alone.
    wrt = tuple(k for k in fn.floats if type(tangents[k]) is not ad.Zero)
    if not wrt:
        return out, [ad.Zero(jax.typeof(o).to_tangent_aval()) for o in out]
    dots = [tangents[k] for k in wrt]
    ydot = _call_p.bind(*primals, *dots, fn=fn, mode="jvp", wrt=wrt)
    return out, ydot


def _transpose_rule(cts, *args, fn, mode, wrt):
    if mode != "jvp":
        raise NotImplementedError("gradus.jax: only the forward derivative is transposed")
    nparams = len(fn.params)
    point = args[:nparams]
    if any(ad.is_undefined_primal(a) for a in point):
        raise NotImplementedError("gradus.jax: the point of a derivative is not differentiable")
    shapes = [a.shape for a in point]
    bars = []
    for ct, shape, dt in zip(cts, fn.out_shapes(shapes), fn.out_dtypes()):
        bars.append(jnp.zeros(shape, dt) if type(ct) is ad.Zero else ct)
    xbar = _call_p.bind(*point, *bars, fn=fn, mode="vjp", wrt=wrt)
    return [None] * nparams + list(xbar)


def _batch_rule(args, dims, **params):
    # An unbatched argument has dimension None (JAX's `not_mapped`).
    batched = [d is not None for d in dims]
    moved = [jnp.moveaxis(a, d, 0) if b else a for a, d, b in zip(args, dims, batched)]

    def one(xs):
        it = iter(xs)
        full = [next(it) if b else a for a, b in zip(moved, batched)]
        return tuple(_call_p.bind(*full, **params))

    out = jax.lax.map(one, [a for a, b in zip(moved, batched) if b])
    return list(out), [0] * len(out)


_call_p.def_impl(_impl)
_call_p.def_abstract_eval(_abstract)
mlir.register_lowering(_call_p, mlir.lower_fun(_lowered, multiple_results=True))
ad.primitive_jvps[_call_p] = _jvp_rule
ad.primitive_transposes[_call_p] = _transpose_rule
batching.primitive_batchers[_call_p] = _batch_rule


def function(prog, entry, *, result_shapes=None):
    """The entry point ``entry`` of the gradus program ``prog`` as a JAX function.

    It takes the entry point's arguments (JAX or numpy arrays, numbers) and returns its
    result, or a tuple for several. Under ``jax.grad``, ``jax.vjp`` and ``jax.jvp`` its
    derivatives with respect to every float parameter are gradus's (integer parameters get no
    derivative). ``result_shapes``: a function from the arguments' shapes to the results'
    shapes, for results whose sizes are not sizes of the parameters' dimensions.
    """
    fn = _Fn(prog, entry, result_shapes)

    @functools.wraps(fn.call)
    def call(*args):
        if len(args) != len(fn.params):
            raise TypeError(
                f"{entry}() takes {len(fn.params)} argument(s) {fn.call.signature}, "
                f"but {len(args)} were given"
            )
        xs = [jnp.asarray(a, dtype=jax.dtypes.canonicalize_dtype(dt)) for a, (_, _, dt) in zip(args, fn.params)]
        out = _call_p.bind(*xs, fn=fn, mode="f", wrt=())
        return out[0] if len(out) == 1 else tuple(out)

    call.__name__ = entry
    call.__doc__ = f"The gradus entry point {entry}{fn.call.signature} as a JAX function."
    return call
