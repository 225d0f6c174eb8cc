"""Expected values of ../loop_nested_state.fut with the forward-mode dual numbers of
../../rules/gen/duals.py (a gradient is one forward pass per input element)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "rules", "gen"))
from duals import fmt, grad  # noqa: E402


def step(w, s, x, l2, b):
    s = [row[:] for row in s]
    xi = x
    for i in range(l2 // 2):
        h = [a * wi - 0.1 * a * a * si for a, wi, si in zip(xi, w[2 * i], s[2 * i])]
        c = [hi * wi + 0.5 * hi * hi for hi, wi in zip(h, w[2 * i + 1])]
        s[2 * i] = h
        s[2 * i + 1] = c
        xi = c
    return s, xi


def run(wf, sf, xs, l2, b, halve=False):
    w = [wf[r * b:(r + 1) * b] for r in range(l2)]
    s = [sf[r * b:(r + 1) * b] for r in range(l2)]
    total = 0.0
    for x in xs:
        s, y = step(w, s, x, l2, b)
        if halve:
            s[0][0] = s[0][0] * 0.5
        total = total + sum(yi * xi for yi, xi in zip(y, x))
    return total


CASES = [
    ([[0.5, -0.25, 0.75], [1.0, 0.5, -0.5], [0.25, 0.5, 1.0], [-0.75, 0.25, 0.5]],
     [[0.1, 0.2, -0.3], [0.0, 0.5, 0.25], [-0.2, 0.4, 0.1], [0.3, -0.1, 0.2]],
     [[0.5, 1.0, -0.5], [0.25, -0.75, 1.0], [1.0, 0.5, 0.25]]),
    ([[0.9, 0.1], [0.3, -0.6]],
     [[0.2, -0.4], [0.5, 0.1]],
     [[1.0, -1.0], [0.5, 0.5], [-0.25, 0.75], [0.1, 0.2]]),
]

for entry, halve in [("layered", False), ("layered_update", True)]:
    print("-- ==")
    print("-- entry:", entry)
    for w, s, xs in CASES:
        l2, b = len(w), len(w[0])
        wf = [x for r in w for x in r]
        sf = [x for r in s for x in r]
        gw, gs = grad(lambda wf, sf: run(wf, sf, xs, l2, b, halve), [wf, sf])
        print("-- input {", fmt(w), fmt(s), fmt(xs), "}")
        print("-- output {", fmt([gw[r * b:(r + 1) * b] for r in range(l2)]),
              fmt([gs[r * b:(r + 1) * b] for r in range(l2)]), "}")
