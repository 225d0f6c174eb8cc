"""Fit a logistic regression with the objective and gradient compiled by gradus and
scipy.optimize.minimize (L-BFGS-B), on synthetic data.

    pip install ./python scipy
    python examples/python/fit_logistic.py
"""

import pathlib

import numpy as np
from scipy.optimize import minimize

import gradus

prog = gradus.compile(pathlib.Path(__file__).with_name("logistic.fut"))
print(prog)

rng = np.random.default_rng(0)
samples, features = 2000, 10
true_w = rng.normal(size=features)
xss = rng.normal(size=(samples, features))
ys = (rng.random(samples) < 1 / (1 + np.exp(-xss @ true_w))).astype(np.float64)
penalty = 1e-3

result = minimize(
    lambda w: prog.objective(xss, ys, penalty, w),
    np.zeros(features),
    jac=lambda w: prog.gradient(xss, ys, penalty, w),
    method="L-BFGS-B",
)
w = result.x
accuracy = np.mean(prog.predict(xss, w) == (ys == 1))
print(f"converged: {result.success} after {result.nit} iterations ({result.nfev} evaluations)")
print(f"loss {result.fun:.6f}, training accuracy {accuracy:.3f}")
print("weights found:", np.round(w, 2))
print("true weights: ", np.round(true_w, 2))
