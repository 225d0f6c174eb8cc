"""Expected values of ../loop_kept_values.fut with the forward-mode dual numbers of
../../rules/gen/duals.py (a gradient is one forward pass per input element)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "rules", "gen"))
from duals import cbrt, exp, fmt, grad, hvp, tanh  # noqa: E402


def sigmoid(x):
    return 1 / (1 + exp(-x))


def recurrent(w, h0, xs):
    h = list(h0)
    for x in xs:
        g = [sigmoid(xi * wi + hi) for xi, wi, hi in zip(x, w, h)]
        h = [tanh(gi * hi + 0.5) * gi for gi, hi in zip(g, h)]
    return sum(h)


def layered(wf, sf, xs, l, b):
    w = [wf[r * b:(r + 1) * b] for r in range(l)]
    s = [sf[r * b:(r + 1) * b] for r in range(l)]
    total = 0.0
    for x in xs:
        y = x
        for i in range(l):
            h = [tanh(yi * wi + si) for yi, wi, si in zip(y, w[i], s[i])]
            s[i] = h
            y = h
        total = total + exp(sum(y) * 0.1)
    return total


def scalar(x, c, n):
    for _ in range(n):
        x = exp(-x * x) + cbrt(x + 2.0) * c
    return x


print("-- ==")
print("-- entry: recurrent")
for xs, w, h0 in [([[0.5, -0.25, 0.75], [1.0, 0.5, -0.5], [0.2, -0.1, 0.3]],
                   [0.3, -0.6, 0.9], [0.1, 0.2, -0.3]),
                  ([[0.4], [-0.3]], [1.5], [0.25])]:
    gw, gh = grad(lambda w, h0: recurrent(w, h0, xs), [w, h0])
    print("-- input {", fmt(xs), fmt(w), fmt(h0), "}")
    print("-- output {", fmt(gw), fmt(gh), "}")

print()
print("-- ==")
print("-- entry: layered")
for xs, w, s in [([[0.5, 1.0, -0.5], [0.25, -0.75, 1.0], [1.0, 0.5, 0.25]],
                  [[0.5, -0.25, 0.75], [1.0, 0.5, -0.5]],
                  [[0.1, 0.2, -0.3], [0.0, 0.5, 0.25]]),
                 ([[1.0, -1.0], [0.5, 0.5]], [[0.9, 0.1]], [[0.2, -0.4]])]:
    l, b = len(w), len(w[0])
    wf = [x for r in w for x in r]
    sf = [x for r in s for x in r]
    gw, gs = grad(lambda wf, sf: layered(wf, sf, xs, l, b), [wf, sf])
    print("-- input {", fmt(xs), fmt(w), fmt(s), "}")
    print("-- output {", fmt([gw[r * b:(r + 1) * b] for r in range(l)]),
          fmt([gs[r * b:(r + 1) * b] for r in range(l)]), "}")

print()
print("-- ==")
print("-- entry: scalar")
for x, c, n in [(0.3, 0.5, 4), (-1.2, 0.25, 1), (0.7, -0.4, 0)]:
    gx, gc = grad(lambda x, c: scalar(x[0], c[0], n), [[x], [c]])
    print("-- input {", fmt(x), fmt(c), f"{n}i64", "}")
    print("-- output {", fmt(gx[0]), fmt(gc[0]), "}")

print()
for entry in ["hessian_fwd", "hessian_rev"]:
    print("-- ==")
    print("-- entry:", entry)
    for xs, w, v in [([[0.5, -0.25, 0.75], [1.0, 0.5, -0.5], [0.2, -0.1, 0.3]],
                      [0.3, -0.6, 0.9], [1.0, 0.5, -0.25]),
                     ([[0.4], [-0.3]], [1.5], [2.0])]:
        h0 = [0.1] * len(w)
        hv = hvp(lambda w: recurrent(w, h0, xs), w, v)
        print("-- input {", fmt(xs), fmt(w), fmt(v), "}")
        print("-- output {", fmt(hv), "}")
    print()
