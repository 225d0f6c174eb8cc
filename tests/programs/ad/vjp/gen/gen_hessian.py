"""Mixed-mode programs (tests/programs/ad/hessian): Hessian-vector products forward-over-reverse
and reverse-over-forward, full Hessians, the k-means Hessian diagonal (benchmarks/README.md
§k-means), second and third derivatives by nested vjp, reverse-over-reverse on arrays."""

from common import *  # noqa: F401,F403

P = []


def H(f, x):
    return np.asarray(jax.hessian(f)(x))


def hvp(f, x, v):
    return np.asarray(jax.jvp(jax.grad(f), (x,), (v,))[1])


def prog(name, doc, src):
    return Program(name, doc, src, directory=HESSIAN_DIR)


# ---------------------------------------------------------------------------------------------
p = prog("hvp_rosenbrock", """
Hessian-vector products of the Rosenbrock function, forward-over-reverse and
reverse-over-forward; both must agree with the exact Hessian times v.
""", """
def rosen [n] (x: [n]f64) : f64 =
  f64.sum (tabulate (n - 1) (\\i -> 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2))

entry fwd_rev [n] (x: [n]f64) (v: [n]f64) = jvp (\\y -> vjp rosen y 1) x v

entry rev_fwd [n] (x: [n]f64) (v: [n]f64) = vjp (\\y -> jvp rosen y v) x 1

entry grad [n] (x: [n]f64) = vjp rosen x 1
""")


def rosen(x):
    return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


cases = [(f64([1, 1, 1]), f64([1, 0, 0])), (f64([-1.2, 1, 0.5, 2]), f64([1, -1, 0.5, 2])), (f64([0, 0]), f64([0, 1]))]
P.append(p.test("fwd_rev", lambda x, v: f64(hvp(rosen, x, v)), cases))
p.test("rev_fwd", lambda x, v: f64(hvp(rosen, x, v)), cases)
p.test("grad", lambda x: vjp(rosen, x, 1.0), [c[0] for c in cases])

# ---------------------------------------------------------------------------------------------
p = prog("hessian_full", """
Full Hessians: jmp of the gradient over the identity (forward-over-reverse), mjp of the
gradient (reverse-over-reverse), and tabulated reverse-over-forward columns.
""", """
def f [n] (x: [n]f64) : f64 = f64.sum (map2 (\\a b -> f64.sin a * b * b) x (rotate 1 x)) + f64.exp x[0] * x[n - 1]

def eye (n: i64) : [n][n]f64 = tabulate n (\\i -> tabulate n (\\j -> f64.bool (i == j)))

entry fwd_rev [n] (x: [n]f64) = jmp (\\y -> vjp f y 1) x (eye n)

entry rev_rev [n] (x: [n]f64) = mjp (\\y -> vjp f y 1) x (eye n)

entry rev_fwd [n] (x: [n]f64) = map (\\e -> vjp (\\y -> jvp f y e) x 1) (eye n)
""")


def ffull(x):
    return jnp.sum(jnp.sin(x) * jnp.roll(x, -1) ** 2) + jnp.exp(x[0]) * x[-1]


cases = [f64([0.5, -1, 2]), f64([1, 2, 3, 4]), f64([0.1, 0.2])]
P.append(p.test("fwd_rev", lambda x: f64(H(ffull, x)), cases))
p.test("rev_rev", lambda x: f64(H(ffull, x)), cases)
p.test("rev_fwd", lambda x: f64(H(ffull, x)), cases)

