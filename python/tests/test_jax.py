"""gradus.jax: an entry point as a JAX function, under jit, grad, vjp, jvp and vmap, against
JAX's own derivatives of the same function written in jax.numpy (to 1e-10, in f64), each
through both ways a jitted call reaches the program: XLA's FFI and jax.pure_callback."""

import pathlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import gradus  # noqa: E402
import gradus.jax  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
DERIVE = HERE / "derive.fut"
KINDS = HERE / "kinds.fut"
TOL = dict(rtol=1e-10, atol=1e-10)


def objective_jnp(w, x, s, k):
    return jnp.sum(jnp.sin(w * x) * s + w * w * x) + s * s * k


def pair_jnp(w, s):
    return w * w * s, jnp.sum(jnp.cos(w)) * s


@pytest.fixture(scope="module", params=["interp", "c"])
def prog(request):
    return gradus.compile(DERIVE, backend=request.param)


@pytest.fixture(params=["ffi", "callback"])
def call(request):
    """How a call under jax.jit reaches the program."""
    return request.param


def jfun(prog, entry, call, **kw):
    return gradus.jax.function(prog, entry, call=call, **kw)


@pytest.fixture(scope="module")
def point():
    rng = np.random.default_rng(5)
    return rng.standard_normal(7), rng.standard_normal(7), 0.8, 3


def test_value_eager_and_under_jit(prog, point, call):
    f = jfun(prog, "objective", call)
    want = objective_jnp(*point)
    np.testing.assert_allclose(f(*point), want, **TOL)
    np.testing.assert_allclose(jax.jit(f)(*point), want, **TOL)
    w, x, s, k = point
    np.testing.assert_allclose(jax.jit(f)(w[:0], x[:0], s, k), s * s * k, **TOL)
    # Two independent calls in one computation (XLA may run them at once).
    two = jax.jit(lambda w, x: f(w, x, s, k) - 2 * f(x, w, -s, k))
    np.testing.assert_allclose(
        two(w, x), objective_jnp(w, x, s, k) - 2 * objective_jnp(x, w, -s, k), **TOL
    )


def test_grad_equals_jaxs_gradient(prog, point, call):
    f = jfun(prog, "objective", call)
    want = jax.grad(objective_jnp, argnums=(0, 1, 2))(*point)
    for transform in [lambda g: g, jax.jit]:
        got = transform(jax.grad(f, argnums=(0, 1, 2)))(*point)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, **TOL)
    # A cotangent other than 1 scales the gradient (the reverse rule of a scalar result).
    k = point[3]
    pull = lambda fun: lambda w, x, s: jax.vjp(lambda *a: fun(*a, k), w, x, s)[1](0.7)  # noqa: E731
    want = pull(objective_jnp)(*point[:3])
    for transform in [lambda g: g, jax.jit]:
        for g, w in zip(transform(pull(f))(*point[:3]), want):
            np.testing.assert_allclose(g, w, **TOL)


def test_vjp_and_jvp_of_several_results(prog, call):
    rng = np.random.default_rng(6)
    w, s = rng.standard_normal(4), 1.3
    f = jfun(prog, "pair", call)
    yb = (rng.standard_normal(4), 0.4)
    y, pull = jax.vjp(f, w, s)
    y_want, pull_want = jax.vjp(pair_jnp, w, s)
    for a, b in zip(y, y_want):
        np.testing.assert_allclose(a, b, **TOL)
    for a, b in zip(pull(yb), pull_want(yb)):
        np.testing.assert_allclose(a, b, **TOL)
    wd, sd = rng.standard_normal(4), -0.2
    for transform in [lambda g: g, jax.jit]:
        y, ydot = transform(lambda *a: jax.jvp(f, a[:2], a[2:]))(w, s, wd, sd)
        y_w, ydot_w = jax.jvp(pair_jnp, (w, s), (wd, sd))
        for a, b in zip(ydot, ydot_w):
            np.testing.assert_allclose(a, b, **TOL)


