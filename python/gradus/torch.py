"""gradus entry points as PyTorch functions: ``gradus.torch.function(prog, "objective")``.

The function takes CPU tensors (and numbers) and returns tensors; it is a
``torch.autograd.Function`` whose ``backward`` is gradus's reverse derivative of the entry
point (``prog.vjp`` with respect to every float parameter, compiled on first use). Tensors are
lent to the program without a copy when they are contiguous and of the parameter's dtype (their
memory is read where it lies), and the results are wrapped by ``torch.from_numpy``, also without
a copy. Integer parameters get no gradient. ``backward`` is itself such a function of the
derived ``vjp`` entry point, so a gradient taken with ``create_graph=True`` can be
differentiated again (double backward: Hessian-vector products, gradient penalties), each
level derived by gradus (the ``vjp`` of the ``vjp``) on first use.
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
    made = _Made(prog, entry, skip=0)

    def call(*args):
        if len(args) != len(made.params):
            raise TypeError(
                f"{entry}() takes {len(made.params)} argument(s) {made.ep.signature}, "
                f"but {len(args)} were given"
            )
        out = made.apply(*args)
        return out[0] if len(out) == 1 else out

    call.__name__ = entry
    call.__doc__ = f"The gradus entry point {entry}{made.ep.signature} as a PyTorch function."
    return call


class _Made:
    """An entry point as a ``torch.autograd.Function`` (``apply``), without its first
    ``skip`` results."""

    def __init__(self, prog, entry, skip):
        self.prog, self.entry, self.skip = prog, entry, skip
        self.ep = ep = prog[entry]
        self.params = ep.parameters
        self.floats = [k for k, (_, ty) in enumerate(self.params) if _elem(ty) in _FLOATS]
        if not self.floats:
            raise ValueError(f"gradus.torch: `{entry}` has no float parameter to differentiate")
        self.param_dtypes = [_NUMPY[_elem(ty)] for _, ty in self.params]
        self.all_result_dtypes = [_NUMPY[_elem(ty)] for ty in ep.results]
        self.result_dtypes = self.all_result_dtypes[skip:]
        self._pullback = None

    def pullback(self):
        """The derived ``vjp`` of the entry point (every float parameter) as a function of
        the same kind, so that its own backward is the next derivative; derived on first
        use."""
        if self._pullback is None:
            d = self.prog.vjp(self.entry, wrt=self.floats).entry_point
            self._pullback = _Made(d.program, d.name, skip=len(self.ep.results))
        return self._pullback

    def apply(self, *args):
        return _Call.apply(self, *args)


class _Call(torch.autograd.Function):
    """Forward: the entry point on the tensors' memory. Backward: the pullback, itself a
    ``_Call`` on tensors, so that ``create_graph=True`` differentiates it again."""

    @staticmethod
    def forward(ctx, made, *args):
        arrays = [_to_numpy(a) for a in args]
        full = _tuple(made.ep(*arrays))
        out = tuple(_to_tensor(o, d) for o, d in zip(full, made.all_result_dtypes))
        ctx.made = made
        ctx.shapes = [tuple(o.shape) for o in out]
        out = out[made.skip :]
        tensors = [k for k, a in enumerate(args) if isinstance(a, torch.Tensor)]
        ctx.tensor_positions = tensors
        ctx.others = {k: a for k, a in enumerate(args) if k not in set(tensors)}
        ctx.save_for_backward(*[args[k] for k in tensors])
        return out

    @staticmethod
    def backward(ctx, *grads):
        made = ctx.made
        args = dict(ctx.others)
        args.update(zip(ctx.tensor_positions, ctx.saved_tensors))
        args = [args[k] for k in range(len(made.params))]
        # One cotangent per result of the entry point: zeros for the results left out.
        grads = [None] * made.skip + list(grads)
        bars = [
            torch.from_numpy(np.zeros(s, dtype=d)) if g is None else g.contiguous()
            for g, s, d in zip(grads, ctx.shapes, made.all_result_dtypes)
        ]
        xbar = made.pullback().apply(*args, *bars)
        out = [None] * len(args)
        for k, b in zip(made.floats, xbar):
            if isinstance(args[k], torch.Tensor):
                out[k] = b
        return (None, *out)
