"""reduce and scan in reverse mode: +, * with zeros, min/max with ties, tuple operators
(affine-map composition, logsumexp pairs, complex multiplication), array-valued operators."""

from common import *  # noqa: F401,F403

P = []


def prod_except(x):
    """Exact products of all other elements (no division, so zeros are fine)."""
    x = np.asarray(x, dtype=float)
    return np.array([np.prod(np.delete(x, i)) for i in range(len(x))])


def first_arg(x, pick):
    idx = int(np.flatnonzero(x == pick(x))[0])
    g = np.zeros(len(x))
    g[idx] = 1
    return g


# ---------------------------------------------------------------------------------------------
p = Program("reduce_add", """
reduce with +: every element gets the result's cotangent; sums of maps; sums of rows; empty input.
""", """
entry sum (xs: [5]f64) = vjp f64.sum xs 3

entry reduce_plus (xs: [4]f64) = vjp (\\v -> reduce (+) 0 (map (\\t -> t * t * t) v)) xs 1

entry comm (xs: [4]f64) (k: f64) = vjp (\\(v, c) -> reduce_comm (+) 0 (map (* c) v) * c) (xs, k) 1

entry rows (m: [2][3]f64) (yb: [2]f64) = vjp (map f64.sum) m yb

entry empty (xs: [0]f64) (k: f64) = vjp (\\(v, c) -> f64.sum v + c) (xs, k) 1
""")
P.append(p.test("sum", lambda x: f64(np.full(len(x), 3.0)), [f64([1, 2, 3, 4, 5])]))
p.test("reduce_plus", lambda x: f64(3 * x * x), [f64([1, -2, 0.5, 0])])
p.test("comm", lambda x, k: vjp(lambda v, c: jnp.sum(v * c) * c, (x, k), 1.0), [(f64([1, 2, 3, 4]), f64(0.5))])
p.test("rows", lambda m, yb: f64(np.repeat(yb[:, None], 3, axis=1)), [(rand(1, 2, 3), f64([2, -1]))])
p.test("empty", lambda x, k: (f64(np.zeros(0)), f64(1.0)), [(f64(np.zeros(0)), f64(2.0))])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_mul", """
reduce with *: exact gradients with no, one and several zero elements (no division).
""", """
entry product (xs: [4]f64) = vjp f64.product xs 1

entry reduce_times (xs: [5]f64) (k: f64) = vjp (\\v -> reduce (*) 1 v) xs k

entry of_map (xs: [3]f64) = vjp (\\v -> f64.product (map (\\t -> t - 1) v)) xs 1

entry ints (xs: [4]i32) = vjp i32.product xs 1
""")
P.append(p.test("product", lambda x: f64(prod_except(x)),
                [f64([1, 2, 3, 4]), f64([0, 2, 0, 4]), f64([1, 0, 3, 5]), f64([0, 0, 0, 0]), f64([-1, 0.5, 2, -3])]))
p.test("reduce_times", lambda x, k: f64(k * prod_except(x)), [(f64([1, 0, 3, 2, 1]), f64(2.0)), (f64([1, 2, 3, 2, 1]), f64(-1.0)), (f64([0, 2, 3, 2, 0]), f64(1.0))])
p.test("of_map", lambda x: f64(prod_except(x - 1)), [f64([2, 3, 4]), f64([1, 3, 4]), f64([1, 1, 5])])
p.test("ints", lambda x: i32([np.prod(np.delete(x.astype(np.int64), i)) for i in range(4)]), [i32([1, 2, 3, 4]), i32([0, 2, 0, 4]), i32([5, 0, 3, 7])])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_min", """
reduce with min: the whole cotangent goes to the first element equal to the minimum.
""", """
entry minimum (xs: [5]f64) = vjp f64.minimum xs 1

entry reduce_min (xs: [4]f64) (k: f64) = vjp (\\v -> reduce f64.min f64.inf v) xs k

