"""The AD operators themselves: vjp, vjp2, mjp, mjp2 on functions of tuples, records and arrays;
point-free and partial application; vjp inside map; the transposition identity."""

from common import *  # noqa: F401,F403

P = []


def jac(f, x):
    return np.asarray(jax.jacrev(f)(x))


# ---------------------------------------------------------------------------------------------
p = Program("op_vjp2", """
vjp2 returns the value and the cotangent; on arrays, tuples and with array-valued results.
""", """
def f [n] (xs: [n]f64) : f64 = f64.sum (map (\\x -> x * x * x) xs) / f64.i64 n

entry arr (xs: [4]f64) = vjp2 f xs 1

entry tup (x: f64) (ys: [3]f64) =
  let (v, (dx, dys)) = vjp2 (\\(a, b) -> map (\\t -> t * a) b) (x, ys) [1, 2, 3]
  in (v, dx, dys)

entry vec (xs: [3]f64) (yb: [3]f64) = vjp2 (map f64.exp) xs yb
""")
fa = lambda v: jnp.sum(v ** 3) / v.shape[0]
P.append(p.test("arr", lambda x: (f64(fa(x)), vjp(fa, x, 1.0)), [f64([1, 2, 3, 4]), f64([-1, 0, 0.5, 2])]))


def tup(x, ys):
    g = lambda a, b: b * a
    dx, dys = vjp(g, (x, ys), f64([1, 2, 3]))
    return f64(ys * x), dx, dys


p.test("tup", tup, [(f64(2.0), f64([1, -1, 3]))])
p.test("vec", lambda x, yb: (f64(np.exp(x)), f64(np.exp(x) * yb)), [(f64([0, 1, -1]), f64([1, 2, 3]))])

# ---------------------------------------------------------------------------------------------
p = Program("op_mjp", """
mjp: several cotangents in one pass; with identity seeds it gives the Jacobian row by row.
""", """
def g [n] (xs: [n]f64) : [n]f64 = map2 (\\x i -> x * xs[(i + 1) % n] + f64.sin x) xs (iota n)

entry jacobian [n] (xs: [n]f64) = mjp g xs (tabulate n (\\i -> tabulate n (\\j -> f64.bool (i == j))))

entry seeds (xs: [3]f64) (ys: [2][3]f64) = mjp g xs ys

entry scalar_out (xs: [3]f64) = mjp (\\v -> f64.sum (map (\\t -> t * t) v)) xs [1, 2, -1]
""")


def gj(v):
    n = v.shape[0]
    return v * jnp.roll(v, -1) + jnp.sin(v)


P.append(p.test("jacobian", lambda x: f64(jac(gj, x)), [f64([1, 2, 3]), f64([0.5, -1, 2, 0])]))
p.test("seeds", lambda x, ys: f64(np.stack([vjp(gj, x, y) for y in ys])), [(f64([1, 2, 3]), f64([[1, 0, 0], [1, 1, 1]]))])
p.test("scalar_out", lambda x: f64(np.stack([2 * x * s for s in (1, 2, -1)])), [f64([1, 2, 3])])

# ---------------------------------------------------------------------------------------------
p = Program("op_mjp2", """
mjp2: the value and a batch of cotangents; on a tuple-valued function with tuple seeds.
""", """
entry pair (x: f64) (y: f64) =
  let (v, gs) = mjp2 (\\(a, b) -> (a * b, a + b * b)) (x, y) [(1, 0), (0, 1), (1, 1)]
  in (v.0, v.1, map (.0) gs, map (.1) gs)

entry arr (xs: [3]f64) =
  let (v, j) = mjp2 (\\v -> [v[0] * v[1], v[1] * v[2]]) xs [[1, 0], [0, 1]]
  in (v, j)
""")


def pair(x, y):
    f = lambda a, b: (a * b, a + b * b)
    gs = [vjp(f, (x, y), (f64(s0), f64(s1))) for s0, s1 in ((1, 0), (0, 1), (1, 1))]
    return f64(x * y), f64(x + y * y), f64([g[0] for g in gs]), f64([g[1] for g in gs])


