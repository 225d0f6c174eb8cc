"""Tests of the Python package: calls on every backend, dtypes, ranks, tuples, errors, the
cache across processes, threads and the GIL."""

import os
import pathlib
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import gradus

HERE = pathlib.Path(__file__).resolve().parent
KINDS = HERE / "kinds.fut"
GMM = HERE.parent.parent / "benchmarks" / "gmm.fut"
BACKENDS = ["interp", "c", "multicore"]


@pytest.fixture(scope="module", params=BACKENDS)
def kinds(request):
    return gradus.compile(KINDS, backend=request.param)


@pytest.fixture(scope="module")
def native():
    return gradus.compile(KINDS, backend="c")


# --- calls -------------------------------------------------------------------------------


def test_compile_source_and_call():
    prog = gradus.compile_source("entry sq (x: f64) = x * x", name="sq.fut")
    assert prog.entry_points == {"sq": "(x: f64) -> f64"}
    assert prog.sq(3.0) == 9.0
    assert prog["sq"](-2) == 4.0
    assert "sq" in prog and "cube" not in prog
    assert "sq" in dir(prog)
    assert prog.path == "sq.fut"
    assert prog.backend == "multicore"  # a C compiler is there
    assert prog.safe and prog.threads is None


def test_entry_point_description(kinds):
    ep = kinds.stats
    assert ep.name == "stats"
    assert ep.parameters == [("xs", "[n]f64")]
    assert ep.results == ["f64", "f64", "i64"]
    assert ep.signature == "(xs: [n]f64) -> (f64, f64, i64)"
    assert list(kinds.entry_points)[:3] == ["scale", "row_sums", "stats"]


def test_array_in_array_out(kinds):
    xs = np.array([1.0, -2.0, 3.5])
    out = kinds.scale(2.0, xs)
    assert isinstance(out, np.ndarray)
    assert out.dtype == np.float64 and out.shape == (3,)
    np.testing.assert_array_equal(out, 2.0 * xs)
    # The input is not changed.
    np.testing.assert_array_equal(xs, [1.0, -2.0, 3.5])


def test_keyword_arguments(kinds):
    np.testing.assert_array_equal(kinds.scale(xs=np.ones(2), a=3.0), [3.0, 3.0])
    with pytest.raises(TypeError, match="no parameter named `ys`"):
        kinds.scale(2.0, ys=np.ones(2))
    with pytest.raises(TypeError, match="`a` twice"):
        kinds.scale(2.0, a=1.0)


def test_several_results_are_a_tuple_of_python_numbers(kinds):
    total, biggest, n = kinds.stats([1.0, 5.0, 2.0])
    assert (total, biggest, n) == (8.0, 5.0, 3)
    assert type(total) is float and type(n) is int
    b, x, y = kinds.both(True, 3, 1.5)
    assert (b, x, y) == (False, 4, 3.0)
    assert type(b) is bool and type(x) is int and type(y) is float


def test_backends_agree():
    rng = np.random.default_rng(1)
    xs = rng.normal(size=50)
    ys = rng.normal(size=7)
    results = [gradus.compile(KINDS, backend=b).outer(xs, ys) for b in BACKENDS]
    for r in results[1:]:
        np.testing.assert_allclose(r, results[0], rtol=1e-15)
    np.testing.assert_allclose(results[0], np.outer(xs, ys), rtol=1e-15)


# --- derivatives -------------------------------------------------------------------------