entry of_map (xs: [4]f64) = vjp (\\v -> f64.minimum (map (\\t -> t * t) v)) xs 1
""")
P.append(p.test("minimum", lambda x: f64(first_arg(x, np.min)),
                [f64([3, 1, 2, 1, 5]), f64([1, 1, 1, 1, 1]), f64([5, 4, 3, 2, 1]), f64([-1, 2, -1, -3, -3])]))
p.test("reduce_min", lambda x, k: f64(k * first_arg(x, np.min)), [(f64([2, 2, 3, 4]), f64(2.0)), (f64([4, 3, 2, 2]), f64(-1.0))])
p.test("of_map", lambda x: f64(first_arg(x * x, np.min) * 2 * x), [f64([2, -1, 1, 3]), f64([3, 0.5, -0.5, 2])])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_max", """
reduce with max: the whole cotangent goes to the first element equal to the maximum, also for
integers and for a max of a map.
""", """
entry maximum (xs: [5]f64) = vjp f64.maximum xs 1

entry reduce_max (xs: [4]f64) = vjp (\\v -> reduce f64.max (-f64.inf) v * 2) xs 1

entry ints (xs: [4]i32) = vjp i32.maximum xs 5

entry softmax_stable (xs: [4]f64) = vjp (\\v -> let m = f64.maximum v in m + f64.log (f64.sum (map (\\t -> f64.exp (t - m)) v))) xs 1

entry max_plus_map (xs: [4]f64) = vjp (\\v -> f64.maximum v + f64.sum (map (\\t -> 3 * t) v)) xs 1
""")
P.append(p.test("maximum", lambda x: f64(first_arg(x, np.max)),
                [f64([3, 5, 2, 5, 1]), f64([2, 2, 2, 2, 2]), f64([1, 2, 3, 4, 5]), f64([-5, -1, -1, -2, -3])]))
p.test("reduce_max", lambda x: f64(2 * first_arg(x, np.max)), [f64([1, 4, 4, 0]), f64([7, 1, 2, 3])])
p.test("ints", lambda x: i32(5 * first_arg(x, np.max)), [i32([1, 9, 9, 2]), i32([-3, -4, -5, -3])])
# logsumexp: the max's cotangent cancels exactly, so the gradient is softmax
p.test("softmax_stable", lambda x: f64(np.exp(x - x.max()) / np.exp(x - x.max()).sum()), [f64([1, 2, 3, 3]), f64([0, 0, 0, 0]), f64([-1, 5, 2, 0.5])])
# the max's cotangent is added to an adjoint array that exists already, at the first maximum
p.test("max_plus_map", lambda x: f64(3 + first_arg(x, np.max)), [f64([1, 4, 4, 0]), f64([2, 2, 2, 2]), f64([-7, -8, -1.5, -9])])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_affine", """
reduce with a general tuple operator: composition of affine maps x -> a x + b, represented by
pairs (a, b); the result is the composed map applied to x0.
""", """
def compose (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a2 * a1, a2 * b1 + b2)

entry grad (as: [5]f64) (bs: [5]f64) (x0: f64) =
  vjp (\\(a, b, x) -> let (p, q) = reduce compose (1, 0) (zip a b) in p * x + q) (as, bs, x0) 1

entry seeds (as: [4]f64) (bs: [4]f64) (pb: f64) (qb: f64) = vjp (\\(a, b) -> reduce compose (1, 0) (zip a b)) (as, bs) (pb, qb)
""")


def affine_fold(a, b, x):
    p, q = 1.0, 0.0
    for i in range(a.shape[0]):
        p, q = a[i] * p, a[i] * q + b[i]
    return p * x + q


def affine_pair(a, b):
    p, q = 1.0, 0.0
    for i in range(a.shape[0]):
        p, q = a[i] * p, a[i] * q + b[i]
    return p, q


P.append(p.test("grad", lambda a, b, x: vjp(affine_fold, (a, b, x), 1.0),
                [(f64([1, 2, 0.5, -1, 3]), f64([0, 1, 2, 3, 4]), f64(2.0)), (f64([0, 2, 0.5, 0, 3]), f64([1, 1, 1, 1, 1]), f64(-1.0))]))
p.test("seeds", lambda a, b, pb, qb: vjp(affine_pair, (a, b), (f64(pb), f64(qb))),
       [(f64([2, 0.5, -1, 3]), f64([1, 0, 2, -1]), f64(1.0), f64(0.0)), (f64([2, 0.5, -1, 3]), f64([1, 0, 2, -1]), f64(0.0), f64(1.0))])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_logsumexp", """
