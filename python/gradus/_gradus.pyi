"""Type stubs of the extension module (see ``gradus.__init__`` for the overview)."""

import os
from typing import Any, Dict, List, Optional, Tuple, Union

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
    def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

class Program:
    """A compiled program; its entry points are attributes and items."""

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
