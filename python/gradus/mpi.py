"""Sharded entry points over MPI (mpi4py): each process runs an entry point on its own rows.

``gradus.mpi.function(prog, "gradient", shard=["x"])`` derives, from the entry point, the code
each process runs on its block of the rows of the named parameters, and returns a callable
that every process of the communicator calls together with its own rows (the other arguments
the same everywhere). Each process gets the results of the unsharded call on all the rows:
sums over the rows added across processes (one ``Allreduce`` of all of them packed into one
buffer per element kind; likewise for maxima and minima over the rows), results made of rows concatenated in rank order (``Allgatherv``),
and the rest as computed. ``scatter_rows`` splits an array held by one process into the
near-equal contiguous blocks the command ``mpirun gradus run --shard`` uses.

What shards and what the compiler refuses: docs/mpi.md.
"""

from __future__ import annotations

import hashlib
from typing import Any, Sequence

import numpy as np

__all__ = ["function", "Sharded", "scatter_rows", "block"]


def _mpi():
    try:
        from mpi4py import MPI
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("gradus.mpi needs mpi4py (pip install mpi4py)") from e
    return MPI


def block(n: int, size: int, rank: int) -> tuple[int, int]:
    """The first row and the row count of process ``rank``'s block of ``n`` rows split into
    ``size`` near-equal contiguous blocks (the first ``n % size`` one row longer)."""
    q, r = divmod(n, size)
    start = rank * q + min(rank, r)
    return start, q + (1 if rank < r else 0)