def central_differences(f, x, h=1e-6):
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        g.flat[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


def test_gradient_matches_finite_differences(kinds):
    xs = np.linspace(-2.0, 3.0, 7)
    g = kinds.gradient(xs)
    np.testing.assert_allclose(g, central_differences(kinds.value, xs), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(g, np.cos(xs) * xs + np.sin(xs), rtol=1e-12)


def gmm_inputs(k=3, d=2, n=6, seed=0):
    rng = np.random.default_rng(seed)
    s = d * (d + 1) // 2
    return (
        rng.normal(size=k),
        rng.normal(size=(k, d)),
        0.3 * rng.normal(size=(k, s)),
        rng.normal(size=(n, d)),
        1.0,
        0,
    )


def test_gmm_gradient_matches_finite_differences_and_forward_mode():
    prog = gradus.compile(GMM, backend="c")
    alphas, means, icf, x, gamma, m = gmm_inputs()
    d_alphas, d_means, d_icf = prog.gradient(alphas, means, icf, x, gamma, m)
    assert d_alphas.shape == alphas.shape
    assert d_means.shape == means.shape
    assert d_icf.shape == icf.shape
    fd_alphas = central_differences(lambda a: prog.objective(a, means, icf, x, gamma, m), alphas)
    fd_means = central_differences(lambda mu: prog.objective(alphas, mu, icf, x, gamma, m), means)
    fd_icf = central_differences(lambda q: prog.objective(alphas, means, q, x, gamma, m), icf)
    np.testing.assert_allclose(d_alphas, fd_alphas, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d_means, fd_means, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(d_icf, fd_icf, rtol=1e-5, atol=1e-7)
    forward = prog.gradient_fwd(alphas, means, icf, x, gamma, m)
    for r, f in zip((d_alphas, d_means, d_icf), forward):
        np.testing.assert_allclose(r, f, rtol=1e-10, atol=1e-12)
    # Transposition: <J^T 1, v> equals the directional derivative J v for any v.
    rng = np.random.default_rng(5)
    v = (rng.normal(size=alphas.shape), rng.normal(size=means.shape), rng.normal(size=icf.shape))
    jv = prog.directional(alphas, means, icf, x, gamma, m, *v)
    dot = sum(float(np.sum(g * t)) for g, t in zip((d_alphas, d_means, d_icf), v))
    assert jv == pytest.approx(dot, rel=1e-10)


# --- dtypes --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "entry, args, dtype",
    [
        ("row_sums", (np.ones((2, 3), dtype=np.float32),), np.float32),
        ("positive", (np.array([1, -2, 0], dtype=np.int32),), np.bool_),
        ("shift", (np.array([250, 1], dtype=np.uint8), 10), np.uint8),
        ("outer", (np.ones(2), np.ones(3)), np.float64),
    ],
)
def test_result_dtypes(kinds, entry, args, dtype):
    assert kinds[entry](*args).dtype == dtype


def test_integer_arithmetic_wraps_at_the_type(kinds):
    np.testing.assert_array_equal(kinds.shift(np.array([250, 1], dtype=np.uint8), 10), [4, 11])


def test_bool_arrays(kinds):
    np.testing.assert_array_equal(kinds.positive(np.array([3, -1, 0], dtype=np.int32)), [True, False, False])
    assert kinds.count(np.array([True, False, True])) == 2
    # Bytes other than 0 and 1 reinterpreted as booleans count as true.
    assert kinds.count(np.array([0, 2, 1, 255], dtype=np.uint8).view(np.bool_)) == 3


def test_wrong_dtype_names_the_parameter(kinds):
    with pytest.raises(TypeError, match=r"parameter `xs` \(\[\]f64\) of `scale`.*float64.*float32"):
        kinds.scale(2.0, np.ones(3, dtype=np.float32))
    with pytest.raises(TypeError, match="parameter `xss`"):
        kinds.row_sums(np.ones((2, 2)))
    with pytest.raises(TypeError, match="parameter `b`"):
        kinds.both(1, 3, 1.5)
    with pytest.raises(TypeError, match="parameter `x`"):
        kinds.both(True, 3.0, 1.5)
    with pytest.raises(TypeError, match="parameter `a`"):
        kinds.scale("2", np.ones(3))


def test_scalar_out_of_range(kinds):
    with pytest.raises(ValueError, match="parameter `k`.*300 does not fit in u8"):
        kinds.shift(np.array([1], dtype=np.uint8), 300)
    with pytest.raises(ValueError, match="parameter `x`"):
        kinds.both(True, 2**31, 1.0)


def test_numpy_scalars_and_zero_dimensional_arrays(kinds):
    assert kinds.both(np.bool_(False), np.int64(7), np.float32(0.25)) == (True, 8, 0.5)
    assert kinds.pick(np.arange(4.0), np.array(2)) == 2.0


def test_lists_convert_when_unambiguous(kinds):
    np.testing.assert_array_equal(kinds.scale(2.0, [1, 2, 3]), [2.0, 4.0, 6.0])
    assert kinds.cube_sum([[[1, 2], [3, 4]]]) == 10
    assert kinds.count([True, True, False]) == 2
    np.testing.assert_array_equal(kinds.shift([1, 2], 1), [2, 3])
    np.testing.assert_array_equal(kinds.scale(1.0, []), np.zeros(0))
    with pytest.raises(TypeError, match="parameter `xs`"):
        kinds.shift([1.5], 1)
    with pytest.raises(TypeError, match="parameter `xs`"):
        kinds.shift([-1, 2], 1)
    with pytest.raises(TypeError, match="parameter `bs`"):
        kinds.count([1, 0])
    with pytest.raises(ValueError, match="parameter `xs`"):
        kinds.scale(1.0, [[1.0], [2.0, 3.0]])


# --- ranks and layouts ----------------------------------------------------------------------


def test_ranks(kinds):
    np.testing.assert_array_equal(kinds.outer(np.arange(2.0), np.arange(3.0)), np.outer(np.arange(2.0), np.arange(3.0)))
    assert kinds.cube_sum(np.arange(24, dtype=np.int64).reshape(2, 3, 4)) == sum(range(24))
    with pytest.raises(ValueError, match=r"parameter `xs`.*rank 1.*shape \(2, 2\)"):
        kinds.scale(1.0, np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"parameter `xsss`.*rank 3"):
        kinds.cube_sum(np.ones((2, 2), dtype=np.int64))
    with pytest.raises(ValueError, match="parameter `xs`.*scalar"):
        kinds.scale(1.0, 2.0)
    with pytest.raises(ValueError, match="parameter `a`.*takes a scalar"):
        kinds.scale(np.ones(2), np.ones(2))


def test_non_contiguous_inputs_are_copied(kinds):
    base = np.arange(24.0).reshape(4, 6)
    np.testing.assert_array_equal(kinds.scale(1.0, base[:, 1]), base[:, 1])
    np.testing.assert_array_equal(kinds.scale(1.0, base[0, ::-2]), base[0, ::-2])
    f32 = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(kinds.row_sums(f32), f32.sum(axis=1))
    swapped = np.arange(3.0).astype(">f8")
    np.testing.assert_array_equal(kinds.scale(2.0, swapped), [0.0, 2.0, 4.0])


def test_sizes_must_agree(kinds):
    with pytest.raises(gradus.ProgramError):
        gradus.compile_source(
            "entry dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)",
            backend=kinds.backend,
        ).dot(np.ones(2), np.ones(3))


# --- errors ---------------------------------------------------------------------------------


def test_compile_error_has_location():
    with pytest.raises(gradus.CompileError) as info:
        gradus.compile_source("entry f (x: f64) = x +", name="bad.fut")
    assert str(info.value).startswith("bad.fut:1:23: ")
    assert info.value.location == "bad.fut:1:23"
    with pytest.raises(gradus.CompileError, match=r"bad_types.fut:1:\d+"):
        gradus.compile_source("entry f (x: f64) : i32 = x", name="bad_types.fut")


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="nowhere.fut"):
        gradus.compile("nowhere.fut")


def test_program_error_has_message_and_locations(kinds):
    with pytest.raises(gradus.ProgramError) as info:
        kinds.pick(np.arange(3.0), 5)
    e = info.value
    assert e.message == "Index [5] out of bounds for array of shape [3]."
    assert e.locations and all(str(KINDS) in loc for loc in e.locations)
    assert e.locations[0].startswith(f"{KINDS}:15:")


def test_wrong_argument_count(kinds):
    with pytest.raises(TypeError, match=r"scale\(\) takes 2 argument"):
        kinds.scale(1.0)
    with pytest.raises(TypeError, match=r"scale\(\) takes 2 argument"):
        kinds.scale(1.0, np.ones(1), 3)


def test_unknown_entry_point(kinds):
    with pytest.raises(AttributeError, match="no entry point or attribute `nope`.*scale"):
        kinds.nope
    with pytest.raises(KeyError):
        kinds["nope"]


def test_bad_options():
    with pytest.raises(ValueError, match="unknown backend `cuda`"):
        gradus.compile_source("entry f (x: f64) = x", backend="cuda")
    with pytest.raises(ValueError, match="threads"):
        gradus.compile_source("entry f (x: f64) = x", threads=0)


def test_unsafe_drops_checks():
    src = "entry f (xs: []f64) (i: i64) : f64 = if i < length xs then xs[i] else 0"
    prog = gradus.compile_source(src, backend="c", safe=False)
    assert not prog.safe
    assert prog.f(np.arange(3.0), 2) == 2.0


def test_gpu_backend_agrees_with_c():
    src = (
        "entry f (xs: []f64) : ([]f64, f64) = "
        "(map (\\x -> x * x + 1) xs, reduce (+) 0 (map (* 2) xs))"
    )
    xs = np.linspace(-1.0, 2.0, 1000)
    try:
        gpu = gradus.compile_source(src, backend="gpu")
        got = gpu.f(xs)
    except Exception as e:  # no OpenCL device here
        if "OpenCL" in str(e) and "internal error" not in str(e):
            pytest.skip(f"the gpu backend cannot run here: {e}")
        raise
    want = gradus.compile_source(src, backend="c").f(xs)
    np.testing.assert_allclose(got[0], want[0])
    assert abs(got[1] - want[1]) <= 1e-12 * abs(want[1])


# --- the cache across processes -------------------------------------------------------------


def test_compiled_programs_are_cached_across_processes(tmp_path):
    cache = tmp_path / "cache"
    env = dict(os.environ, GRADUS_CACHE_DIR=str(cache))
    script = (
        "import gradus, sys; "
        "p = gradus.compile(sys.argv[1], backend='c'); "
        "print(gradus.cache_dir()); print(p.scale(2.0, [1.0]))"
    )

    def run():
        out = subprocess.run(
            [sys.executable, "-c", script, str(KINDS)], env=env, capture_output=True, text=True, check=True
        )
        return out.stdout.split("\n")

    lines = run()
    assert lines[0] == str(cache)
    libraries = sorted(cache.glob("*.so"))
    assert len(libraries) == 1
    built = libraries[0].stat().st_mtime_ns
    run()
    assert sorted(cache.glob("*.so")) == libraries
    assert libraries[0].stat().st_mtime_ns == built


# --- threads and the GIL --------------------------------------------------------------------


def test_thread_counts_agree():
    x = np.random.default_rng(3).normal(size=(300, 40))
    one = gradus.compile(KINDS, backend="multicore", threads=1)
    two = gradus.compile(KINDS, backend="multicore", threads=2)
    assert one.threads == 1 and two.threads == 2
    np.testing.assert_allclose(one.outer(x[:, 0], x[0]), two.outer(x[:, 0], x[0]), rtol=0)
    assert one.value(x[:, 0]) == pytest.approx(two.value(x[:, 0]), rel=1e-13)


def test_calls_from_several_python_threads(native):
    xs = [np.full(1000, float(i)) for i in range(8)]
    results = [None] * len(xs)

    def work(i):
        for _ in range(20):
            results[i] = native.scale(2.0, xs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(xs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i, r in enumerate(results):
        np.testing.assert_array_equal(r, 2.0 * xs[i])


def test_the_gil_is_released_during_a_call():
    src = "entry spin (n: i64) : f64 = loop acc = 0f64 for i < n do acc + f64.sin (f64.i64 i)"
    prog = gradus.compile_source(src, name="spin.fut", backend="c")
    prog.spin(1)
    # A call long enough that a held GIL would show as one long pause of this thread.
    n, duration = 100_000, 0.0
    while duration < 0.3 and n < 10**10:
        n *= 4
        start = time.perf_counter()
        prog.spin(n)
        duration = time.perf_counter() - start
    worker = threading.Thread(target=prog.spin, args=(n,))
    longest_pause = 0.0
    last = time.perf_counter()
    worker.start()
    while worker.is_alive():
        now = time.perf_counter()
        longest_pause = max(longest_pause, now - last)
        last = now
        time.sleep(0.001)
    worker.join()
    assert longest_pause < duration / 2, (longest_pause, duration)


# --- the example ------------------------------------------------------------------------------


EXAMPLE = HERE.parent.parent / "examples" / "python"


def test_logistic_example_gradient_matches_finite_differences():
    prog = gradus.compile(EXAMPLE / "logistic.fut")
    rng = np.random.default_rng(2)
    xss, ys, w = rng.normal(size=(40, 3)), (rng.random(40) < 0.5).astype(float), rng.normal(size=3)
    g = prog.gradient(xss, ys, 0.1, w)
    fd = central_differences(lambda v: prog.objective(xss, ys, 0.1, v), w)
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)


def test_logistic_example_fits():
    pytest.importorskip("scipy")
    out = subprocess.run(
        [sys.executable, str(EXAMPLE / "fit_logistic.py")], capture_output=True, text=True, check=True
    ).stdout
    assert "converged: True" in out
    accuracy = float(out.split("training accuracy ")[1].split()[0])
    assert accuracy > 0.75


SPARSE = """
def residual [n] (x: [n]f64) : [n]f64 =
  tabulate n (\\i -> x[i] * x[i] - (if i > 0 then x[i - 1] else 0) + f64.sin x[(i + 3) % n])

entry sparse_jac [n] (x: [n]f64) = sparse_jacobian residual x
entry dense [n] (x: [n]f64) : [n][n]f64 =
  transpose (jmp residual x (tabulate n (\\j -> tabulate n (\\i -> f64.bool (i == j)))))
entry sparse_hess [n] (x: [n]f64) = sparse_hessian (\\y -> f64.sum (residual y)) x
entry dense_hessian [n] (x: [n]f64) : [n][n]f64 =
  jmp (\\y -> vjp (\\z -> f64.sum (residual z)) y 1) x (tabulate n (\\j -> tabulate n (\\i -> f64.bool (i == j))))
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_sparse_jacobian_and_hessian_as_scipy_matrices(backend):
    pytest.importorskip("scipy")
    prog = gradus.compile_source(SPARSE, name="sparse.fut", backend=backend)
    x = np.random.default_rng(3).normal(size=9)
    jac = gradus.csr_matrix(prog.sparse_jac(x), len(x))
    np.testing.assert_allclose(jac.toarray(), prog.dense(x), rtol=1e-12, atol=1e-12)
    assert jac.nnz == 3 * len(x) - 1
    hess = gradus.csr_matrix(prog.sparse_hess(x), len(x))
    np.testing.assert_allclose(hess.toarray(), prog.dense_hessian(x), rtol=1e-12, atol=1e-12)