# ---------------------------------------------------------------------------------------------
p = prog("kmeans_small", """
The k-means cost (benchmarks/README.md §k-means) on the (3, 10, 2) instance: gradient by vjp and
the Hessian diagonal by one forward-over-reverse product with the all-ones direction. Expected
values are the reference values given there.
""", """
def cost [n] [k] [d] (ps: [n][d]f64) (cs: [k][d]f64) : f64 =
  f64.sum (map (\\p -> f64.minimum (map (\\c -> f64.sum (map2 (\\a b -> (a - b) * (a - b)) p c)) cs)) ps)

entry grad [n] [d] (ps: [n][d]f64) (cs: [3][d]f64) = vjp (cost ps) cs 1

entry hdiag [n] [d] (ps: [n][d]f64) (cs: [3][d]f64) = jvp (\\c -> vjp (cost ps) c 1) cs (map (map (const 1)) cs)

entry hdiag_rev [n] [d] (ps: [n][d]f64) (cs: [3][d]f64) = vjp (\\c -> jvp (cost ps) c (map (map (const 1)) cs)) cs 1
""")
KP = f64([[0.5665615751722809, 0.7457817572627011], [0.9710027535867962, 0.4443592170557721],
          [0.44426470082635805, 0.762894391911761], [0.877348686764173, 0.5230671798509814],
          [0.28550868439696664, 0.7939966056623056], [0.4041421690502257, 0.6054203689753291],
          [0.4549379074702896, 0.5300789975015889], [0.43596539982472504, 0.16703498914055104],
          [0.645334640219506, 0.8153505833680997], [0.6817049733805886, 0.8843245635397898]])
P.append(p.test("grad", lambda ps, cs: f64([[-1.266405758e-01, 7.412702715e-01], [1.873081336e-01, -1.574159256e-01], [3.764106831e-01, 7.183744072e-01]]),
                [(KP, KP[:3])]))
p.test("hdiag", lambda ps, cs: f64([[8, 8], [4, 4], [8, 8]]), [(KP, KP[:3])])
p.test("hdiag_rev", lambda ps, cs: f64([[8, 8], [4, 4], [8, 8]]), [(KP, KP[:3])])

# ---------------------------------------------------------------------------------------------
p = prog("kmeans_generated", """
The k-means benchmark instance (k, n, d) = (5, 1000, 4) of benchmarks/README.md §k-means,
generated inside the program with the input generator described there (seed 1): the Hessian
diagonal by one jvp over vjp. Expected values are the reference row given there
(Hdiag[0][0] = 184, sum = 2 n d).
""", """
def mix (z: u64) : u64 =
  let z1 = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u64
  let z2 = (z1 ^ (z1 >> 27)) * 0x94D049BB133111EBu64
  in z2 ^ (z2 >> 31)

def unif (s: u64) (i: i64) : f64 =
  let b = mix (s + (u64.i64 i + 1) * 0x9E3779B97F4A7C15u64)
  in f64.u64 (b >> 11) / 9007199254740992.0

def cost [n] [k] [d] (ps: [n][d]f64) (cs: [k][d]f64) : f64 =
  f64.sum (map (\\p -> f64.minimum (map (\\c -> f64.sum (map2 (\\a b -> (a - b) * (a - b)) p c)) cs)) ps)

entry hdiag (k: i64) (n: i64) (d: i64) =
  let ps = tabulate_2d n d (\\i j -> unif 1 (i * d + j))
  let cs = ps[0:k]
  let h = jvp (\\c -> vjp (cost ps) c 1) cs (map (map (const 1)) cs)
  in (h[0, 0], f64.sum (flatten h), h[k - 1, d - 1])
""")
# cnt[k-1] = 156 in the reference row, so Hdiag[k-1][d-1] = 312
P.append(p.test("hdiag", lambda k, n, d: (f64(184.0), f64(2 * 1000 * 4), f64(312.0)), [(i64(5), i64(1000), i64(4))]))

# ---------------------------------------------------------------------------------------------
p = prog("nested_scalar", """
Second and third derivatives by nesting vjp and jvp in every order, for scalar functions;
integer x^4 differentiated three times gives 24 x exactly.
""", """
def f (x: f64) : f64 = f64.sin x * f64.exp (0.5 * x) + x * x * x

entry d2_rr (x: f64) = vjp (\\y -> vjp f y 1) x 1

entry d2_fr (x: f64) = jvp (\\y -> vjp f y 1) x 1

entry d2_rf (x: f64) = vjp (\\y -> jvp f y 1) x 1

entry d3_rrr (x: f64) = vjp (\\z -> vjp (\\y -> vjp f y 1) z 1) x 1

entry d3_frf (x: f64) = jvp (\\z -> vjp (\\y -> jvp f y 1) z 1) x 1

entry int4 (x: i32) = vjp (\\z -> vjp (\\y -> vjp (\\t -> t * t * t * t) y 1) z 1) x 1
""")


