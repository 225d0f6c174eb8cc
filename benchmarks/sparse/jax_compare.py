"""JAX's side of the sparse-derivative comparison (benchmarks/README.md §Sparse Jacobians and
Hessians): the same problems as `sparse-time`, written in jax.numpy, timed on the CPU with one
thread.

    python benchmarks/sparse/jax_compare.py pde [--runs R] [--dense-max N] N...
    python benchmarks/sparse/jax_compare.py ba [--runs R] [--observations-as-arguments] BA.txt

`pde` is benchmarks/sparse/pde.fut (the 2-D Bratu residual and energy at u[q] = 0.1 sin q):
the objective, the dense Jacobian / Hessian by `jax.jacfwd` while n <= --dense-max, and the
sparse Jacobian of the residual and the sparse Hessian of the energy (`jacfwd` of `jax.grad`)
by `sparsejac.jacfwd` with the 5-point pattern given. `ba` is benchmarks/sparse/ba_plain.fut
(bundle adjustment as one residual of all parameters) on an ADBench text file, with
`sparsejac.jacfwd` and its pattern given (checked against `jax.jacfwd` where the dense
Jacobian has at most --dense-max² entries).

Every time is the median of --runs calls (default 5) after one untimed call that compiles; the
outputs are waited for (`block_until_ready`). sparsejac colours the given pattern when the
derivative is built, before any compilation: that is timed once, as "setup". Each sparse
result ends with a checksum of its values (count, sum, sum of magnitudes) to compare with
`sparse-time`'s. At n <= --dense-max the sparse results are checked against the dense ones.

One thread: XLA_FLAGS is set here before JAX is imported, and the process should run under
`taskset -c 0` (the README's commands do).
"""

import argparse
import functools
import math
import os
import statistics
import sys
import time

