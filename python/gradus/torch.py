"""gradus entry points as PyTorch functions: ``gradus.torch.function(prog, "objective")``.

The function takes CPU tensors (and numbers) and returns tensors; it is a
``torch.autograd.Function`` whose ``backward`` is gradus's reverse derivative of the entry
point (``prog.vjp`` with respect to every float parameter, compiled on first use). Tensors are
lent to the program without a copy when they are contiguous and of the parameter's dtype (their
memory is read where it lies), and the results are wrapped by ``torch.from_numpy``, also without
a copy. Integer parameters get no gradient. Double backward is not supported (ask the program for
``prog.hessian``).
"""

import numpy as np

import torch

__all__ = ["function"]

_FLOATS = {"f64", "f32"}
_NUMPY = {
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


def _elem(ty):
    return ty[ty.rfind("]") + 1 :]


def _to_numpy(a):
    if isinstance(a, torch.Tensor):
        if a.device.type != "cpu":
            raise ValueError("gradus.torch takes CPU tensors")
        return a.detach().numpy()
    return a


def _to_tensor(o, dtype):
    """A result as a tensor sharing its memory (a scalar as a 0-d tensor of its type)."""
    return torch.from_numpy(np.asarray(o, dtype=dtype))


def _tuple(r):
    return r if isinstance(r, tuple) else (r,)


def function(prog, entry):
    """The entry point ``entry`` of ``prog`` as a differentiable function on tensors."""
    ep = prog[entry]
    params = ep.parameters
    floats = [k for k, (_, ty) in enumerate(params) if _elem(ty) in _FLOATS]
    if not floats:
        raise ValueError(f"gradus.torch: `{entry}` has no float parameter to differentiate")
    param_dtypes = [_NUMPY[_elem(ty)] for _, ty in params]
    result_dtypes = [_NUMPY[_elem(ty)] for ty in ep.results]
    derived = {}

    def vjp():
        if "vjp" not in derived:
            derived["vjp"] = prog.vjp(entry, wrt=floats)
        return derived["vjp"]

    class Call(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *args):
            arrays = [_to_numpy(a) for a in args]
            out = tuple(_to_tensor(o, d) for o, d in zip(_tuple(ep(*arrays)), result_dtypes))
            ctx.arrays = arrays
            ctx.shapes = [tuple(o.shape) for o in out]
            return out

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx, *grads):
            bars = [
                np.zeros(s, dtype=d) if g is None else g.detach().contiguous().numpy()
                for g, s, d in zip(grads, ctx.shapes, result_dtypes)
            ]
            xbar = _tuple(vjp()(*ctx.arrays, *bars)[1])
            out = [None] * len(ctx.arrays)
            for k, b in zip(floats, xbar):
                out[k] = _to_tensor(b, param_dtypes[k])
            return tuple(out)

    def call(*args):
        if len(args) != len(params):
            raise TypeError(
                f"{entry}() takes {len(params)} argument(s) {ep.signature}, "
                f"but {len(args)} were given"
            )
        out = Call.apply(*args)
        return out[0] if len(out) == 1 else out

    call.__name__ = entry
    call.__doc__ = f"The gradus entry point {entry}{ep.signature} as a PyTorch function."
    return call