def fs(x):
    return jnp.sin(x) * jnp.exp(0.5 * x) + x ** 3


d2 = jax.grad(jax.grad(fs))
d3 = jax.grad(d2)
cases = [f64(0.0), f64(1.0), f64(-2.5)]
P.append(p.test("d2_rr", lambda x: f64(d2(x)), cases))
p.test("d2_fr", lambda x: f64(d2(x)), cases)
p.test("d2_rf", lambda x: f64(d2(x)), cases)
p.test("d3_rrr", lambda x: f64(d3(x)), cases)
p.test("d3_frf", lambda x: f64(d3(x)), cases)
p.test("int4", lambda x: i32(24 * int(x)), [i32(3), i32(-5), i32(0)])

# ---------------------------------------------------------------------------------------------
p = prog("rev_over_rev", """
Reverse over reverse on arrays: the gradient of the squared norm of a gradient, and vjp of a
vjp with a non-trivial outer cotangent.
""", """
def f [n] (x: [n]f64) : f64 = f64.sum (map (\\t -> f64.tanh t) x) * f64.sum (map (\\t -> t * t) x)

entry gnorm [n] (x: [n]f64) = vjp (\\y -> let g = vjp f y 1 in f64.sum (map (\\t -> t * t) g)) x 1

entry seeded [n] (x: [n]f64) (u: [n]f64) = vjp (\\y -> vjp f y 1) x u
""")


def fr(x):
    return jnp.sum(jnp.tanh(x)) * jnp.sum(x * x)


P.append(p.test("gnorm", lambda x: vjp(lambda y: jnp.sum(jax.grad(fr)(y) ** 2), x, 1.0), [f64([0.5, -1, 2]), f64([0.1, 0.2, 0.3, 0.4])]))
p.test("seeded", lambda x, u: f64(H(fr, x) @ u), [(f64([0.5, -1, 2]), f64([1, 0, -1]))])

# ---------------------------------------------------------------------------------------------
p = prog("hvp_logreg", """
Hessian-vector product of the logistic-regression loss (docs/language.md §A complete example:
[0.125, 0] at w = 0), in both nesting orders.
""", """
def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)

def sigmoid (z: f64) : f64 = 1 / (1 + f64.exp (-z))

def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) : f64 =
  let ps = map (\\xs -> sigmoid (dot xs w)) xss
  let terms = map2 (\\p y -> -(y * f64.log p + (1 - y) * f64.log (1 - p))) ps ys
  in f64.sum terms / f64.i64 m

entry hvp [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (v: [n]f64) = jvp (\\w' -> vjp (loss xss ys) w' 1) w v

entry hvp_rev [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (v: [n]f64) = vjp (\\w' -> jvp (loss xss ys) w' v) w 1
""")


def lr(X, y):
    def loss(w):
        p = 1 / (1 + jnp.exp(-(X @ w)))
        return jnp.mean(-(y * jnp.log(p) + (1 - y) * jnp.log(1 - p)))

    return loss


cases = [(f64([[1, 0], [0, 1]]), f64([1, 0]), f64([0, 0]), f64([1, 0])), (rand(1, 5, 3), f64([1, 0, 1, 1, 0]), f64([0.3, -0.2, 0.5]), f64([1, 2, -1]))]
P.append(p.test("hvp", lambda X, y, w, v: f64(hvp(lr(X, y), w, v)), cases))
p.test("hvp_rev", lambda X, y, w, v: f64(hvp(lr(X, y), w, v)), cases)

# ---------------------------------------------------------------------------------------------
p = prog("hvp_mlp", """
Hessian-vector product of a small tanh network's squared error in its first-layer weights.
""", """
def mv [n] [m] (a: [n][m]f64) (x: [m]f64) : [n]f64 = map (\\r -> f64.sum (map2 (*) r x)) a

def loss [b] [h] [d] (xs: [b][d]f64) (ys: [b]f64) (w2: [h]f64) (w1: [h][d]f64) : f64 =
  f64.sum (map2 (\\x y -> let o = f64.sum (map2 (*) w2 (map f64.tanh (mv w1 x))) in (o - y) * (o - y)) xs ys)

entry hvp [b] [h] [d] (xs: [b][d]f64) (ys: [b]f64) (w2: [h]f64) (w1: [h][d]f64) (v: [h][d]f64) = jvp (\\w -> vjp (loss xs ys w2) w 1) w1 v
""")


