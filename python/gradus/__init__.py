"""Compile gradus programs and call their entry points on numpy arrays.

    >>> import gradus
    >>> prog = gradus.compile_source("entry sq (x: f64) = x * x", name="sq.fut")
    >>> prog.entry_points
    {'sq': '(x: f64) -> f64'}
    >>> prog.sq(3.0)
    9.0

``compile(path)`` compiles a file; both take ``backend`` (``"multicore"``, ``"c"`` or
``"interp"``), ``threads`` and ``safe``. Entry points are attributes of the program (and
items: ``prog["sq"]``). Arguments are numpy arrays of the parameter's dtype (read in place
when C-contiguous, copied once otherwise), lists whose elements convert without loss, and
Python or numpy numbers; results are numpy arrays and Python numbers, several as a tuple.

Derivatives of any entry point are compiled on demand: ``prog.grad("f", wrt=None)``,
``prog.vjp``, ``prog.jvp``, ``prog.jacobian`` and ``prog.hessian`` (docs/python.md).
``gradus.jax.function(prog, "f")`` and ``gradus.torch.function(prog, "f")`` make an entry point
a function of JAX or PyTorch whose derivatives are gradus's (import those modules explicitly).

``prog.sparse_jacobian("f")`` and ``prog.sparse_hessian("f")`` return callables giving the
matrix as a ``scipy.sparse.csr_matrix``, its pattern found once by tracing the program
(docs/sparse.md). ``csr_matrix(result, ncols)`` turns the ``(values, columns, offsets)`` that
the language's own ``sparse_jacobian`` or ``sparse_hessian`` return into one (scipy must be
installed).

Errors: ``CompileError`` (the message starts with ``path:line:col``), ``ProgramError``
(run-time errors, with ``message`` and ``locations``), ``TypeError`` and ``ValueError`` for
arguments that do not fit a parameter (the message names it).
"""

import os as _os

# The multicore backend's OpenMP threads spin briefly (tens of microseconds) between
# parallel loops and then sleep, unless the user chose, as the `gradus` command sets them:
# long spinning takes cores from every other thread of the process (numpy's included) and
# from other processes, while sleeping at once costs a wake-up by the kernel per loop. The
# OpenMP runtime reads this when the first compiled program loads it, after this import.
if "OMP_WAIT_POLICY" not in _os.environ and "GOMP_SPINCOUNT" not in _os.environ:
    _os.environ["GOMP_SPINCOUNT"] = "2000"

from ._gradus import (  # noqa: E402
    CompileError,
    Derivative,
    EntryPoint,
    Program,
    ProgramError,
    SparseDerivative,
    cache_dir,
    compile,
    compile_source,
)



def csr_matrix(result, ncols):
    """The compressed sparse rows ``(values, columns, offsets)`` that ``sparse_jacobian`` and
    ``sparse_hessian`` return, as a ``scipy.sparse.csr_matrix`` of ``len(offsets) - 1`` rows
    and ``ncols`` columns (the length of the differentiated input). Needs scipy."""
    import scipy.sparse

    values, columns, offsets = result
    return scipy.sparse.csr_matrix((values, columns, offsets), shape=(len(offsets) - 1, ncols))


__all__ = [
    "CompileError",
    "Derivative",
    "EntryPoint",
    "Program",
    "ProgramError",
    "SparseDerivative",
    "cache_dir",
    "compile",
    "compile_source",
    "csr_matrix",
]
