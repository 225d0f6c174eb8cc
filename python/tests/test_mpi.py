"""``gradus.mpi`` under ``mpirun``: sharded calls on 1 to 4 processes (more processes than rows
included) against the unsharded call, NaNs among the rows of maxima and minima, and the
refusal of an entry point that does not shard. Skipped without mpi4py or mpirun."""

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

SHARD = pathlib.Path(__file__).resolve().parent / "shard.fut"

SCRIPT = r"""
import sys
import numpy as np
from mpi4py import MPI
import gradus
import gradus.mpi

comm = MPI.COMM_WORLD
prog = gradus.compile(sys.argv[1], backend=sys.argv[2])
for n in (2, 7, 40):
    rng = np.random.default_rng(n)
    w = rng.standard_normal(3)
    x = rng.standard_normal((n, 3)) if comm.rank == 0 else None
    y = rng.standard_normal(n) if comm.rank == 0 else None
    xs = gradus.mpi.scatter_rows(x, comm)
    ys = gradus.mpi.scatter_rows(y, comm)
    x, y = comm.bcast((x, y), root=0)
    for entry in ("objective", "gradient", "residuals", "summary", "largest", "smallest"):
        f = gradus.mpi.function(prog, entry, shard=["x", "y"])
        got, want = f(w, xs, ys), prog[entry](w, x, y)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want), (entry, got, want)
        for g, v in zip(got, want):
            assert np.shape(g) == np.shape(v), (entry, n, g, v)
            assert np.asarray(g).dtype == np.asarray(v).dtype, (entry, n, g, v)
            assert np.allclose(g, v, rtol=1e-10, atol=1e-12), (entry, n, g, v)
        # Rows left where they were computed: this process's block of each rows result.
        local = gradus.mpi.function(prog, entry, shard=["x", "y"], rows="local")
        got = local(w, xs, ys)
        got = got if isinstance(got, tuple) else (got,)
        start, length = gradus.mpi.block(n, comm.size, comm.rank)
        for g, v, how in zip(got, want, local.combine):
            v = np.asarray(v)[start : start + length] if how == "rows" else v
            assert np.shape(g) == np.shape(v), (entry, n, how, g, v)
            assert np.allclose(g, v, rtol=1e-10, atol=1e-12), (entry, n, how, g, v)
# NaNs in the rows of a maximum and a minimum with a NaN neutral element (a process whose
# rows are all NaN has a NaN extremum): the first process's rows, then every row. The
# results are those of one process (NaN only where every row is).
extrema = gradus.compile_source(
    "entry extrema [n] (xs: [n]f64) (c: f64) : (f64, f64) = "
    "(reduce f64.max c xs, reduce f64.min c xs)"
)
count = 11
first = gradus.mpi.block(count, comm.size, 0)
f = gradus.mpi.function(extrema, "extrema", shard=["xs"])
for nan_rows in (slice(first[0], first[0] + first[1]), slice(0, count)):
    vals = np.arange(count, dtype=np.float64) - 5.0
    vals[nan_rows] = np.nan
    start, length = gradus.mpi.block(count, comm.size, comm.rank)
    got, want = f(vals[start : start + length], np.nan), extrema["extrema"](vals, np.nan)
    for g, v in zip(got, want):
        assert np.allclose(g, v, equal_nan=True), (nan_rows, g, v)
if comm.size > 1:
    # Process 1 passes a weight vector of another length: every process gets the error.
    f = gradus.mpi.function(prog, "objective", shard=["x", "y"])
    try:
        f(w[:2] if comm.rank == 1 else w, xs, ys)
        raise AssertionError("mismatched shapes were accepted")
    except ValueError as e:
        assert "differ in dtype or shape between processes 0 and 1" in str(e), e
    # The last process passes other weights of the same shape: an error everywhere.
    g = gradus.mpi.function(prog, "gradient", shard=["x", "y"])
    try:
        g(w + 1.0 if comm.rank == comm.size - 1 else w, xs, ys)
        raise AssertionError("different unsharded values were accepted")
    except ValueError as e:
        assert "argument 1 of `gradient` is not sharded" in str(e), e
# Only the last process's rows hold a bad index: an error on every process, none left waiting.
picky = gradus.compile_source(
    "entry picky [n] (is: [n]i64) (t: [3]f64) : f64 = f64.sum (map (\\i -> t[i]) is)"
)
f = gradus.mpi.function(picky, "picky", shard=["is"])
bad = np.array([0, 9] if comm.rank == comm.size - 1 else [1, 2], dtype=np.int64)
try:
    f(bad, np.array([1.0, 2.0, 3.0]))
    raise AssertionError("a bad index was accepted")
except AssertionError:
    raise
except Exception as e:
    if comm.rank != comm.size - 1:
        assert f"failed on process {comm.size - 1}" in str(e), e
try:
    gradus.mpi.function(prog, "spread", shard=["x", "y"])
    raise AssertionError("spread was sharded")
except ValueError as e:
    assert "mixes rows" in str(e), e
print(f"ok {comm.rank} of {comm.size}")
"""


def mpirun():
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        pytest.skip("mpi4py is not installed")
    found = shutil.which("mpirun")
    if found is None:
        pytest.skip("mpirun is not installed")
    return found


@pytest.mark.parametrize("procs", [1, 2, 3, 4])
def test_sharded_calls_match_the_unsharded_call(tmp_path, procs):
    runner = mpirun()
    script = tmp_path / "sharded.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [runner, "--oversubscribe", "-np", str(procs), sys.executable, str(script)]
    out = subprocess.run(
        cmd + [str(SHARD), "c"], capture_output=True, text=True, env=env, timeout=600
    )
    assert out.returncode == 0, out.stdout + out.stderr
    for r in range(procs):
        assert f"ok {r} of {procs}" in out.stdout, out.stdout + out.stderr