def mlp_h(X, y, w2, w1, v):
    def loss(w1):
        o = jnp.tanh(X @ w1.T) @ w2
        return jnp.sum((o - y) ** 2)

    return f64(hvp(loss, w1, v))


P.append(p.test("hvp", mlp_h, [(rand(2, 3, 2), rand(3, 3), rand(4, 3), rand(5, 3, 2), rand(6, 3, 2))]))

# ---------------------------------------------------------------------------------------------
p = prog("hessian_loops", """
Second-order derivatives through loops: a power loop, an Euler integrator (20 steps) and a
loop with array state.
""", """
entry power (x: f64) (n: i64) = jvp (\\y -> vjp (\\t -> loop acc = 1 for _i < n do acc * t) y 1) x 1

def euler (k: f64, c: f64) : f64 =
  let (x, _) = loop (x, v) = (1.0, 0.0) for _i < 20 do (x + 0.1 * v, v + 0.1 * (-k * x - c * v * v))
  in x

entry euler_hess (k: f64) (c: f64) = mjp (\\p -> vjp euler p 1) (k, c) [(1, 0), (0, 1)] |> unzip

entry array_state (xs: [3]f64) (v: [3]f64) = jvp (\\y -> vjp (\\a -> f64.sum (loop b = a for _i < 3 do map (\\t -> t * t * 0.5 + 0.1) b)) y 1) xs v
""")


def euler(k, c):
    x, v = 1.0, 0.0
    for _ in range(20):
        x, v = x + 0.1 * v, v + 0.1 * (-k * x - c * v * v)
    return x


def euler_h(k, c):
    h = np.asarray(jax.hessian(lambda p: euler(p[0], p[1]))(jnp.array([k, c])))
    return f64(h[:, 0]), f64(h[:, 1])


def arr_state(a):
    b = a
    for _ in range(3):
        b = b * b * 0.5 + 0.1
    return jnp.sum(b)


P.append(p.test("power", lambda x, n: f64(n * (n - 1) * x ** (n - 2) if n >= 2 else 0.0), [(f64(2.0), i64(3)), (f64(1.5), i64(5)), (f64(3.0), i64(1))]))
p.test("euler_hess", euler_h, [(f64(2.0), f64(0.1)), (f64(0.5), f64(1.0))])
p.test("array_state", lambda x, v: f64(hvp(arr_state, x, v)), [(f64([0.5, 1, -1]), f64([1, 1, 1])), (f64([2, 0.1, 0.3]), f64([1, 0, -2]))])

# ---------------------------------------------------------------------------------------------
p = prog("hessian_reductions", """
Hessian-vector products through reduce with *, logsumexp, scan with + and hist with + (hist both
forward over reverse and reverse over forward).
""", """
entry prod [n] (x: [n]f64) (v: [n]f64) = jvp (\\y -> vjp f64.product y 1) x v

def lse [n] (x: [n]f64) : f64 = let m = f64.maximum x in m + f64.log (f64.sum (map (\\t -> f64.exp (t - m)) x))

entry logsumexp [n] (x: [n]f64) (v: [n]f64) = jvp (\\y -> vjp lse y 1) x v

entry scan_sq [n] (x: [n]f64) (v: [n]f64) = jvp (\\y -> vjp (\\a -> f64.sum (map (\\t -> t * t * t) (scan (+) 0 a))) y 1) x v

entry hist_sq [n] (x: [n]f64) (is: [n]i64) (v: [n]f64) = jvp (\\y -> vjp (\\a -> f64.sum (map (\\t -> t * t) (hist (+) 0 2 is a))) y 1) x v

entry hist_sq_rev_fwd [n] (x: [n]f64) (is: [n]i64) (v: [n]f64) = vjp (\\y -> jvp (\\a -> f64.sum (map (\\t -> t * t) (hist (+) 0 2 is a))) y v) x 1
""")
from jax.scipy.special import logsumexp as jlse


def prod_hess(x):
    x = np.asarray(x, dtype=float)
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                h[i, j] = np.prod(np.delete(x, [i, j]))
    return h


