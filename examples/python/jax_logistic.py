"""Fit a logistic regression by gradient descent in JAX, the loss being a gradus program:
``gradus.jax.function`` makes its `objective` entry point a JAX function, and ``jax.grad``
of it runs gradus's compiled reverse derivative. Each step is checked against JAX's own
gradient of the same loss written in jax.numpy.

    pip install ./python jax
    python examples/python/jax_logistic.py
"""

import pathlib

import numpy as np

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402

import gradus  # noqa: E402
import gradus.jax  # noqa: E402

prog = gradus.compile(pathlib.Path(__file__).with_name("logistic.fut"))
objective = gradus.jax.function(prog, "objective")  # (xss, ys, penalty, w) -> f64


def objective_jnp(xss, ys, penalty, w):
    z = xss @ w
    terms = ys * jax.nn.softplus(-z) + (1 - ys) * jax.nn.softplus(z)
    return jnp.mean(terms) + 0.5 * penalty * jnp.dot(w, w)


rng = np.random.default_rng(0)
samples, features = 2000, 10
true_w = rng.normal(size=features)
xss = rng.normal(size=(samples, features))
ys = (rng.random(samples) < 1 / (1 + np.exp(-xss @ true_w))).astype(np.float64)
penalty = 1e-3

grad = jax.jit(jax.grad(objective, argnums=3))
grad_jnp = jax.jit(jax.grad(objective_jnp, argnums=3))

w = jnp.zeros(features)
for step in range(200):
    g = grad(xss, ys, penalty, w)
    g_jnp = grad_jnp(xss, ys, penalty, w)
    assert np.allclose(g, g_jnp, rtol=1e-10, atol=1e-12), (step, g, g_jnp)
    w = w - 1.0 * g
    if step % 50 == 0:
        print(f"step {step:3d}: loss {float(objective(xss, ys, penalty, w)):.6f}")

print(f"final loss {float(objective(xss, ys, penalty, w)):.6f}")
print("weights    ", np.round(np.asarray(w), 2))
print("true       ", np.round(true_w, 2))
print("every gradient agreed with JAX's own to 1e-10")
