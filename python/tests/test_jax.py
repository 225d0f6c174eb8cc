"""gradus.jax: an entry point as a JAX function, under jit, grad, vjp, jvp and vmap, against
JAX's own derivatives of the same function written in jax.numpy (to 1e-10, in f64)."""

import pathlib

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import gradus  # noqa: E402
import gradus.jax  # noqa: E402

DERIVE = pathlib.Path(__file__).resolve().parent / "derive.fut"
TOL = dict(rtol=1e-10, atol=1e-10)


def objective_jnp(w, x, s, k):
    return jnp.sum(jnp.sin(w * x) * s + w * w * x) + s * s * k


def pair_jnp(w, s):
    return w * w * s, jnp.sum(jnp.cos(w)) * s


@pytest.fixture(scope="module", params=["interp", "c"])
def prog(request):
    return gradus.compile(DERIVE, backend=request.param)


@pytest.fixture(scope="module")
def point():
    rng = np.random.default_rng(5)
    return rng.standard_normal(7), rng.standard_normal(7), 0.8, 3


def test_value_eager_and_under_jit(prog, point):
    f = gradus.jax.function(prog, "objective")
    want = objective_jnp(*point)
    np.testing.assert_allclose(f(*point), want, **TOL)
    np.testing.assert_allclose(jax.jit(f)(*point), want, **TOL)


def test_grad_equals_jaxs_gradient(prog, point):
    f = gradus.jax.function(prog, "objective")
    want = jax.grad(objective_jnp, argnums=(0, 1, 2))(*point)
    for transform in [lambda g: g, jax.jit]:
        got = transform(jax.grad(f, argnums=(0, 1, 2)))(*point)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, **TOL)


def test_vjp_and_jvp_of_several_results(prog):
    rng = np.random.default_rng(6)
    w, s = rng.standard_normal(4), 1.3
    f = gradus.jax.function(prog, "pair")
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


def test_vmap_loops_over_the_batch(prog, point):
    f = gradus.jax.function(prog, "objective")
    w, x, s, k = point
    ws = np.stack([w, 2 * w, -w])
    got = jax.vmap(f, in_axes=(0, None, None, None))(ws, x, s, k)
    want = jax.vmap(objective_jnp, in_axes=(0, None, None, None))(ws, x, s, k)
    np.testing.assert_allclose(got, want, **TOL)
    g = jax.jit(jax.vmap(jax.grad(f), in_axes=(0, None, None, None)))(ws, x, s, k)
    g_want = jax.vmap(jax.grad(objective_jnp), in_axes=(0, None, None, None))(ws, x, s, k)
    np.testing.assert_allclose(g, g_want, **TOL)


def test_a_gradient_descent_step_inside_jit(prog, point):
    f = gradus.jax.function(prog, "expv")
    w = point[0]

    def loss(fun, w, c):
        return jnp.sum(fun(w, c) ** 2)

    step = jax.jit(lambda w, c: w - 0.1 * jax.grad(lambda w: loss(f, w, c))(w))
    step_jnp = lambda w, c: w - 0.1 * jax.grad(lambda w: loss(lambda w, c: jnp.exp(w * c), w, c))(w)
    np.testing.assert_allclose(step(w, 0.3), step_jnp(w, 0.3), **TOL)


def test_errors(prog):
    with pytest.raises(KeyError):
        gradus.jax.function(prog, "nope")
    f = gradus.jax.function(prog, "objective")
    with pytest.raises(TypeError, match="takes 4 argument"):
        f(np.ones(2))
    g = jax.grad(jax.grad(gradus.jax.function(prog, "objective"), argnums=2), argnums=2)
    with pytest.raises(NotImplementedError, match="derivatives of derivatives"):
        g(np.ones(2), np.ones(2), 1.0, 1)


def test_result_shapes_not_in_the_signature(prog):
    f = gradus.jax.function(prog, "spread")
    with pytest.raises(ValueError, match="pass result_shapes="):
        jax.jit(f)(4, 1.5)
    f = gradus.jax.function(prog, "spread", result_shapes=lambda k, c: [(4,)])

    def loss(fun, c):
        return jnp.sum(fun(c) ** 2)

    got = jax.jit(jax.grad(lambda c: loss(lambda c: f(4, c), c)))(1.5)
    want = jax.grad(lambda c: loss(lambda c: c * c * jnp.arange(4.0), c))(1.5)
    np.testing.assert_allclose(got, want, **TOL)