def hist_sq(x, idx, v):
    def f(a):
        h = jnp.zeros(2)
        for j in range(len(idx)):
            if 0 <= idx[j] < 2:
                h = h.at[idx[j]].add(a[j])
        return jnp.sum(h * h)

    return f64(hvp(f, x, v))


P.append(p.test("prod", lambda x, v: f64(prod_hess(x) @ v), [(f64([1, 2, 3]), f64([1, 1, 1])), (f64([0, 2, 3, 4]), f64([1, 0, 0, 1])), (f64([0, 0, 3]), f64([1, 1, 1]))]))
p.test("logsumexp", lambda x, v: f64(hvp(jlse, x, v)), [(f64([1, 2, 3]), f64([1, 0, 0])), (f64([0, 0, 0, 0]), f64([1, 2, 3, 4]))])
p.test("scan_sq", lambda x, v: f64(hvp(lambda a: jnp.sum(jnp.cumsum(a) ** 3), x, v)), [(f64([1, -1, 2]), f64([1, 1, 1]))])
p.test("hist_sq", hist_sq, [(f64([1, 2, 3, 4]), i64([0, 1, 1, 5]), f64([1, 1, 1, 1]))])
p.test("hist_sq_rev_fwd", hist_sq, [(f64([1, 2, 3, 4]), i64([0, 1, 1, 5]), f64([1, 1, 1, 1])), (f64([0.5, -1.5, 2.5]), i64([1, -1, 1]), f64([2, 1, -1]))])

# ---------------------------------------------------------------------------------------------
p = prog("hessian_gather", """
Hessian-vector product of a function reading neighbours by index inside a map (gathers).
""", """
def energy [n] (x: [n]f64) : f64 = f64.sum (map (\\i -> let d = x[(i + 1) % n] - x[i] in d * d * d * d + f64.cos x[i]) (iota n))

entry hvp [n] (x: [n]f64) (v: [n]f64) = jvp (\\y -> vjp energy y 1) x v

entry hess [n] (x: [n]f64) = tabulate n (\\i -> jvp (\\y -> vjp energy y 1) x (tabulate n (\\j -> f64.bool (i == j))))
""")


def energy(x):
    d = jnp.roll(x, -1) - x
    return jnp.sum(d ** 4 + jnp.cos(x))


P.append(p.test("hvp", lambda x, v: f64(hvp(energy, x, v)), [(f64([0, 1, 3, 2]), f64([1, 0, 0, 0])), (rand(7, 5), rand(8, 5))]))
p.test("hess", lambda x: f64(H(energy, x)), [f64([0, 1, 3]), f64([0.5, -0.5, 1, 2])])

# ---------------------------------------------------------------------------------------------
p = prog("hessian_piecewise", """
Second derivatives through if, max and abs: the branch taken is fixed, so only the active
piece's curvature remains.
""", """
def f (x: f64) : f64 = if x > 1 then x * x * x else f64.max (x * x) (2 * x) + f64.abs x * x

entry d2 (x: f64) = jvp (\\y -> vjp f y 1) x 1

entry d2_rr (x: f64) = vjp (\\y -> vjp f y 1) x 1
""")


def pw_d2(x):
    x = float(x)
    if x > 1:
        return f64(6 * x)
    # max (x*x) (2x): first operand on a tie
    m = 2.0 if x * x >= 2 * x else 0.0
    a = 2 * np.sign(x)  # d2/dx2 of |x| x
    return f64(m + a)


cases = [f64(2.0), f64(0.5), f64(-1.0), f64(0.0), f64(1.0)]
P.append(p.test("d2", pw_d2, cases))
p.test("d2_rr", pw_d2, cases)

# ---------------------------------------------------------------------------------------------
p = prog("hessian_tuple", """
Hessian blocks of a function of a pair (scalar, array): forward over reverse with tuple
directions, and reverse over forward.
""", """
def f (a: f64, xs: [3]f64) : f64 = a * a * f64.sum (map (\\x -> x * x * x) xs) + f64.exp (a * xs[0])

entry fr (a: f64) (xs: [3]f64) (da: f64) (dxs: [3]f64) = jvp (\\p -> vjp f p 1) (a, xs) (da, dxs)

entry rf (a: f64) (xs: [3]f64) (da: f64) (dxs: [3]f64) = vjp (\\p -> jvp f p (da, dxs)) (a, xs) 1
""")