reduce with a logsumexp-style pair operator (running max, scaled sum): the gradient is the
softmax of the inputs.
""", """
def lse_op (m1: f64, s1: f64) (m2: f64, s2: f64) : (f64, f64) =
  if m1 == -f64.inf then (m2, s2)
  else if m2 == -f64.inf then (m1, s1)
  else if m1 >= m2 then (m1, s1 + s2 * f64.exp (m2 - m1))
  else (m2, s2 + s1 * f64.exp (m1 - m2))

def lse [n] (xs: [n]f64) : f64 =
  let (m, s) = reduce lse_op (-f64.inf, 0) (map (\\x -> (x, 1)) xs)
  in m + f64.log s

entry value (xs: [5]f64) = lse xs

entry grad (xs: [5]f64) = vjp lse xs 1

entry scaled (xs: [3]f64) (k: f64) = vjp (\\v -> lse (map (* k) v)) xs 1
""")
from jax.scipy.special import logsumexp

cases = [f64([1, 2, 3, 4, 5]), f64([0, 0, 0, 0, 0]), f64([-10, 10, 0, 5, 5]), f64([100, 101, 99, 100, 50])]
P.append(p.test("value", lambda x: f64(logsumexp(x)), cases))
p.test("grad", lambda x: vjp(logsumexp, x, 1.0), cases)
p.test("scaled", lambda x, k: vjp(lambda v: logsumexp(v * k), x, 1.0), [(f64([1, 2, 3]), f64(2.0)), (f64([1, 2, 3]), f64(-0.5))])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_complex", """
reduce with complex multiplication as a tuple operator.
""", """
def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)

entry grad (re: [3]f64) (im: [3]f64) (rb: f64) (ib: f64) = vjp (\\(r, i) -> reduce cmul (1, 0) (zip r i)) (re, im) (rb, ib)
""")


def cprod(r, i):
    z = r + 1j * i
    return z


def cgrad(re, im, rb, ib):
    def f(r, i):
        pr, pi = 1.0, 0.0
        for k in range(r.shape[0]):
            pr, pi = pr * r[k] - pi * i[k], pr * i[k] + pi * r[k]
        return pr, pi

    return vjp(f, (re, im), (f64(rb), f64(ib)))


P.append(p.test("grad", cgrad, [(f64([1, 0.5, 2]), f64([2, -1, 0.5]), f64(1.0), f64(0.0)), (f64([1, 0.5, 2]), f64([2, -1, 0.5]), f64(0.0), f64(1.0)),
                                (f64([0, 0, 1]), f64([0, 1, 0]), f64(1.0), f64(1.0))]))

# ---------------------------------------------------------------------------------------------
p = Program("reduce_array_op", """
reduce with array-valued operators: element-wise + and * and max over rows.
""", """
entry rowsum (m: [3][2]f64) (yb: [2]f64) = vjp (\\a -> reduce (map2 (+)) [0, 0] (map (map (\\t -> t * t)) a)) m yb

entry rowprod (m: [3][2]f64) (yb: [2]f64) = vjp (\\a -> reduce (map2 (*)) [1, 1] a) m yb

