"""Per-call overhead of gradus.jax against a direct gradus call, and the GMM gradient through
``jax.grad`` of the gradus function against the program's own ``gradient`` entry point.

    python benchmarks/jax_overhead.py [GMM_INPUT]   # e.g. /tmp/adbench/gmm_d32_K200.in

GMM_INPUT is a file of the GMM's arguments in gradus's binary value format (as
``adbench-convert gmm`` writes it, benchmarks/README.md); without it only the overhead of a tiny
call is measured. Prints medians of repeated calls in microseconds.
"""

import functools
import pathlib
import sys
import time

import numpy as np

import jax

jax.config.update("jax_enable_x64", True)

import gradus  # noqa: E402
import gradus.jax  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
TYPES = {b" f64": np.float64, b" i64": np.int64, b" f32": np.float32, b" i32": np.int32}


def read_values(path):
    """The values of a file in the binary value format (docs/language.md §Binary format)."""
    data = pathlib.Path(path).read_bytes()
    out, pos = [], 0
    while pos < len(data):
        if data[pos : pos + 1].isspace():
            pos += 1
            continue
        assert data[pos : pos + 2] == b"b\x02", "binary values only"
        rank = data[pos + 2]
        dtype = np.dtype(TYPES[data[pos + 3 : pos + 7]])
        dims = np.frombuffer(data, "<u8", rank, pos + 7).astype(int)
        pos += 7 + 8 * rank
        count = int(np.prod(dims)) if rank else 1
        arr = np.frombuffer(data, dtype.newbyteorder("<"), count, pos).reshape(tuple(dims))
        pos += count * dtype.itemsize
        out.append(arr.copy() if rank else arr.item())
    return out


def median_us(f, runs, warm=True):
    if warm:
        f()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = f()
        jax.block_until_ready(r)
        times.append(time.perf_counter() - t)
    return 1e6 * float(np.median(times))


def overhead():
    """A tiny entry point called directly, and under ``jax.jit`` through XLA's FFI and through
    ``jax.pure_callback``; its gradient likewise. JAX's own version of the function under
    ``jax.jit`` shows what dispatching a jitted call costs by itself. Interleaved rounds, so
    that a busy machine slows every variant alike; the median over every call."""
    prog = gradus.compile_source(
        "entry f (x: [3]f64) : f64 = f64.sum (map (\\a -> a * a) x)", name="tiny.fut"
    )
    x = np.array([1.0, 2.0, 3.0])
    xj = jax.numpy.asarray(x)
    ffi = gradus.jax.function(prog, "f", call="ffi")
    cb = gradus.jax.function(prog, "f", call="callback")
    grad = prog.grad("f")
    own = lambda x: jax.numpy.sum(x * x)  # noqa: E731
    calls = {
        "direct gradus call": lambda: prog.f(x),
        "jax.jit(jnp version)": jax.jit(own),
        "jax.jit(f), FFI": jax.jit(ffi),
        "jax.jit(f), pure_callback": jax.jit(cb),
        "direct gradus grad": lambda: grad(x),
        "jax.jit(jax.grad(jnp version))": jax.jit(jax.grad(own)),
        "jax.jit(jax.grad(f)), FFI": jax.jit(jax.grad(ffi)),
        "jax.jit(jax.grad(f)), pure_callback": jax.jit(jax.grad(cb)),
    }
    times = {name: [] for name in calls}
    for name, call in calls.items():
        arg = () if name.startswith("direct") else (xj,)
        calls[name] = functools.partial(call, *arg)
        jax.block_until_ready(calls[name]())
    rounds, runs = 20, 200
    for _ in range(rounds):
        for name, call in calls.items():
            for _ in range(runs):
                t = time.perf_counter()
                jax.block_until_ready(call())
                times[name].append(time.perf_counter() - t)
    med = {name: 1e6 * float(np.median(t)) for name, t in times.items()}
    print(f"tiny: medians of {rounds * runs} calls, microseconds")
    for name, m in med.items():
        base = med["direct gradus grad" if "grad" in name else "direct gradus call"]
        extra = "" if name.startswith("direct") else f"  ({m - base:+7.1f} over direct)"
        print(f"tiny: {name:38s} {m:8.1f}{extra}")


def gmm(path):
    """The GMM gradient through ``jax.jit(jax.grad(objective))`` (through XLA's FFI and through
    ``jax.pure_callback``) against the program's own ``gradient`` called directly."""
    args = read_values(path)
    jargs = [jax.device_put(a) for a in args]
    prog = gradus.compile(HERE / "gmm.fut")
    want = prog.gradient(*args)
    grad = prog.grad("objective")
    calls = {
        "direct prog.gradient": lambda: prog.gradient(*args),
        "prog.grad('objective')": lambda: grad(*args),
    }
    for how in ["ffi", "callback"]:
        f = gradus.jax.function(prog, "objective", call=how)
        g = jax.jit(jax.grad(f, argnums=(0, 1, 2)))
        got = g(*jargs)
        err = max(float(np.max(np.abs(a - b))) for a, b in zip(got, want))
        print(f"gmm: {how}: max |jax.grad - gradient| = {err:.3e}")
        calls[f"jax.jit(jax.grad(objective)), {how}"] = functools.partial(g, *jargs)
    runs = 10
    # Interleaved, so that a busy machine slows each alike.
    times = {name: [] for name in calls}
    for call in calls.values():
        call()
    for _ in range(runs):
        for name, call in calls.items():
            times[name].append(median_us(call, 1, warm=False))
    direct = float(np.median(times["direct prog.gradient"]))
    for name, t in times.items():
        m = float(np.median(t))
        print(f"gmm: {name:38s} {m:10.0f} us ({100 * (m / direct - 1):+.1f} %)")


if __name__ == "__main__":
    overhead()
    if len(sys.argv) > 1:
        gmm(sys.argv[1])
