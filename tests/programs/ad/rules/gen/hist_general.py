"""Expected values of ../hist_general.fut (see duals.py)."""

import math

from duals import D, cmul, dot, fmt, grad, hist, hvp, mm, real

# h_cmul: complex products per bin, with out-of-range indices.
IS7 = [0, 2, 0, 1, 5, 2, -1]
RE = [1.5, -0.5, 2.0, 0.75, 3.0, -1.25, 2.5]
IM = [0.5, 1.0, -1.5, 0.25, 1.0, 0.5, -2.0]
YR = [1.0, -2.0, 0.5]
YI = [0.25, 1.5, -1.0]


def f_cmul(re, im):
    bins = hist(cmul, (1.0, 0.0), 3, None, IS7, list(zip(re, im)))
    return dot([b[0] for b in bins], YR) + dot([b[1] for b in bins], YI)


print("h_cmul", fmt(grad(f_cmul, [RE, IM])))

# h_rows_mul: element-wise products of rows.
IS6 = [1, 0, 1, 2, 1, 7]
XS = [[0.5, 2.0], [1.5, -1.0], [2.0, 0.25], [-0.5, 3.0], [1.25, 1.5], [4.0, 4.0]]
YB = [[1.0, 2.0], [-1.0, 0.5], [0.25, 3.0]]


def f_rows(flat):
    xs = [flat[2 * i:2 * i + 2] for i in range(6)]
    bins = hist(lambda a, b: [a[0] * b[0], a[1] * b[1]], [1.0, 1.0], 3, None, IS6, xs)
    return sum(dot(b, y) for b, y in zip(bins, YB))


g = grad(f_rows, [[x for r in XS for x in r]])[0]
print("h_rows_mul", fmt([g[2 * i:2 * i + 2] for i in range(6)]))

# h_mat2: 2x2 matrix products into a destination, both differentiated.
IS5 = [1, 0, 1, -3, 1]
DEST = [[1.0, 0.5, -0.5, 2.0], [0.5, 1.0, 1.5, -1.0]]
MS = [[1.0, 2.0, 0.5, -1.0], [0.25, 1.0, 2.0, 0.5], [1.5, -0.5, 1.0, 1.0],
      [3.0, 3.0, 3.0, 3.0], [0.5, 0.75, -1.0, 2.0]]
YM = [[1.0, -1.0, 0.5, 2.0], [0.25, 0.5, -2.0, 1.0]]


def f_mat(dflat, mflat):
    d = [dflat[4 * i:4 * i + 4] for i in range(2)]
    ms = [mflat[4 * i:4 * i + 4] for i in range(5)]
    bins = hist(mm, [1.0, 0.0, 0.0, 1.0], 2, d, IS5, ms)
    return sum(dot(b, y) for b, y in zip(bins, YM))


gd, gm = grad(f_mat, [[x for r in DEST for x in r], [x for r in MS for x in r]])
print("h_mat2", fmt([gd[4 * i:4 * i + 4] for i in range(2)]), fmt([gm[4 * i:4 * i + 4] for i in range(5)]))

# h_minmax: (min, max) pairs per bin from the same values.
VS = [2.0, -1.0, 3.5, 0.5, 4.0, 1.5, 2.5]
YMIN = [1.0, 2.0, -1.0]
YMAX = [0.5, -3.0, 4.0]


def f_minmax(vs):
    bins = hist(lambda a, b: (min(a[0], b[0]), max(a[1], b[1])), (math.inf, -math.inf), 3, None,
                IS7, [(v, v) for v in vs])
    return sum(real(b[0]) != math.inf and b[0] * y or 0.0 for b, y in zip(bins, YMIN)) + \
        sum(real(b[1]) != -math.inf and b[1] * y or 0.0 for b, y in zip(bins, YMAX))


print("h_minmax", fmt(grad(f_minmax, [VS])[0]))

# h_argmin: a minimum carrying a payload (the product of the value and a weight).
WS = [1.0, 2.0, -0.5, 3.0, 0.25, 1.5, 2.0]
YP = [2.0, -1.0, 0.5]


def f_argmin(vs, ws):
    def op(a, b):
        return a if a[0] <= b[0] else b
    bins = hist(op, (math.inf, 0.0), 3, None, IS7, [(v, v * w) for v, w in zip(vs, ws)])
    return sum((b[0] * y if real(b[0]) != math.inf else 0.0) + b[1] * p
               for b, y, p in zip(bins, YMIN, YP))


ga, gw = grad(f_argmin, [VS, WS])
print("h_argmin", fmt(ga), fmt(gw))

# hvp_cmul: the Hessian of f_cmul in re (im fixed) times a direction.
DRE = [1.0, 0.5, -1.0, 2.0, 1.0, -0.5, 0.25]
print("hvp_cmul", fmt(hvp(lambda re: f_cmul(re, [D(D(x)) for x in IM]), RE, DRE)))
