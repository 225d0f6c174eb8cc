"""Expected values of ../scan_general.fut (see duals.py)."""

from duals import dot, fmt, grad, hvp, mm


def scan(op, ne, xs):
    out, acc = [], ne
    for x in xs:
        acc = op(acc, x)
        out.append(acc)
    return out


# s_mat2: running 2x2 matrix products.
MS = [[1.0, 2.0, 0.5, -1.0], [0.25, 1.0, 2.0, 0.5], [1.5, -0.5, 1.0, 1.0], [0.5, 0.75, -1.0, 2.0]]
YM = [[1.0, -1.0, 0.5, 2.0], [0.25, 0.5, -2.0, 1.0], [1.0, 0.0, 0.0, 1.0], [-0.5, 1.5, 1.0, 0.25]]


def f_mat(flat):
    ms = [flat[4 * i:4 * i + 4] for i in range(4)]
    ys = scan(mm, [1.0, 0.0, 0.0, 1.0], ms)
    return sum(dot(y, b) for y, b in zip(ys, YM))


g = grad(f_mat, [[x for r in MS for x in r]])[0]
print("s_mat2", fmt([g[4 * i:4 * i + 4] for i in range(4)]))

# s_rows_mul: element-wise products of rows.
XS = [[0.5, 2.0], [1.5, -1.0], [2.0, 0.25], [-0.5, 3.0]]
YB = [[1.0, 2.0], [-1.0, 0.5], [0.25, 3.0], [2.0, -1.0]]


def f_rows(flat):
    xs = [flat[2 * i:2 * i + 2] for i in range(4)]
    ys = scan(lambda a, b: [a[0] * b[0], a[1] * b[1]], [1.0, 1.0], xs)
    return sum(dot(y, b) for y, b in zip(ys, YB))


g = grad(f_rows, [[x for r in XS for x in r]])[0]
print("s_rows_mul", fmt([g[2 * i:2 * i + 2] for i in range(4)]))

# s_affine_vec: y_i = A_i y_(i-1) + b_i with 2x2 A_i and 2-vectors, as a scan over affine maps
# (A, b), composed (A1, b1) then (A2, b2) = (A2 A1, A2 b1 + b2); the result's b parts are the
# states from y_(-1) = 0.
AS = MS
BS = [[1.0, -1.0], [0.5, 2.0], [-1.5, 0.25], [2.0, 1.0]]
YS = [[1.0, 0.5], [-1.0, 2.0], [0.25, -0.5], [1.5, 1.0]]


def mv(a, v):
    return [a[0] * v[0] + a[1] * v[1], a[2] * v[0] + a[3] * v[1]]


def comp(f, g):
    return (mm(g[0], f[0]), [p + q for p, q in zip(mv(g[0], f[1]), g[1])])


def f_aff(aflat, bflat):
    a = [aflat[4 * i:4 * i + 4] for i in range(4)]
    b = [bflat[2 * i:2 * i + 2] for i in range(4)]
    ys = scan(comp, ([1.0, 0.0, 0.0, 1.0], [0.0, 0.0]), list(zip(a, b)))
    return sum(dot(y[1], s) for y, s in zip(ys, YS))


ga, gb = grad(f_aff, [[x for r in AS for x in r], [x for r in BS for x in r]])
print("s_affine_vec", fmt([ga[4 * i:4 * i + 4] for i in range(4)]), fmt([gb[2 * i:2 * i + 2] for i in range(4)]))

# s_count: a mixed tuple (running product, running count of elements).
VS = [1.5, -0.5, 2.0, 0.75, 1.25]
YP = [1.0, 2.0, -1.0, 0.5, 1.0]


def f_count(vs):
    ys = scan(lambda a, b: (a[0] * b[0], a[1] + b[1]), (1.0, 0), [(v, 1) for v in vs])
    return sum(y[0] * p for y, p in zip(ys, YP))


print("s_count", fmt(grad(f_count, [VS])[0]))

# hvp_rows: the Hessian of f_rows times a direction.
DX = [1.0, 0.5, -1.0, 2.0, 0.25, -0.5, 1.5, 1.0]
print("hvp_rows", fmt(hvp(f_rows, [x for r in XS for x in r], DX)))

# mul_nested: scan (*) (the dedicated rule, and with a zero element the exact fallback):
# gradient and Hessian-vector product of <yb, scan (*) 1 xs>.
YM1 = [1.0, 2.0, -1.0, 0.5]
DM = [1.0, -0.5, 0.25, 2.0]
for xs in ([1.5, -0.5, 2.0, 0.75], [1.5, 0.0, 2.0, 0.75]):
    def f_mul(v):
        return dot(scan(lambda a, b: a * b, 1.0, v), YM1)
    print("mul_nested", fmt(grad(lambda v: f_mul(v), [xs])[0]), fmt(hvp(f_mul, xs, DM)))