def ft(a, xs):
    return a * a * jnp.sum(xs ** 3) + jnp.exp(a * xs[0])


def ft_hvp(a, xs, da, dxs):
    g = lambda a, xs: jax.grad(ft, argnums=(0, 1))(a, xs)
    _, t = jax.jvp(g, (a, xs), (da, dxs))
    return f64(t[0]), f64(t[1])


cases = [(f64(0.5), f64([1, 2, -1]), f64(1.0), f64([0, 0, 0])), (f64(0.5), f64([1, 2, -1]), f64(0.0), f64([1, 0, 1])), (f64(-1.0), f64([0.5, 0, 2]), f64(2.0), f64([1, -1, 3]))]
P.append(p.test("fr", ft_hvp, cases))
p.test("rf", ft_hvp, cases)

# ---------------------------------------------------------------------------------------------
p = prog("hessian_f32", """
An f32 Hessian-vector product and second derivative.
""", """
def f [n] (x: [n]f32) : f32 = f32.sum (map (\\t -> f32.sin t * t) x) * f32.sum x

entry hvp [n] (x: [n]f32) (v: [n]f32) = jvp (\\y -> vjp f y 1) x v

entry d2 (x: f32) = vjp (\\y -> vjp (\\t -> f32.exp (t * t)) y 1) x 1
""")


def f32f(x):
    return jnp.sum(jnp.sin(x) * x) * jnp.sum(x)


P.append(p.test("hvp", lambda x, v: f32(hvp(f32f, x.astype(np.float64), v.astype(np.float64))), [(f32([0.5, 1, -1]), f32([1, 0, 1]))]))
p.test("d2", lambda x: f32((2 + 4 * float(x) ** 2) * np.exp(float(x) ** 2)), [f32(0.5), f32(-1.0)])

# ---------------------------------------------------------------------------------------------
p = prog("third_order_mixed", """
Third-order mixed nesting on arrays: jvp of vjp of jvp gives a contraction of the third
derivative tensor, T[u, v, .], for f(x) = sum(x)^2 * prod(exp x).
""", """
def f [n] (x: [n]f64) : f64 = let s = f64.sum x in s * s * f64.exp s

entry t3 [n] (x: [n]f64) (u: [n]f64) (v: [n]f64) = jvp (\\a -> vjp (\\b -> jvp f b u) a 1) x v
""")


def f3(x):
    s = jnp.sum(x)
    return s * s * jnp.exp(s)


def t3(x, u, v):
    gu = lambda b: jax.jvp(f3, (b,), (u,))[1]
    return f64(jax.jvp(jax.grad(gu), (x,), (v,))[1])


P.append(p.test("t3", t3, [(f64([0.1, 0.2, 0.3]), f64([1, 0, 0]), f64([0, 1, 0])), (f64([0.5, -0.5]), f64([1, 2]), f64([-1, 1]))]))

