"""Expected values of ../loop_resize.fut (see duals.py)."""

from duals import D, fmt, grad, hvp, real
import math


def dsin(x):
    if isinstance(x, D):
        return D(dsin(x.v), dcos(x.v) * x.t)
    return math.sin(x)


def dcos(x):
    if isinstance(x, D):
        return D(dcos(x.v), -1.0 * dsin(x.v) * x.t)
    return math.cos(x)


# grow: loop v = [t] for i < 3 do v ++ map (\x -> x * x + t) v; sum.
def f_grow(args):
    t = args[0]
    v = [t]
    for _ in range(3):
        v = v + [x * x + t for x in v]
    return sum(v[1:], v[0])


print("grow", fmt(grad(lambda a: f_grow(a), [[0.75]])[0]), fmt(hvp(f_grow, [0.75], [1.0])))

# halve: while length v > 1, v = pairwise a * b + 0.5 of its halves; result v[0].
XS = [1.5, 0.5, -1.0, 2.0, 0.25, 1.25, 0.75, -0.5]


def f_halve(v):
    v = list(v)
    while len(v) > 1:
        h = len(v) // 2
        v = [a * b + 0.5 for a, b in zip(v[:h], v[h:])]
    return v[0]


print("halve", fmt(grad(f_halve, [XS])[0]))

# append: acc = [x0]; n times acc ++ [sin(last acc) * w]; sum acc.
def f_append(x0, w):
    acc = [x0[0]]
    for _ in range(4):
        acc = acc + [dsin(acc[-1]) * w[0]]
    return sum(acc[1:], acc[0])


g = grad(f_append, [[0.5], [1.5]])
print("append", fmt(g[0][0]), fmt(g[1][0]))

# keep: twice, square the elements and keep those above 0.5; sum.
KS = [0.9, 0.5, 1.2, 0.3, 1.1, -0.95]


def f_keep(v):
    v = list(v)
    for _ in range(2):
        v = [x * x for x in v]
        v = [x for x in v if real(x) > 0.5]
    return sum(v[1:], v[0]) if v else 0.0


print("keep", fmt(grad(f_keep, [KS])[0]))
print("halve_hvp", fmt(hvp(f_halve, XS, [1.0, -1.0, 0.5, 0.25, 2.0, 1.0, -0.5, 1.5])))

# keep, second order: H dx of f_keep (the kept elements are those of the point itself).
KDX = [1.0, -0.5, 0.25, 2.0, -1.0, 0.5]
print("keep_hvp", fmt(hvp(f_keep, KS, KDX)))


# append_n: append with the number of iterations an input (0 runs the body never).
def f_append_n(x0, w, n):
    acc = [x0[0]]
    for _ in range(n):
        acc = acc + [dsin(acc[-1]) * w[0]]
    return sum(acc[1:], acc[0])


for n in (0, 3):
    g = grad(lambda a, b: f_append_n(a, b, n), [[0.5], [1.5]])
    print("append_n", n, fmt(g[0][0]), fmt(g[1][0]))

# halve of a single element: the while loop never runs.
print("halve1", fmt(grad(f_halve, [[2.5]])[0]))


# rows: a [k][2] array grows by a row computed from the last one; sum of the rows' products.
def f_rows(a, b):
    m = [[a[0], b[0]]]
    for _ in range(3):
        r = m[-1]
        m = m + [[r[0] * r[1], r[0] + b[0]]]
    return sum((r[0] * r[1] for r in m[1:]), m[0][0] * m[0][1])


g = grad(f_rows, [[0.75], [1.25]])
print("rows", fmt(g[0][0]), fmt(g[1][0]))


# forin: a for-in loop appending the running product.
def f_forin(xs):
    acc = [1.0]
    for x in xs:
        acc = acc + [acc[-1] * x]
    return sum(acc[1:], acc[0])


print("forin", fmt(grad(f_forin, [[0.5, 1.5, -2.0]])[0]))


# wfilter: a while loop that filters until at most two elements are left.
def f_wfilter(xs):
    v = list(xs)
    while len(v) > 2:
        v = [x for x in [x * 0.9 + 0.01 for x in v] if real(x) > 0.6]
    return sum(v[1:], v[0]) if v else 0.0


print("wfilter", fmt(grad(f_wfilter, [[0.9, 0.5, 1.2, 0.3, 1.1]])[0]))


# inplace: each iteration updates the first element in place and appends one.
def f_inplace(x0, w):
    x0, w = x0[0], w[0]
    acc = [x0]
    for i in range(3):
        a = list(acc)
        a[0] = acc[0] * w
        acc = a + [acc[i] + w]
    return sum(acc[1:], acc[0])


g = grad(f_inplace, [[0.5], [1.5]])
print("inplace", fmt(g[0][0]), fmt(g[1][0]))


# two: a growing array and one of fixed size updated in place, carried together.
def f_two(x0, w):
    x0, w = x0[0], w[0]
    acc, ys = [x0], [0.25] * 3
    for i in range(3):
        ny = list(ys)
        ny[i] = acc[-1] * w
        acc, ys = acc + [ys[i] + acc[-1]], ny
    return sum(acc[1:], acc[0]) + sum((y * y for y in ys[1:]), ys[0] * ys[0])


g = grad(f_two, [[0.5], [1.5]])
print("two", fmt(g[0][0]), fmt(g[1][0]))
