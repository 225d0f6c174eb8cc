"""Expected values of ../loop_write_once.fut with the forward-mode dual numbers of
../../rules/gen/duals.py (a gradient is one forward pass per input element)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "rules", "gen"))
from duals import fmt, grad  # noqa: E402


def rows(xsf, w, n, d):
    ys = [xsf[r * d:(r + 1) * d] for r in range(n)]
    for i in range(n):
        ys[i] = [y * y * wj + y for y, wj in zip(ys[i], w)]
    return sum(sum(y * wj for y, wj in zip(r, w)) for r in ys)


def pairs(s, x):
    s = list(s)
    c = x[0]
    for i in range(len(s) // 2):
        a, b = s[2 * i], s[2 * i + 1]
        h = a * c + b
        s[2 * i] = h * h
        s[2 * i + 1] = h + a * b
        c = h
    return c * sum(s)


def overlapping(s):
    s = list(s)
    for i in range((len(s) - 1) // 2):
        a, b = s[2 * i], s[2 * i + 2]
        s[2 * i] = a * b
        s[2 * i + 2] = a + b * b * 0.5
    return sum(v * (k + 1) for k, v in enumerate(s))


print("-- ==")
print("-- entry: rows")
for xs, w in [([[0.5, -0.25, 0.75], [1.0, 0.5, -0.5]], [0.3, -0.6, 0.9]),
              ([[0.2], [0.4], [-0.3], [0.1]], [1.5])]:
    n, d = len(xs), len(w)
    xsf = [x for r in xs for x in r]
    gx, gw = grad(lambda xsf, w: rows(xsf, w, n, d), [xsf, w])
    print("-- input {", fmt(xs), fmt(w), "}")
    print("-- output {", fmt([gx[r * d:(r + 1) * d] for r in range(n)]), fmt(gw), "}")

print()
print("-- ==")
print("-- entry: pairs")
for s, x in [([0.5, -0.25, 0.75, 0.1, -0.4, 0.3], 0.7), ([0.9, 0.2, -0.5], -0.3)]:
    gs, gx = grad(pairs, [s, [x]])
    print("-- input {", fmt(s), fmt(x), "}")
    print("-- output {", fmt(gs), fmt(gx[0]), "}")

print()
print("-- ==")
print("-- entry: overlapping")
for s in [[0.5, -0.25, 0.75, 0.1, -0.4, 0.3, 0.6], [0.9, 0.2, -0.5, 0.4]]:
    (gs,) = grad(overlapping, [s])
    print("-- input {", fmt(s), "}")
    print("-- output {", fmt(gs), "}")