# ---------------------------------------------------------------------------------------------
p = prog("rev_over_rev_accumulators", """
Reverse over reverse through the accumulators that reverse mode produces for arrays read by
index inside a map (gathers, captured matrices, branches): full Hessians by vjp of vjp,
Hessian-vector products with array and matrix cotangents.
""", """
def rosen [n] (x: [n]f64) : f64 =
  f64.sum (tabulate (n - 1) (\\i -> 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2))

entry rosen_hessian [n] (x: [n]f64) : [n][n]f64 =
  tabulate n (\\i -> vjp (\\y -> vjp rosen y 1) x (tabulate n (\\j -> f64.bool (i == j))))

def quad [m] [n] (a: [m][n]f64) (x: [n]f64) : f64 =
  f64.sum (map (\\r -> let s = f64.sum (map2 (*) r x) in s * s) a)

entry quad_hvp [m] [n] (a: [m][n]f64) (x: [n]f64) (u: [n]f64) : [n]f64 =
  vjp (\\y -> vjp (quad a) y 1) x u

def layer [m] [n] (xs: [n]f64) (w: [m][n]f64) : f64 =
  f64.sum (map (\\r -> f64.tanh (f64.sum (map2 (*) r xs))) w)

entry layer_hvp [m] [n] (xs: [n]f64) (w: [m][n]f64) (u: [m][n]f64) : [m][n]f64 =
  vjp (\\v -> vjp (layer xs) v 1) w u

def branchy [n] (x: [n]f64) : f64 =
  f64.sum (tabulate n (\\i -> if i % 2 == 0 then x[i] * x[(i + 1) % n] else x[i] * x[i] * x[i]))

entry branchy_hessian [n] (x: [n]f64) : [n][n]f64 =
  tabulate n (\\i -> vjp (\\y -> vjp branchy y 1) x (tabulate n (\\j -> f64.bool (i == j))))

def neighbours [n] (x: [n]f64) : f64 =
  f64.sum (tabulate n (\\i -> f64.sin (x[i]) * x[(i + 2) % n]))

entry neighbours_gnorm [n] (x: [n]f64) : [n]f64 =
  vjp (\\y -> let g = vjp neighbours y 1 in f64.sum (map (\\t -> t * t) g)) x 1

-- A loop inside the map reads the captured coefficients, so the inner vjp's loop passes an
-- accumulator on from iteration to iteration.
def horner [n] (cs: [n]f64) (xs: []f64) : f64 =
  f64.sum (map (\\x -> loop acc = 0 for i < n do acc * x + f64.sin cs[i] * cs[i]) xs)

entry horner_hessian [n] (cs: [n]f64) (xs: []f64) : [n][n]f64 =
  tabulate n (\\i -> vjp (\\c -> vjp (\\d -> horner d xs) c 1) cs (tabulate n (\\j -> f64.bool (i == j))))
""")


def rosen(x):
    return jnp.sum(100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


def quad(a):
    return lambda x: jnp.sum((a @ x) ** 2)


def layer(xs):
    return lambda w: jnp.sum(jnp.tanh(w @ xs))


def branchy(x):
    n = x.shape[0]
    i = jnp.arange(n)
    return jnp.sum(jnp.where(i % 2 == 0, x * jnp.roll(x, -1), x ** 3))


def neighbours(x):
    return jnp.sum(jnp.sin(x) * jnp.roll(x, -2))


def vjp_of_grad(f, x, u):
    return np.asarray(jax.vjp(jax.grad(f), x)[1](u)[0])


P.append(p.test("rosen_hessian", lambda x: f64(H(rosen, x)), [f64([0.5, -1.2, 2.0]), f64([1.0, 1.0, 1.0, 1.0]), f64([-0.3, 0.7, 0.1, 1.9, -1.1])]))
A1 = f64([[1.0, 2.0, -1.0], [0.5, -0.25, 3.0]])
p.test("quad_hvp", lambda a, x, u: f64(vjp_of_grad(quad(a), x, u)), [(A1, f64([0.3, -0.7, 1.1]), f64([1.0, -2.0, 0.5]))])
X1 = f64([0.4, -1.3, 0.8])
W1 = f64([[0.2, -0.5, 0.9], [1.1, 0.3, -0.4]])
U1 = f64([[1.0, 0.0, -1.0], [0.5, 2.0, 0.25]])
p.test("layer_hvp", lambda xs, w, u: f64(vjp_of_grad(layer(xs), w, u)), [(X1, W1, U1)])
p.test("branchy_hessian", lambda x: f64(H(branchy, x)), [f64([0.5, -1.0, 2.0, 0.3]), f64([1.5, -0.2, 0.7])])
def horner(xs):
    def f(cs):
        n = cs.shape[0]
        pw = jnp.stack([xs ** (n - 1 - i) for i in range(n)])
        return jnp.sum((jnp.sin(cs) * cs) @ pw)
    return f


p.test("horner_hessian", lambda cs, xs: f64(H(horner(xs), cs)), [(f64([0.4, -1.1, 0.7]), f64([0.5, -1.0, 1.5])), (f64([1.2, 0.3]), f64([2.0]))])
p.test("neighbours_gnorm", lambda x: f64(jax.grad(lambda y: jnp.sum(jax.grad(neighbours)(y) ** 2))(x)), [f64([0.1, 0.9, -0.4, 1.3]), f64([2.0, -1.0, 0.5, 0.25, -0.75])])

for p in P:
    print(p.write())
