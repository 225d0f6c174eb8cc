"""gradus entry points as JAX functions: ``gradus.jax.function(prog, "objective")``.

The function works under ``jax.jit``, ``jax.grad``, ``jax.vjp``, ``jax.jvp`` and ``jax.vmap``,
and its derivatives are gradus's own, compiled on demand (``prog.jvp`` and ``prog.vjp`` or
``prog.grad`` of the entry point, with respect to the parameters JAX differentiates). It is a
JAX primitive with three modes:

- ``f``: the entry point, ``args -> results``;
- ``jvp``: its forward derivative, ``(args, xdot) -> ydot``, linear in ``xdot``;
- ``vjp``: its reverse derivative, ``(args, ybar) -> xbar``, the transpose of ``jvp`` (for
  an entry point with one float scalar result, ``ybar`` times ``prog.grad``).

The JVP rule of ``f`` calls ``jvp``; the transpose rule of ``jvp`` calls ``vjp``. So
``jax.jvp`` runs gradus's forward mode, and ``jax.grad`` (which JAX builds as the transpose
of the JVP) runs gradus's reverse mode; neither evaluates the other. ``jax.vmap`` runs the
call once per element of the batch (``lax.map``). Outside ``jax.jit`` the program is called
directly. Inside it, on the CPU, the call goes through XLA's FFI to gradus's handler in the
extension module (``call="ffi"``: the program reads XLA's buffers where they lie, its results
are copied once into XLA's, no Python runs); elsewhere, or where the FFI cannot take the call
(arguments whose dtypes are not the parameters', as f64 without ``jax_enable_x64``), it is a
``jax.pure_callback`` that hands the arrays to the program as numpy arrays on the host
(``call="callback"``). ``call="auto"`` (the default) takes the FFI where it can.

Derivatives of derivatives (``jax.hessian``, ``jax.grad`` of ``jax.grad``, ``jax.jvp`` of a
gradient) are gradus's too: the JVP rule of ``jvp`` and ``vjp`` is the JVP rule of ``f`` for
the derived entry point they call (its program derives its own ``jvp``), so ``jax.hessian``
runs gradus's forward mode over its reverse mode, compiled on first use like any derivative.

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

    def __init__(self, prog, entry, result_shapes, call="auto"):
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
        if call not in ("auto", "ffi", "callback"):
            raise ValueError(f'gradus.jax: call={call!r}; expected "auto", "ffi" or "callback"')
        if call == "ffi" and _ffi_target_name() is None:
            raise RuntimeError(f"gradus.jax: XLA's FFI is not available here: {_ffi_state[1]}")
        self.call_mode = call
        self._derived = {}
        self._targets = {}
        self._nested = {}

    def derived(self, kind, wrt):
        """``prog.KIND(entry, wrt)``, derived on first use."""
        key = (kind, wrt)
        if key not in self._derived:
            self._derived[key] = getattr(self.prog, kind)(self.entry, wrt=list(wrt))
        return self._derived[key]

    def nested(self, mode, wrt):
        """The derived entry point that mode ``jvp`` or ``vjp`` calls, as a function of its
        own (``jvp``: the point and the tangents; ``vjp``: the point and the cotangents; the
        primal results come first among its results), to be differentiated in turn."""
        key = (mode, wrt)
        if key not in self._nested:
            ep = self.derived(mode, wrt).entry_point
            shapes = self._nested_shapes(mode, wrt)
            self._nested[key] = _Fn(ep.program, ep.name, shapes, self.call_mode)
        return self._nested[key]

    def _nested_shapes(self, mode, wrt):
        """``result_shapes`` of :meth:`nested`: the primal results', then the derivatives'."""
        if self.result_shapes is None:
            return None
        nparams = len(self.params)

        def shapes(*all_shapes):
            primal = [tuple(s) for s in self.result_shapes(*all_shapes[:nparams])]
            if mode == "jvp":
                return primal + primal
            return primal + [tuple(all_shapes[k]) for k in wrt]

        return shapes

    def target(self, mode, wrt):
        """The FFI target of a mode: ``(index, how many leading arguments it takes, whether
        its results are scaled by the last argument)``; registered on first use."""
        key = (mode, wrt)
        if key not in self._targets:
            nparams, nres = len(self.params), len(self.results)
            if mode == "f":
                plan = (self.call._xla_target(0), nparams, False)
            elif mode == "jvp":
                ep = self.derived("jvp", wrt).entry_point
                plan = (ep._xla_target(nres), nparams + len(wrt), False)
            elif self.scalar_result:
                plan = (self.derived("grad", wrt).entry_point._xla_target(0), nparams, True)
            else:
                ep = self.derived("vjp", wrt).entry_point
                plan = (ep._xla_target(nres), nparams + nres, False)
            self._targets[key] = plan
        return self._targets[key]

    def arg_dtypes(self, mode, wrt):
        """The dtypes of a mode's arguments, as the program takes them."""
        point = [dt for _, _, dt in self.params]
        if mode == "f":
            return point
        if mode == "jvp":
            return point + [self.params[k][2] for k in wrt]
        return point + [dt for _, dt in self.results]

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


# The FFI target: gradus's handler in the extension module, registered with XLA on first use.
# `_ffi_state` is (name, None) once registered, (None, why) where it cannot be.
_FFI_TARGET = "gradus_call"
_ffi_state = None