P.append(p.test("pair", pair, [(f64(2.0), f64(3.0)), (f64(-1.0), f64(0.5))]))
p.test("arr", lambda x: (f64([x[0] * x[1], x[1] * x[2]]), f64([[x[1], x[0], 0], [0, x[2], x[1]]])), [f64([1, 2, 3])])

# ---------------------------------------------------------------------------------------------
p = Program("op_pointfree", """
Point-free and partially applied vjp: `entry grad = vjp f`, a gradient function passed to map.
""", """
def f (x: f64) : f64 = x * x * f64.exp x

entry grad : f64 -> f64 -> f64 = vjp f

def gradient = \\x -> vjp f x 1

entry per_element (xs: [4]f64) = map gradient xs

entry composed (xs: [3]f64) = vjp (map f >-> f64.sum) xs 1
""")
df = lambda x: f64((2 * x + x * x) * np.exp(x))
P.append(p.test("grad", lambda x, s: f64(s * df(x)), [(f64(1.0), f64(1.0)), (f64(-2.0), f64(3.0))]))
p.test("per_element", df, [f64([0, 1, -1, 0.5])])
p.test("composed", df, [f64([0.5, 2, -3])])

# ---------------------------------------------------------------------------------------------
p = Program("op_vjp_in_map", """
vjp inside a map: one gradient per row of a batch, with a free parameter vector.
""", """
def loss [d] (w: [d]f64) (x: [d]f64) : f64 = f64.log (1 + f64.exp (f64.sum (map2 (*) w x)))

entry per_row (w: [3]f64) (xss: [4][3]f64) = map (\\x -> vjp (\\v -> loss v x) w 1) xss

entry per_input (w: [3]f64) (xss: [2][3]f64) = map (\\x -> vjp (loss w) x 1) xss
""")
lossj = lambda w, x: jnp.log1p(jnp.exp(jnp.dot(w, x)))
P.append(p.test("per_row", lambda w, X: f64(np.stack([vjp(lambda v: lossj(v, x), w, 1.0) for x in X])), [(f64([0.5, -1, 2]), rand(1, 4, 3))]))
p.test("per_input", lambda w, X: f64(np.stack([vjp(lambda x: lossj(w, x), x, 1.0) for x in X])), [(f64([0.5, -1, 2]), rand(2, 2, 3))])

# ---------------------------------------------------------------------------------------------
p = Program("op_records", """
Records with array fields as inputs, outputs and seeds of vjp and mjp.
""", """
type params = {w: [3]f64, b: f64}

def model (p: params) : {y: f64, r: f64} =
  let s = f64.sum (map (\\t -> t * t) p.w) + p.b
  in {y = f64.tanh s, r = p.b * p.w[0]}

entry grad (w: [3]f64) (b: f64) (yb: f64) (rb: f64) =
  let g = vjp model {w = w, b = b} {y = yb, r = rb}
  in (g.w, g.b)

entry batch (w: [3]f64) (b: f64) =
  let gs = mjp model {w = w, b = b} [{y = 1, r = 0}, {y = 0, r = 1}]
  in (map (.w) gs, map (.b) gs)
""")


def model(w, b):
    s = jnp.sum(w * w) + b
    return jnp.tanh(s), b * w[0]


P.append(p.test("grad", lambda w, b, yb, rb: vjp(model, (w, b), (f64(yb), f64(rb))),
                [(f64([0.1, 0.2, -0.3]), f64(0.5), f64(1.0), f64(0.0)), (f64([0.1, 0.2, -0.3]), f64(0.5), f64(2.0), f64(-1.0))]))


def batch(w, b):
    g1 = vjp(model, (w, b), (f64(1.0), f64(0.0)))
    g2 = vjp(model, (w, b), (f64(0.0), f64(1.0)))
    return f64(np.stack([g1[0], g2[0]])), f64([g1[1], g2[1]])


p.test("batch", batch, [(f64([0.1, 0.2, -0.3]), f64(0.5))])