def scatter_rows(array: Any, comm: Any = None, root: int = 0) -> np.ndarray:
    """Splits ``array`` (given on ``root``; ignored elsewhere) by its outer dimension into one
    near-equal contiguous block per process, and returns this process's block."""
    MPI = _mpi()
    comm = MPI.COMM_WORLD if comm is None else comm
    meta = None
    if comm.rank == root:
        array = np.ascontiguousarray(array)
        if array.ndim == 0:
            raise ValueError("scatter_rows needs an array with an outer dimension")
        meta = (array.shape, array.dtype.str)
    shape, dtype = comm.bcast(meta, root=root)
    row = int(np.prod(shape[1:], dtype=np.int64))
    counts = [block(shape[0], comm.size, r)[1] * row for r in range(comm.size)]
    displs = [block(shape[0], comm.size, r)[0] * row for r in range(comm.size)]
    mine = np.empty((counts[comm.rank] // row if row else 0,) + tuple(shape[1:]), dtype=dtype)
    mpi_type = MPI._typedict[np.dtype(dtype).char]
    send = [array, counts, displs, mpi_type] if comm.rank == root else None
    comm.Scatterv(send, [mine, mpi_type], root=root)
    return mine


class Sharded:
    """An entry point split by rows over the processes of an MPI communicator; call it on
    every process with that process's rows of the sharded parameters."""

    def __init__(
        self,
        prog: Any,
        entry: str,
        shard: Sequence[str],
        comm: Any = None,
        rows: str = "gathered",
    ):
        if isinstance(shard, str):
            shard = [shard]
        if rows not in ("gathered", "local"):
            raise ValueError(f"rows must be 'gathered' or 'local', not {rows!r}")
        self.rows = rows
        self._MPI = _mpi()
        self.comm = self._MPI.COMM_WORLD if comm is None else comm
        self.entry = entry
        self._derived, self.combine, self.sharded = prog._sharded(entry, list(shard))
        self._single = len(prog[entry].results) == 1

    def __repr__(self) -> str:
        return (
            f"<gradus.mpi.Sharded {self.entry} over {self.comm.size} processes, "
            f"sharded parameters {self.sharded}, results {self.combine}, rows {self.rows}>"
        )

    def __call__(self, *args: Any) -> Any:
        comm = self.comm
        local = self._local_rows(args)
        self._check_shapes(args)
        offset = comm.exscan(local) if comm.size > 1 else 0
        try:
            out = self._derived(*args, comm.rank, 0 if offset is None else int(offset))
            failed = None
        except Exception as e:  # every process must learn of it, or the others would wait
            failed = e
        first = comm.allreduce(comm.size if failed is None else comm.rank, op=self._MPI.MIN)
        if failed is not None:
            raise failed
        if first < comm.size:
            raise RuntimeError(
                f"`{self.entry}` failed on process {first} of {comm.size} (which reports the error)"
            )
        results = [out] if self._single else list(out)
        results = self._reduce(results)
        for i, how in enumerate(self.combine):
            if how == "rows" and self.rows == "gathered":
                results[i] = self._gather_rows(results[i])
        return results[0] if self._single else tuple(results)

    def _local_rows(self, args: Sequence[Any]) -> int:
        """This process's row count, the same in every sharded argument."""
        counts = set()
        for p in self.sharded:
            if p >= len(args):
                raise TypeError(f"`{self.entry}` needs its argument {p} (a sharded parameter)")
            a = np.asarray(args[p])
            if a.ndim == 0:
                raise ValueError(f"sharded argument {p} of `{self.entry}` is not an array")
            counts.add(a.shape[0])
        if len(counts) > 1:
            raise ValueError(
                f"the sharded arguments of `{self.entry}` have different row counts here: "
                f"{sorted(counts)}"
            )
        return counts.pop() if counts else 0

    def _check_shapes(self, args: Sequence[Any]) -> None:
        """Raises on every process alike where the processes' arguments differ in dtype or
        shape (the sharded ones: in all but the row count), or where an argument that is not
        sharded differs in value (which would make the sums wrong): one allgather of the
        dtypes and shapes and of a hash of each unsharded argument's bytes."""
        mine, hashes = [], []
        for i, a in enumerate(args):
            a = np.asarray(a)
            shape = ("rows",) + a.shape[1:] if i in self.sharded else a.shape
            mine.append((a.dtype.str, shape))
            if i not in self.sharded:
                data = np.ascontiguousarray(a).tobytes()
                hashes.append((i, hashlib.blake2b(data, digest_size=16).digest()))
        every = self.comm.allgather((mine, hashes))
        for r, (theirs, their_hashes) in enumerate(every):
            if theirs != every[0][0]:
                raise ValueError(
                    f"the arguments of `{self.entry}` differ in dtype or shape between "
                    f"processes 0 and {r}: {every[0][0]} and {theirs}"
                )
            for (i, h), (_, h0) in zip(their_hashes, every[0][1]):
                if h != h0:
                    raise ValueError(
                        f"argument {i + 1} of `{self.entry}` is not sharded, so it must be "
                        f"the same on every process, but processes 0 and {r} pass "
                        "different values"
                    )

    def _reduce(self, results: list) -> list:
        """Reduces the `sum`, `max` and `min` results across processes: one Allreduce per
        reduction and element kind (floats in float64, integers in int64), each over all
        those results packed together."""
        MPI = self._MPI
        ops = (("sum", MPI.SUM), ("max", MPI.MAX), ("min", MPI.MIN))
        for (name, op), (kind, wide) in (
            (o, k) for o in ops for k in (("f", np.float64), ("iu", np.int64))
        ):
            picks = [
                i
                for i, how in enumerate(self.combine)
                if how == name and np.asarray(results[i]).dtype.kind in kind
            ]
            if not picks:
                continue
            parts = [np.asarray(results[i]) for i in picks]
            buf = np.concatenate([p.astype(wide).ravel() for p in parts])
            if name == "sum" or kind != "f":
                self.comm.Allreduce(MPI.IN_PLACE, buf, op=op)
            else:
                keys = extremum_keys(buf, name == "max")
                self.comm.Allreduce(MPI.IN_PLACE, keys, op=op)
                buf = from_extremum_keys(keys, name == "max")
            at = 0
            for i, p in zip(picks, parts):
                v = buf[at : at + p.size].reshape(p.shape).astype(p.dtype)
                at += p.size
                results[i] = v if p.ndim else v.item()
        return results

    def _gather_rows(self, value: Any) -> np.ndarray:
        """The processes' row blocks, concatenated in rank order on every process."""
        MPI = self._MPI
        mine = np.ascontiguousarray(value)
        counts = self.comm.allgather(mine.size)
        rows = self.comm.allgather(mine.shape[0])
        displs = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(int).tolist()
        whole = np.empty((sum(rows),) + mine.shape[1:], dtype=mine.dtype)
        mpi_type = MPI._typedict[mine.dtype.char]
        self.comm.Allgatherv([mine, mpi_type], [whole, counts, displs, mpi_type])
        return whole


_FLIP = np.int64(0x7FFF_FFFF_FFFF_FFFF)


def _nan_key(largest: bool) -> np.int64:
    return np.iinfo(np.int64).min if largest else np.iinfo(np.int64).max


def extremum_keys(x: np.ndarray, largest: bool) -> np.ndarray:
    """The ``int64`` keys by which float maxima (``largest``) or minima are combined, as in
    ``gradus::shard::combine::extremum_key`` (docs/mpi.md): ordered as the numbers, a NaN
    below every number for a maximum and above for a minimum, so that ``MPI.MAX`` and
    ``MPI.MIN`` on the keys give a NaN only where every process has one, as ``max`` and
    ``min`` do on one process."""
    bits = np.ascontiguousarray(x, dtype=np.float64).view(np.int64)
    keys = np.where(bits < 0, bits ^ _FLIP, bits)
    return np.where(np.isnan(x), _nan_key(largest), keys).astype(np.int64)


def from_extremum_keys(keys: np.ndarray, largest: bool) -> np.ndarray:
    """The floats whose keys are ``keys``: the inverse of :func:`extremum_keys`."""
    bits = np.where(keys < 0, keys ^ _FLIP, keys).astype(np.int64)
    x = bits.view(np.float64).copy()
    x[keys == _nan_key(largest)] = np.nan
    return x


def function(
    prog: Any, entry: str, shard: Sequence[str], comm: Any = None, rows: str = "gathered"
) -> Sharded:
    """The entry point ``entry`` of ``prog`` with the parameters named in ``shard`` split by
    rows over ``comm`` (default: ``MPI.COMM_WORLD``). Results made of rows are concatenated
    on every process (``rows="gathered"``), or each process keeps the block of rows it
    computed (``rows="local"``: nothing gathered, for a caller that uses the rows where they
    are, such as the blocks of a Jacobian); the other results are combined either way.
    Raises ``ValueError`` with the location of the offending statement where the entry point
    does not shard."""
    return Sharded(prog, entry, shard, comm, rows)
