"""Type stubs of the extension module (see ``gradus.__init__`` for the overview)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

class CompileError(Exception):
    """A program that does not compile; the message starts with ``path:line:col: ``."""

    location: Optional[str]
    """``path:line:col`` of the first error, or None when it has no location."""

class ProgramError(Exception):
    """A run-time error of a program (index out of bounds, sizes that differ, ...)."""

    message: str
    """The program's message, e.g. ``Index [5] out of bounds for array of shape [4].``"""
    locations: List[str]
    """Source locations ``path:line:col-line:col``, innermost first."""

class EntryPoint:
    """An entry point; call it with one argument per parameter, by position or name.

    Arguments: numpy arrays of the parameter's dtype and rank (read in place when
    C-contiguous, aligned and in native byte order; copied once otherwise), lists that
    convert to it without loss, Python or numpy numbers for scalar parameters. Results:
    Python numbers for scalars, numpy arrays for arrays, a tuple for several results, None
    for none. Raises ``TypeError`` (wrong number of arguments, wrong dtype) or ``ValueError``
    (wrong rank, a value out of range) naming the parameter, and ``ProgramError`` when the
    program fails. The GIL is released while the program runs.
    """

    @property
    def name(self) -> str: ...
    @property
    def signature(self) -> str:
        """The signature, e.g. ``"(x: [n]f64) -> f64"``."""
    @property
    def parameters(self) -> List[Tuple[str, str]]:
        """The parameters as ``(name, type)`` pairs."""
    @property
    def results(self) -> List[str]:
        """The types of the results."""
    @property
    def program(self) -> "Program":
        """The program it belongs to (for a derived entry point, the derived program, from
        which derivatives of the derivative can be asked)."""
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def _xla_target(self, skip: int = 0) -> int:
        """This entry point as a target of the XLA FFI handler (``gradus.jax`` uses it): the
        index its calls pass as the attribute ``gradus_target``; ``skip`` leading results are
        dropped."""

Wrt = Union[None, int, str, Sequence[Union[int, str]]]

class SparseDerivative:
    """A sparse Jacobian or Hessian of an entry point (``prog.sparse_jacobian("f")``,
    ``prog.sparse_hessian("f")``); call it like the entry point. Returns a
    ``scipy.sparse.csr_matrix`` (``(values, columns, offsets)`` without scipy). The pattern is
    found on the first call and kept for later calls whose other arguments are the same."""

    @property
    def kind(self) -> str:
        """``"sparse_jacobian"`` or ``"sparse_hessian"``."""
    @property
    def wrt(self) -> int:
        """The position of the parameter differentiated."""
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...
    def plan(self, *args: Any, **kwargs: Any) -> Dict[str, Any]:
        """``nnz``, ``colours``, ``products`` (``"columns"``, ``"rows"``, ``"star"``),
        ``lower_bound``, ``trace_seconds`` and ``colour_seconds`` of the pattern for these
        arguments."""

class Derivative:
    """A derivative of an entry point (``prog.grad("f")`` and relatives), compiled on first
    use and cached by the program; call it like the entry point, then the seeds (``vjp``:
    one ``ybar`` per result; ``jvp``: one ``xdot`` per position). Returns one array for one
    position (or result), a tuple for several; ``vjp`` and ``jvp`` return ``(y, derivative)``.
    """

    @property
    def kind(self) -> str:
        """``"grad"``, ``"vjp"``, ``"jvp"``, ``"jacobian"`` or ``"hessian"``."""
    @property
    def wrt(self) -> List[int]:
        """The positions of the parameters differentiated."""
    @property
    def entry_point(self) -> EntryPoint:
        """The derived entry point (results not grouped)."""
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

class Program:
    """A compiled program; its entry points are attributes and items."""

    def grad(self, entry: str, wrt: Wrt = None) -> Derivative:
        """The gradient of ``entry`` (one float scalar result) with respect to ``wrt``
        (None: every float parameter; positions or names)."""
    def vjp(self, entry: str, wrt: Wrt = None) -> Derivative:
        """``(args..., ybar...) -> (y, xbar)``."""
    def jvp(self, entry: str, wrt: Wrt = None) -> Derivative:
        """``(args..., xdot...) -> (y, ydot)``."""
    def jacobian(self, entry: str, wrt: Wrt = None) -> Derivative:
        """The Jacobian of one float result of rank 0 or 1, per position:
        ``result.shape + param.shape``."""
    def hessian(self, entry: str, wrt: Wrt = None) -> Derivative:
        """The Hessian of a float scalar result with respect to one parameter of rank 0 or 1."""
    def sparse_jacobian(self, entry: str, wrt: Union[int, str, None] = None) -> SparseDerivative:
        """The sparse Jacobian of the one float result (rank 0 or 1) with respect to a
        one-dimensional float parameter (None: the only float parameter)."""
    def sparse_hessian(self, entry: str, wrt: Union[int, str, None] = None) -> SparseDerivative:
        """The sparse Hessian of a float scalar result, as ``sparse_jacobian``."""

    @property
    def entry_points(self) -> Dict[str, str]:
        """Entry point names to signatures, in declaration order."""
    @property
    def path(self) -> str:
        """The path (or name) the program was compiled from."""
    @property
    def backend(self) -> str:
        """``"interp"``, ``"c"`` or ``"multicore"``."""
    @property
    def threads(self) -> Optional[int]:
        """Threads of the multicore backend (None: all cores)."""
    @property
    def safe(self) -> bool:
        """Whether run-time checks are on."""
    def _sharded(
        self, entry: str, shard: List[str]
    ) -> Tuple[EntryPoint, List[str], List[int]]:
        """The per-process entry point, how each result combines, the sharded positions
        (used by gradus.mpi)."""
    def __getattr__(self, name: str) -> EntryPoint: ...
    def __getitem__(self, name: str) -> EntryPoint: ...
    def __contains__(self, name: str) -> bool: ...

def compile(
    path: Union[str, "os.PathLike[str]"],
    *,
    backend: Optional[str] = None,
    threads: Optional[int] = None,
    safe: bool = True,
) -> Program:
    """Compiles the program in the file ``path``.

    ``backend``: ``"multicore"`` (default when a C compiler is found), ``"c"`` (one thread)
    or ``"interp"`` (the reference interpreter). ``threads``: threads of the multicore
    backend (default: all cores). ``safe=False`` drops the run-time checks. Compiled C is
    cached across processes in ``cache_dir()``. Raises ``CompileError``, or
    ``FileNotFoundError``/``OSError`` when the file cannot be read.
    """

def compile_source(
    source: str,
    name: str = "<string>",
    *,
    backend: Optional[str] = None,
    threads: Optional[int] = None,
    safe: bool = True,
) -> Program:
    """Compiles a program given as text; ``name`` names it in messages."""

def cache_dir() -> str:
    """The directory of compiled programs (``$GRADUS_CACHE_DIR`` or ``gradus`` in the user's
    cache directory)."""

def _xla_handler() -> int:
    """The address of gradus's XLA FFI handler (``gradus.jax`` registers it with
    ``jax.ffi.register_ffi_target``)."""