entry rowmax (m: [4][2]f64) (yb: [2]f64) = vjp (\\a -> reduce (map2 f64.max) [-f64.inf, -f64.inf] a) m yb
""")
P.append(p.test("rowsum", lambda m, yb: f64(2 * m * yb[None, :]), [(rand(2, 3, 2), f64([1, -2]))]))


def rowprod(m, yb):
    g = np.stack([prod_except(m[:, j]) * yb[j] for j in range(m.shape[1])], axis=1)
    return f64(g)


def rowmax(m, yb):
    g = np.stack([first_arg(m[:, j], np.max) * yb[j] for j in range(m.shape[1])], axis=1)
    return f64(g)


p.test("rowprod", rowprod, [(f64([[1, 2], [3, 0], [5, 6]]), f64([1, 1])), (f64([[1, 0], [3, 0], [0.5, 6]]), f64([2, 1]))])
p.test("rowmax", rowmax, [(f64([[1, 2], [3, 8], [3, 6], [0, 8]]), f64([1, 2]))])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_segmented", """
reduce inside map (one reduction per row), with +, * and max.
""", """
entry sums (m: [3][4]f64) = vjp (\\a -> f64.sum (map (\\r -> f64.sum r * f64.sum r) a)) m 1

entry prods (m: [2][3]f64) (yb: [2]f64) = vjp (map f64.product) m yb

entry maxs (m: [3][3]f64) (yb: [3]f64) = vjp (map f64.maximum) m yb
""")
P.append(p.test("sums", lambda m: f64(np.repeat(2 * m.sum(axis=1, keepdims=True), 4, axis=1)), [rand(3, 3, 4)]))
p.test("prods", lambda m, yb: f64(np.stack([prod_except(r) * y for r, y in zip(m, yb)])), [(f64([[1, 2, 3], [0, 4, 5]]), f64([1, 2]))])
p.test("maxs", lambda m, yb: f64(np.stack([first_arg(r, np.max) * y for r, y in zip(m, yb)])),
       [(f64([[1, 3, 3], [2, 2, 2], [0, -1, 5]]), f64([1, 2, 3]))])

# ---------------------------------------------------------------------------------------------
p = Program("scan_add", """
scan with +: each input's cotangent is the suffix sum of the output cotangents.
""", """
entry plain (xs: [5]f64) (yb: [5]f64) = vjp (scan (+) 0) xs yb

entry of_map (xs: [4]f64) = vjp (\\v -> f64.sum (map (\\t -> t * t) (scan (+) 0 (map (* 2) v)))) xs 1

entry ints (xs: [4]i64) (yb: [4]i64) = vjp (scan (+) 0) xs yb
""")
P.append(p.test("plain", lambda x, yb: f64(np.cumsum(yb[::-1])[::-1]), [(f64([1, 2, 3, 4, 5]), f64([1, 1, 1, 1, 1])), (f64([1, 2, 3, 4, 5]), f64([0, 1, 0, -2, 3]))]))
p.test("of_map", lambda x: vjp(lambda v: jnp.sum(jnp.cumsum(v * 2) ** 2), x, 1.0), [f64([1, 2, 3, 4]), f64([-1, 0.5, 0, 2])])
p.test("ints", lambda x, yb: i64(np.cumsum(yb[::-1])[::-1]), [(i64([1, 2, 3, 4]), i64([1, 2, 3, 4]))])


# ---------------------------------------------------------------------------------------------
def scan_mul_grad(x, yb):
    x = np.asarray(x, dtype=float)
    n = len(x)
    g = np.zeros(n)
    for i in range(n):
        for k in range(i, n):
            g[i] += yb[k] * np.prod(np.delete(x[:k + 1], i))
    return f64(g)


p = Program("scan_mul", """
scan with *: exact gradients with zeros among the inputs.
""", """
entry plain (xs: [5]f64) (yb: [5]f64) = vjp (scan (*) 1) xs yb