os.environ["XLA_FLAGS"] = (
    os.environ.get("XLA_FLAGS", "")
    + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.experimental.sparse as jsparse  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

jax.config.update("jax_enable_x64", True)

try:
    import sparsejac
    import sparsejac.sparsejac as sparsejac_impl
except ImportError:  # reported, and the sparse rows are skipped
    sparsejac = None


# --- timing -------------------------------------------------------------------------------


def ready(out):
    """Waits for every array in `out` (arrays, BCOO matrices, tuples)."""
    if isinstance(out, jsparse.BCOO):
        out.data.block_until_ready()
    elif isinstance(out, (tuple, list)):
        for o in out:
            ready(o)
    else:
        out.block_until_ready()
    return out


def median(runs, f):
    """The median of `runs` timed calls of `f` after one untimed call, in seconds."""
    ready(f())
    ts = []
    for _ in range(runs):
        t = time.perf_counter()
        ready(f())
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def once(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def ms(s):
    return f"{s * 1e3:.3f} ms"


def checksum(values):
    v = np.asarray(values)
    return (
        f"checksum: {v.size} values, sum {v.sum():.12e}, "
        f"sum of magnitudes {np.abs(v).sum():.12e}"
    )


# Colour counts seen by sparsejac, recorded by wrapping its greedy colouring.
COLOURS = []
if sparsejac is not None:
    _greedy = sparsejac_impl._greedy_color

    def _counting_greedy(connectivity, strategy):
        colouring, count = _greedy(connectivity, strategy)
        COLOURS.append(count)
        return colouring, count

    sparsejac_impl._greedy_color = _counting_greedy


def sparse_derivative(name, fn, pattern, args, runs):
    """Builds `sparsejac.jacfwd(fn)` for `pattern` (with respect to the first of `args`),
    times it and returns its values."""
    if sparsejac is None:
        print(f"  {name}: sparsejac is not installed, skipped")
        return None
    setup, jac = once(lambda: jax.jit(sparsejac.jacfwd(fn, sparsity=pattern)))
    compile_t, out = once(lambda: ready(jac(*args)))
    later = median(runs, lambda: jac(*args))
    print(
        f"  {name} by sparsejac.jacfwd (pattern given): setup {ms(setup)} "
        f"({COLOURS[-1]} colours, largest-first) | first call with compilation "
        f"{ms(compile_t)} | later calls {ms(later)} | {checksum(out.data)}"
    )
    return out


def compare(name, sparse, dense):
    """Checks the sparse result against the dense one: same values, nothing outside."""
    s = np.asarray(sparse.todense())
    d = np.asarray(dense)
    rows, cols = np.asarray(sparse.indices).T
    outside = d.copy()
    outside[rows, cols] = 0
    print(
        f"  {name}: sparse vs dense largest difference {np.abs(s - d).max():.1e}, "
        f"largest dense entry outside the pattern {np.abs(outside).max():.1e}"
    )


# --- the 2-D Bratu problem (benchmarks/sparse/pde.fut) --------------------------------------


def grid(u, k):
    """u as rows of k (the last row zero-padded where n is not a square), and the same with
    every value outside the k-by-k grid zeroed: pde.fut's `at` reads only the grid."""
    n = u.shape[0]
    rows = -(-n // k)
    full = jnp.pad(u, (0, rows * k - n)).reshape(rows, k)
    return full, full.at[k:].set(0.0)


def residual(u):
    n = u.shape[0]
    k = math.isqrt(n)
    full, g = grid(u, k)
    p = jnp.pad(g, 1)
    up, down = p[:-2, 1:-1], p[2:, 1:-1]
    left, right = p[1:-1, :-2], p[1:-1, 2:]
    r = 4 * full - up - down - left - right - 0.5 * jnp.exp(full)
    return r.reshape(-1)[:n]


def energy(u):
    n = u.shape[0]
    k = math.isqrt(n)
    full, g = grid(u, k)
    p = jnp.pad(g, ((0, 1), (0, 1)))
    down, right = p[1:, :-1], p[:-1, 1:]

    def edge(d):
        return 0.5 * d * d + 0.25 * d * d * d * d

    terms = edge(full - down) + edge(full - right) - 0.5 * jnp.exp(full)
    return jnp.sum(terms.reshape(-1)[:n])


def stencil_pattern(n, hessian):
    """The 5-point pattern of pde.fut's residual, or of its energy's Hessian, as a BCOO
    matrix. Where n is not a square, the points past the k-by-k grid read their upper
    neighbour in the residual, and nothing but themselves in the energy."""
    k = math.isqrt(n)
    q = np.arange(n)
    i, j = q // k, q % k
    rows, cols = [q], [q]
    for a, b in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
        inside = (a >= 0) & (a < k) & (b >= 0) & (b < k) & ((i < k) | (not hessian))
        rows.append(q[inside])
        cols.append((a * k + b)[inside])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    order = np.lexsort((cols, rows))
    indices = np.stack([rows[order], cols[order]], axis=1)
    return jsparse.BCOO((np.ones(len(indices)), indices), shape=(n, n))


def pde(n, runs, dense_max):
    u = jnp.asarray(0.1 * np.sin(np.arange(n, dtype=np.float64)))
    print(f"## pde n = {n}")
    for kind, fn, deriv, pattern in (
        ("Jacobian", residual, residual, stencil_pattern(n, False)),
        ("Hessian", energy, jax.grad(energy), stencil_pattern(n, True)),
    ):
        fn_jit = jax.jit(fn)
        objective = median(runs, lambda: fn_jit(u))
        print(f"{kind} of {fn.__name__}: objective {ms(objective)} (jit)")
        sparse = sparse_derivative(kind, deriv, pattern, (u,), runs)
        if n <= dense_max:
            dense_fn = jax.jit(jax.jacfwd(deriv))
            dense = median(min(runs, 3), lambda: dense_fn(u))
            print(f"  dense by jax.jacfwd: {ms(dense)}")
            if sparse is not None:
                compare(kind, sparse, dense_fn(u))


# --- bundle adjustment (benchmarks/sparse/ba_plain.fut, benchmarks/ba.fut) ------------------


def read_ba(path):
    """An ADBench BA file, expanded as ADBench (and gradus-bench's converter) do."""
    with open(path) as f:
        t = f.read().split()
    n, m, p = int(t[0]), int(t[1]), int(t[2])
    v = np.array(t[3:], dtype=np.float64)
    cam, point, weight, feature = v[:11], v[11:14], v[14], v[15:17]
    params = np.concatenate([np.tile(cam, n), np.tile(point, m), np.full(p, weight)])
    i = np.arange(p)
    obs = np.stack([i % n, i % m], axis=1)
    return n, m, p, params, obs, np.tile(feature, (p, 1))


def rotate(r, y):
    """Rodrigues' rotation of y by the angle-axis vector r, as ba.fut's `rotate`."""
    sq = jnp.dot(r, r)
    nonzero = sq != 0
    theta = jnp.sqrt(jnp.where(nonzero, sq, 1.0))
    e = r / theta
    ey = jnp.dot(e, y)
    turned = y * jnp.cos(theta) + jnp.cross(e, y) * jnp.sin(theta) + e * ey * (1 - jnp.cos(theta))
    return jnp.where(nonzero, turned, y + jnp.cross(r, y))


def reproj_error(cam, x, w, f):
    z = rotate(cam[0:3], x - cam[3:6])
    a = z[:2] / z[2]
    rho = jnp.dot(a, a)
    dist = 1 + cam[9] * rho + cam[10] * rho * rho
    return w * (cam[6] * a * dist + cam[7:9] - f)


def ba_residual(n, m):
    """The residual as a function of (params, obs, feat)."""

    def f(params, obs, feat):
        cams = params[: 11 * n].reshape(n, 11)
        xs = params[11 * n : 11 * n + 3 * m].reshape(m, 3)
        w = params[11 * n + 3 * m :]
        reproj = jax.vmap(reproj_error)(cams[obs[:, 0]], xs[obs[:, 1]], w, feat)
        return jnp.concatenate([reproj.reshape(-1), 1 - w * w])

    return f


def ba_pattern(n, m, p, obs):
    """Row 2i + r (r = 0, 1) reads camera obs[i,0] but for the principal point's other
    coordinate (parameter 8 - r), point obs[i,1] and weight i: 14 entries; row 2p + i reads
    the weight alone."""
    cam = np.array([0, 1, 2, 3, 4, 5, 6, 9, 10])
    blocks = []
    for r in (0, 1):
        blocks.append(
            np.concatenate(
                [
                    11 * obs[:, :1] + cam,
                    11 * obs[:, :1] + 7 + r,
                    11 * n + 3 * obs[:, 1:] + np.arange(3),
                    (11 * n + 3 * m + np.arange(p))[:, None],
                ],
                axis=1,
            )
        )
    cols = np.stack(blocks, axis=1).reshape(2 * p, 14)
    rows = np.concatenate([np.repeat(np.arange(2 * p), 14), 2 * p + np.arange(p)])
    cols = np.concatenate([cols.reshape(-1), 11 * n + 3 * m + np.arange(p)])
    order = np.lexsort((cols, rows))
    indices = np.stack([rows[order], cols[order]], axis=1)
    shape = (3 * p, 11 * n + 3 * m + p)
    return jsparse.BCOO((np.ones(len(indices)), indices), shape=shape)


def ba(path, runs, dense_max, as_arguments):
    """By default the residual closes over the observations and features, which become
    constants of the compiled functions (XLA folds the index computations on them: faster on
    ba1); with `as_arguments` they are passed at every call."""
    n, m, p, params, obs, feat = read_ba(path)
    print(f"## ba {path}: {n} cameras, {m} points, {p} observations")
    f = ba_residual(n, m)
    data = (jnp.asarray(obs), jnp.asarray(feat))
    if as_arguments:
        args = (jnp.asarray(params),) + data
    else:
        f = functools.partial(f, obs=data[0], feat=data[1])
        args = (jnp.asarray(params),)
    print(f"observations {'as arguments' if as_arguments else 'closed over (constants)'}")
    f_jit = jax.jit(f)
    objective = median(runs, lambda: f_jit(*args))
    print(f"residual: objective {ms(objective)} (jit)")
    pattern = ba_pattern(n, m, p, obs)
    sparse = sparse_derivative("Jacobian", f, pattern, args, runs)
    if sparse is not None and pattern.shape[0] * pattern.shape[1] <= dense_max**2:
        compare("Jacobian", sparse, jax.jit(jax.jacfwd(f))(*args))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("problem", choices=["pde", "ba"])
    ap.add_argument("inputs", nargs="+", help="sizes n (pde) or one ADBench BA file (ba)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dense-max", type=int, default=10_000)
    ap.add_argument(
        "--observations-as-arguments",
        action="store_true",
        help="ba: pass obs and feat at every call instead of closing over them",
    )
    a = ap.parse_args()
    print(
        f"jax {jax.__version__}, sparsejac "
        f"{getattr(sparsejac, '__version__', 'installed') if sparsejac else 'missing'}, "
        f"devices {jax.devices()}, CPUs allowed {len(os.sched_getaffinity(0))}",
        flush=True,
    )
    if a.problem == "pde":
        for s in a.inputs:
            pde(int(s), max(a.runs, 1), a.dense_max)
            sys.stdout.flush()
    elif len(a.inputs) == 1:
        ba(a.inputs[0], max(a.runs, 1), a.dense_max, a.observations_as_arguments)
    else:
        ap.error("ba takes one ADBench BA file")


if __name__ == "__main__":
    main()