def test_vmap_loops_over_the_batch(prog, point, call):
    f = jfun(prog, "objective", call)
    w, x, s, k = point
    ws = np.stack([w, 2 * w, -w])
    got = jax.vmap(f, in_axes=(0, None, None, None))(ws, x, s, k)
    want = jax.vmap(objective_jnp, in_axes=(0, None, None, None))(ws, x, s, k)
    np.testing.assert_allclose(got, want, **TOL)
    g = jax.jit(jax.vmap(jax.grad(f), in_axes=(0, None, None, None)))(ws, x, s, k)
    g_want = jax.vmap(jax.grad(objective_jnp), in_axes=(0, None, None, None))(ws, x, s, k)
    np.testing.assert_allclose(g, g_want, **TOL)


def test_a_gradient_descent_step_inside_jit(prog, point, call):
    f = jfun(prog, "expv", call)
    w = point[0]

    def loss(fun, w, c):
        return jnp.sum(fun(w, c) ** 2)

    step = jax.jit(lambda w, c: w - 0.1 * jax.grad(lambda w: loss(f, w, c))(w))
    step_jnp = lambda w, c: w - 0.1 * jax.grad(lambda w: loss(lambda w, c: jnp.exp(w * c), w, c))(w)
    np.testing.assert_allclose(step(w, 0.3), step_jnp(w, 0.3), **TOL)


def test_errors(prog, call):
    with pytest.raises(KeyError):
        jfun(prog, "nope", call)
    f = jfun(prog, "objective", call)
    with pytest.raises(TypeError, match="takes 4 argument"):
        f(np.ones(2))


def test_derivatives_of_derivatives(prog, point, call):
    """jax.hessian (forward over reverse), grad of grad, the jvp of a gradient and the
    Jacobian of a vjp: gradus's nested derivatives against JAX's own."""
    f = jfun(prog, "objective", call)
    w, x, s, k = point
    for transform in [lambda g: g, jax.jit]:
        got = transform(jax.hessian(f, argnums=(0, 2)))(w, x, s, k)
        want = jax.hessian(objective_jnp, argnums=(0, 2))(w, x, s, k)
        for g_row, w_row in zip(got, want):
            for g, v in zip(g_row, w_row):
                np.testing.assert_allclose(g, v, **TOL)
        gg = transform(jax.grad(jax.grad(f, argnums=2), argnums=2))(w, x, s, k)
        np.testing.assert_allclose(
            gg, jax.grad(jax.grad(objective_jnp, argnums=2), argnums=2)(w, x, s, k), **TOL
        )
    # Reverse over reverse: the gradient of a function of the gradient.
    norm = lambda fun: lambda w: jnp.sum(jax.grad(fun)(w, x, s, k) ** 2)  # noqa: E731
    np.testing.assert_allclose(
        jax.jit(jax.grad(norm(f)))(w), jax.grad(norm(objective_jnp))(w), **TOL
    )
    # Several results: the Jacobian of a vjp with respect to the point.
    g = jfun(prog, "pair", call)
    yb = (np.linspace(-1, 1, 4), 0.3)
    ws = np.linspace(0.2, 0.9, 4)
    pull = lambda fun: lambda w: jax.vjp(fun, w, 1.1)[1](yb)[0]  # noqa: E731
    np.testing.assert_allclose(
        jax.jacfwd(pull(g))(ws), jax.jacfwd(pull(pair_jnp))(ws), **TOL
    )


def test_result_shapes_not_in_the_signature(prog, call):
    f = jfun(prog, "spread", call)
    with pytest.raises(ValueError, match="pass result_shapes="):
        jax.jit(f)(4, 1.5)
    f = jfun(prog, "spread", call, result_shapes=lambda k, c: [(4,)])

    def loss(fun, c):
        return jnp.sum(fun(c) ** 2)

    got = jax.jit(jax.grad(lambda c: loss(lambda c: f(4, c), c)))(1.5)
    want = jax.grad(lambda c: loss(lambda c: c * c * jnp.arange(4.0), c))(1.5)
    np.testing.assert_allclose(got, want, **TOL)