entry summed (xs: [4]f64) = vjp (\\v -> f64.sum (scan (*) 1 v)) xs 1
""")
P.append(p.test("plain", scan_mul_grad, [(f64([1, 2, 3, 4, 5]), f64([1, 1, 1, 1, 1])), (f64([2, 0, 3, 0, 5]), f64([1, 2, 3, 4, 5])),
                                         (f64([0, 2, 3, 4, 5]), f64([1, 1, 1, 1, 1])), (f64([1, -2, 0.5, 3, 0]), f64([0, 0, 0, 0, 1]))]))
p.test("summed", lambda x: scan_mul_grad(x, np.ones(4)), [f64([1, 2, 3, 4]), f64([1, 0, 3, 4]), f64([0, 0, 3, 4])])

# ---------------------------------------------------------------------------------------------
p = Program("scan_general", """
scan with general operators: affine-map composition (a linear recurrence) and complex products.
""", """
def compose (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a2 * a1, a2 * b1 + b2)

entry recurrence (as: [5]f64) (bs: [5]f64) (yb: [5]f64) = vjp (\\(a, b) -> let (_, q) = unzip (scan compose (1, 0) (zip a b)) in q) (as, bs) yb

def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)

entry complex (re: [3]f64) (im: [3]f64) = vjp (\\(r, i) -> let (pr, pi) = unzip (scan cmul (1, 0) (zip r i)) in f64.sum pr + 2 * f64.sum pi) (re, im) 1
""")


def recurrence(a, b):
    q = 0.0
    out = []
    for i in range(a.shape[0]):
        q = a[i] * q + b[i]
        out.append(q)
    return jnp.stack(out)


def complex_scan(r, i):
    pr, pi = 1.0, 0.0
    tot = 0.0
    for k in range(r.shape[0]):
        pr, pi = pr * r[k] - pi * i[k], pr * i[k] + pi * r[k]
        tot = tot + pr + 2 * pi
    return tot


P.append(p.test("recurrence", lambda a, b, yb: vjp(recurrence, (a, b), yb),
                [(f64([0.5, 2, -1, 0, 3]), f64([1, 2, 3, 4, 5]), f64([1, 1, 1, 1, 1])), (f64([0.5, 2, -1, 0, 3]), f64([1, 2, 3, 4, 5]), f64([0, 0, 1, 0, 2]))]))
p.test("complex", lambda r, i: vjp(complex_scan, (r, i), 1.0), [(f64([1, 0.5, 2]), f64([2, -1, 0.5]))])

# ---------------------------------------------------------------------------------------------
p = Program("scan_minmax", """
scan with max and min: each prefix's cotangent goes to the first element equal to that prefix's
extremum.
""", """
entry running_max (xs: [6]f64) (yb: [6]f64) = vjp (scan f64.max (-f64.inf)) xs yb

entry running_min (xs: [5]f64) = vjp (\\v -> f64.sum (scan f64.min f64.inf v)) xs 1
""")


def running(x, yb, pick):
    g = np.zeros(len(x))
    for k in range(len(x)):
        g += yb[k] * np.pad(first_arg(x[:k + 1], pick), (0, len(x) - k - 1))
    return f64(g)


P.append(p.test("running_max", lambda x, yb: running(x, yb, np.max),
                [(f64([1, 3, 2, 3, 5, 0]), f64([1, 1, 1, 1, 1, 1])), (f64([2, 2, 2, 2, 2, 2]), f64([1, 2, 3, 4, 5, 6]))]))
p.test("running_min", lambda x: running(x, np.ones(5), np.min), [f64([5, 3, 4, 3, 1]), f64([0, 0, 1, -1, -1])])

# ---------------------------------------------------------------------------------------------
p = Program("reduce_f32", """
f32 reductions: sum, product with a zero, and max with a tie.
""", """
entry grad (xs: [4]f32) = vjp (\\v -> f32.sum (map (\\t -> t * t) v) + f32.product v + f32.maximum v) xs 1
""")


def rf32(x):
    x64 = x.astype(float)
    return f32(2 * x64 + prod_except(x64) + first_arg(x64, np.max))


P.append(p.test("grad", rf32, [f32([1, 2, 3, 4]), f32([1, 0, 3, 3]), f32([-1, -2, -1, 0.5])]))

for p in P:
    print(p.write())