def _ffi_target_name():
    """The registered target's name, or None where XLA's FFI is not available."""
    global _ffi_state
    if _ffi_state is None:
        try:
            from gradus import _gradus

            capsule = jax.ffi.pycapsule(_gradus._xla_handler())
            jax.ffi.register_ffi_target(_FFI_TARGET, capsule, platform="cpu")
            _ffi_state = (_FFI_TARGET, None)
        except Exception as e:  # an older JAX without jax.ffi, a failed registration
            _ffi_state = (None, f"{type(e).__name__}: {e}")
    return _ffi_state[0]


def _ffi_refusal(args, avals, fn, mode, wrt):
    """Why this call cannot go through the FFI (None: it can)."""
    if _ffi_target_name() is None:
        return f"XLA's FFI is not available: {_ffi_state[1]}"
    for k, (a, dt) in enumerate(zip(args, fn.arg_dtypes(mode, wrt))):
        if a.dtype != dt:
            return (
                f"argument {k} is {a.dtype}, the program takes {dt} (f64 needs "
                "jax.config.update('jax_enable_x64', True))"
            )
    want = [fn.params[k][2] for k in wrt] if mode == "vjp" else [dt for _, dt in fn.results]
    for k, (a, dt) in enumerate(zip(avals, want)):
        if a.dtype != dt:
            return f"result {k} would be {a.dtype}, the program gives {dt}"
    return None


def _lowered_other(*args, fn, mode, wrt):
    """On platforms other than the CPU: the callback (the arrays are copied to the host)."""
    if fn.call_mode == "ffi":
        raise ValueError(
            f"gradus.jax: `{fn.entry}` was made with call=\"ffi\", which runs on the CPU only"
        )
    return _lowered(*args, fn=fn, mode=mode, wrt=wrt)


def _lowered_cpu(*args, fn, mode, wrt):
    """On the CPU: through XLA's FFI where the call allows it, else as ``_lowered``."""
    avals = _avals(args, fn, mode, wrt)
    if fn.call_mode == "callback":
        return _lowered(*args, fn=fn, mode=mode, wrt=wrt)
    why = _ffi_refusal(args, avals, fn, mode, wrt)
    if why is not None:
        if fn.call_mode == "ffi":
            raise ValueError(f"gradus.jax: `{fn.entry}` cannot be called through XLA's FFI: {why}")
        return _lowered(*args, fn=fn, mode=mode, wrt=wrt)
    index, nargs, scaled = fn.target(mode, wrt)
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in avals]
    call = jax.ffi.ffi_call(_FFI_TARGET, specs, vmap_method="sequential")
    out = call(*args[:nargs], gradus_target=np.uint64(index))
    if scaled:
        # xbar = ybar * grad (see _host); the multiplication is XLA's.
        out = [args[-1].astype(o.dtype) * o for o in out]
    return out


def _jvp_rule(primals, tangents, *, fn, mode, wrt):
    if mode != "f":
        # A derivative's derivative: the JVP of the derived entry point the mode calls,
        # without its leading primal results.
        inner = fn.nested(mode, wrt)
        # JAX may pass a seed as a Python number: every argument an array of its dtype.
        primals = [
            jnp.asarray(p, dtype=jax.dtypes.canonicalize_dtype(dt))
            for p, (_, _, dt) in zip(primals, inner.params)
        ]
        out, dout = _jvp_rule(primals, tangents, fn=inner, mode="f", wrt=())
        skip = len(fn.results)
        return out[skip:], dout[skip:]
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
mlir.register_lowering(_call_p, mlir.lower_fun(_lowered_other, multiple_results=True))
mlir.register_lowering(
    _call_p, mlir.lower_fun(_lowered_cpu, multiple_results=True), platform="cpu"
)
ad.primitive_jvps[_call_p] = _jvp_rule
ad.primitive_transposes[_call_p] = _transpose_rule
batching.primitive_batchers[_call_p] = _batch_rule


def function(prog, entry, *, result_shapes=None, call="auto"):
    """The entry point ``entry`` of the gradus program ``prog`` as a JAX function.

    It takes the entry point's arguments (JAX or numpy arrays, numbers) and returns its
    result, or a tuple for several. Under ``jax.grad``, ``jax.vjp`` and ``jax.jvp`` its
    derivatives with respect to every float parameter are gradus's (integer parameters get no
    derivative). ``result_shapes``: a function from the arguments' shapes to the results'
    shapes, for results whose sizes are not sizes of the parameters' dimensions.

    ``call``: how a call inside ``jax.jit`` reaches the program. ``"ffi"``: through XLA's FFI
    (CPU only; raises where a call cannot go that way); ``"callback"``: through
    ``jax.pure_callback``; ``"auto"`` (default): the FFI where it can, else the callback.
    """
    fn = _Fn(prog, entry, result_shapes, call)

    @functools.wraps(fn.call)
    def call(*args):
        if len(args) != len(fn.params):
            raise TypeError(
                f"{entry}() takes {len(fn.params)} argument(s) {fn.call.signature}, "
                f"but {len(args)} were given"
            )
        xs = [
            jnp.asarray(a, dtype=jax.dtypes.canonicalize_dtype(dt))
            for a, (_, _, dt) in zip(args, fn.params)
        ]
        out = _call_p.bind(*xs, fn=fn, mode="f", wrt=())
        return out[0] if len(out) == 1 else tuple(out)

    call.__name__ = entry
    call.__doc__ = f"The gradus entry point {entry}{fn.call.signature} as a JAX function."
    return call