# ---------------------------------------------------------------------------------------------
p = Program("op_transposition", """
The transposition identity <vjp f x ybar, dx> = <ybar, jvp f x dx>, computed inside the program:
both sides are returned and compared with JAX's value of either side.
""", """
def f [n] (xs: [n]f64) : [n]f64 =
  let s = scan (+) 0 (map (\\x -> x * x) xs)
  in map2 (\\a b -> a * f64.sin b) s (rotate 1 xs)

def dot [n] (a: [n]f64) (b: [n]f64) = f64.sum (map2 (*) a b)

entry sides (xs: [4]f64) (dx: [4]f64) (yb: [4]f64) =
  (dot (vjp f xs yb) dx, dot yb (jvp f xs dx))
""")


def ft(v):
    s = jnp.cumsum(v * v)
    return s * jnp.sin(jnp.roll(v, -1))


def sides(x, dx, yb):
    v = float(np.dot(vjp(ft, x, yb), dx))
    return f64(v), f64(v)


P.append(p.test("sides", sides, [(rand(3, 4), rand(4, 4), rand(5, 4)), (f64([1, 2, 3, 4]), f64([1, 0, 0, 0]), f64([0, 0, 0, 1]))]))

# ---------------------------------------------------------------------------------------------
p = Program("op_nested_structures", """
A function of a tuple (array, record, array of pairs) returning a tuple (scalar, array).
""", """
def f (xs: [3]f64, r: {a: f64, b: [2]f64}, ps: [2](f64, f64)) : (f64, [2]f64) =
  let s = f64.sum xs * r.a
  let q = map2 (\\(u, v) c -> u * v + c * s) ps r.b
  in (s + f64.sum q, q)

entry grad (xs: [3]f64) (a: f64) (b: [2]f64) (us: [2]f64) (vs: [2]f64) (sb: f64) (qb: [2]f64) =
  let (gx, gr, gp) = vjp f (xs, {a = a, b = b}, zip us vs) (sb, qb)
  in (gx, gr.a, gr.b, map (.0) gp, map (.1) gp)
""")


def fnest(xs, a, b, us, vs):
    s = jnp.sum(xs) * a
    q = us * vs + b * s
    return s + jnp.sum(q), q


P.append(p.test("grad", lambda xs, a, b, us, vs, sb, qb: vjp(fnest, (xs, a, b, us, vs), (f64(sb), qb)),
                [(f64([1, 2, 3]), f64(0.5), f64([1, -1]), f64([2, 3]), f64([4, 5]), f64(1.0), f64([0, 0])),
                 (f64([1, 2, 3]), f64(0.5), f64([1, -1]), f64([2, 3]), f64([4, 5]), f64(0.0), f64([1, 2]))]))

# ---------------------------------------------------------------------------------------------
p = Program("op_jacobian_both_modes", """
The same Jacobian from mjp (rows) and from jmp (columns, transposed); integer version too.
""", """
def h [n] (xs: [n]f64) : [2]f64 = [f64.sum (map (\\x -> x * x) xs), f64.product xs]

entry rev [n] (xs: [n]f64) = mjp h xs [[1, 0], [0, 1]]

entry fwd [n] (xs: [n]f64) = transpose (jmp h xs (tabulate n (\\i -> tabulate n (\\j -> f64.bool (i == j)))))

entry ints (xs: [3]i32) = mjp (\\v -> [v[0] * v[1] * v[2], v[0] - v[2]]) xs [[1, 0], [0, 1]]
""")


def hj(x):
    x = np.asarray(x, dtype=float)
    pe = np.array([np.prod(np.delete(x, i)) for i in range(len(x))])
    return f64(np.stack([2 * x, pe]))


cases = [f64([1, 2, 3]), f64([0, 2, 0]), f64([1, 0, 3, -1])]
P.append(p.test("rev", hj, cases))
p.test("fwd", hj, cases)
p.test("ints", lambda x: i32([[x[1] * x[2], x[0] * x[2], x[0] * x[1]], [1, 0, -1]]), [i32([2, 3, 4]), i32([-1, 0, 5])])

for p in P:
    print(p.write())
