"""Expected values of ../rows_of_free_arrays.fut with the forward-mode dual numbers of
../../rules/gen/duals.py (a gradient is one forward pass per input element)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "rules", "gen"))
from duals import fmt, grad  # noqa: E402


def rows(flat, k, d):
    return [flat[j * d:(j + 1) * d] for j in range(k)]


def tri(q, v):
    d = len(v)
    return [sum(q[r * d + c] * v[c] for c in range(r + 1)) for r in range(d)]


def objective(x, mu, q, combine):
    total = 0.0
    for xi in x:
        for m, qj in zip(mu, q):
            z = tri(qj, combine(xi, m))
            total = total + sum(t * t for t in z)
    return total


CASES = [
    ([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]],
     [[0.25, 0.5, -0.75], [-1.0, 0.0, 0.5]],
     [[1.0, 0.0, 0.0, 0.5, 1.5, 0.0, -0.25, 0.75, 2.0],
      [0.5, 0.0, 0.0, -1.0, 1.0, 0.0, 0.25, 0.5, 1.5]]),
    ([[2.0, -0.5]], [[0.5, 1.0], [-0.25, 0.75], [1.0, -1.0]],
     [[1.5, 0.0, 0.5, 1.0], [1.0, 0.0, -0.5, 2.0], [0.75, 0.0, 0.25, 1.25]]),
]


def entry(name, combine, scale=None):
    print("-- ==")
    print("-- entry:", name)
    for x, mu, q in CASES:
        k, d = len(mu), len(mu[0])
        s = [] if scale is None else [scale]
        g_mu, g_q = grad(lambda m, qf: objective(x, rows(m, k, d), rows(qf, k, d * d),
                                                 lambda a, b: combine(a, b, *s)),
                         [[v for r in mu for v in r], [v for r in q for v in r]])
        args = [fmt(x), fmt(mu), fmt([rows(r, d, d) for r in q])] + [fmt(v) for v in s]
        print("-- input {", " ".join(args), "}")
        print("-- output {", fmt(rows(g_mu, k, d)), fmt([rows(r, d, d) for r in rows(g_q, k, d * d)]), "}")
    print()


entry("difference", lambda a, b: [ai - bi for ai, bi in zip(a, b)])
entry("sum", lambda a, b: [ai + bi for ai, bi in zip(a, b)])
entry("scaled", lambda a, b, s: [ai + s * bi for ai, bi in zip(a, b)], scale=1.75)