def lowered(f, *args):
    return jax.jit(f).lower(*args).as_text()


def test_each_mode_takes_the_path_asked_for(prog, point):
    """call="ffi" and "auto" lower every mode (the entry, its jvp, its gradient or vjp) to a
    custom call of gradus's FFI target, "callback" to a host callback."""
    w, x, s, k = point
    pair = lambda f: lambda w, s: jax.vjp(f, w, s)[1]((w, s))  # noqa: E731
    jvp = lambda f: lambda w, s: jax.jvp(f, (w, s), (w, s))  # noqa: E731
    for mode in ["ffi", "auto", "callback"]:
        f = jfun(prog, "objective", mode)
        p = jfun(prog, "pair", mode)
        texts = [
            lowered(f, w, x, s, k),
            lowered(jax.grad(f), w, x, s, k),
            lowered(pair(p), w, s),
            lowered(jvp(p), w, s),
        ]
        for text in texts:
            assert ("custom_call @gradus_call" in text) == (mode != "callback"), text
            assert ("callback" in text) == (mode == "callback"), text


def test_element_types_and_ranks_through_the_ffi(call):
    """f32 arrays of rank 2, bool/i32/f32 scalars, several results of mixed types: the same
    as the direct calls."""
    kinds = gradus.compile(KINDS, backend="c")
    rng = np.random.default_rng(7)
    xss = rng.standard_normal((3, 5)).astype(np.float32)
    f = jfun(kinds, "row_sums", call)
    np.testing.assert_array_equal(jax.jit(f)(xss), kinds.row_sums(xss))
    both = jfun(kinds, "both", call)
    got = jax.jit(both)(True, np.int32(41), np.float32(1.25))
    for g, w in zip(got, kinds.both(True, 41, 1.25)):
        assert g == w
    outer = jfun(kinds, "outer", call)
    xs, ys = rng.standard_normal(4), rng.standard_normal(2)
    np.testing.assert_array_equal(jax.jit(outer)(xs, ys), kinds.outer(xs, ys))
    stats = jfun(kinds, "stats", call)
    for got, want in zip(jax.jit(stats)(xs), kinds.stats(xs)):
        assert got == want


def test_a_run_time_error_comes_back_as_an_error(call):
    kinds = gradus.compile(KINDS, backend="c")
    pick = jax.jit(jfun(kinds, "pick", call))
    assert pick(np.arange(3.0), 2) == 2.0
    with pytest.raises(Exception, match="out of bounds"):
        jax.block_until_ready(pick(np.arange(3.0), 7))


def test_wrong_result_shapes_are_an_error_not_a_crash(prog, call):
    f = jfun(prog, "spread", call, result_shapes=lambda k, c: [(5,)])
    with pytest.raises(Exception, match="JAX expects \\[5\\]f64" if call == "ffi" else "shape"):
        jax.block_until_ready(jax.jit(lambda c: f(4, c))(1.5))


def test_without_x64_auto_falls_back_and_ffi_refuses(prog, point):
    """An f64 program under JAX's default f32: the arguments are not the parameters' dtype,
    so the FFI cannot pass them where they lie; "auto" takes the callback, "ffi" says why."""
    w, x, s, k = point
    with jax.enable_x64(False):
        f = jfun(prog, "objective", "auto")
        text = lowered(f, w, x, s, k)
        assert "custom_call @gradus_call" not in text and "callback" in text
        want = objective_jnp(*(np.float32(a) for a in (w, x, s)), k)
        np.testing.assert_allclose(jax.jit(f)(w, x, s, k), want, rtol=1e-5)
        with pytest.raises(ValueError, match="jax_enable_x64"):
            jax.jit(jfun(prog, "objective", "ffi"))(w, x, s, k)


def test_call_must_be_one_of_three(prog):
    with pytest.raises(ValueError, match='"auto", "ffi" or "callback"'):
        gradus.jax.function(prog, "objective", call="xla")
