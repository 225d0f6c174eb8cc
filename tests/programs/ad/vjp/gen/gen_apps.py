"""Small realistic programs: logistic regression, softmax cross-entropy, a 2-layer MLP, the
ADBench GMM objective at a tiny size, an explicit Euler ODE integrator, Runge-Kutta steps,
Horner's rule in a loop, least squares, the k-means cost (reference values of benchmarks/README.md
§k-means), an RNN, NNMF, attention."""

from common import *  # noqa: F401,F403
import math
from jax.scipy.special import logsumexp, gammaln

P = []

# ---------------------------------------------------------------------------------------------
p = Program("app_logreg", """
Logistic regression: mean negative log-likelihood and its gradient in the weights and the
bias (docs/language.md §A complete example and random data).
""", """
def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)

def sigmoid (z: f64) : f64 = 1 / (1 + f64.exp (-z))

def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64, b: f64) : f64 =
  let ps = map (\\xs -> sigmoid (dot xs w + b)) xss
  let terms = map2 (\\p y -> -(y * f64.log p + (1 - y) * f64.log (1 - p))) ps ys
  in f64.sum terms / f64.i64 m

entry grad [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (b: f64) = vjp (loss xss ys) (w, b) 1
""")


def logreg(X, y, w, b):
    def loss(w, b):
        p = 1 / (1 + jnp.exp(-(X @ w + b)))
        return jnp.mean(-(y * jnp.log(p) + (1 - y) * jnp.log(1 - p)))

    return vjp(loss, (w, b), 1.0)


P.append(p.test("grad", logreg, [(f64([[1, 0], [0, 1]]), f64([1, 0]), f64([0, 0]), f64(0.0)),
                                 (rand(1, 6, 3), f64([1, 0, 0, 1, 1, 0]), f64([0.5, -0.25, 1]), f64(0.1))]))

# ---------------------------------------------------------------------------------------------
p = Program("app_softmax_xent", """
Softmax cross-entropy of a linear classifier: gradient in the logits and in the weights.
""", """
def log_softmax [k] (z: [k]f64) : [k]f64 =
  let m = f64.maximum z
  let l = m + f64.log (f64.sum (map (\\t -> f64.exp (t - m)) z))
  in map (\\t -> t - l) z

entry logits (z: [4]f64) (label: i64) = vjp (\\v -> -(log_softmax v)[label]) z 1

entry weights [m] [d] [k] (xss: [m][d]f64) (labels: [m]i64) (w: [d][k]f64) =
  vjp (\\ww -> f64.sum (map2 (\\x l -> -(log_softmax (map (\\c -> f64.sum (map2 (*) x c)) (transpose ww)))[l]) xss labels)) w 1
""")


def xent_logits(z, label):
    return vjp(lambda v: -jax.nn.log_softmax(v)[label], z, 1.0)


def xent_w(X, labels, W):
    return vjp(lambda ww: -jnp.sum(jax.nn.log_softmax(X @ ww, axis=1)[jnp.arange(len(labels)), labels]), W, 1.0)


P.append(p.test("logits", xent_logits, [(f64([1, 2, 3, 4]), i64(2)), (f64([0, 0, 0, 0]), i64(0)), (f64([10, -10, 3, 3]), i64(3))]))
p.test("weights", xent_w, [(rand(2, 4, 3), i64([0, 2, 1, 2]), rand(3, 3, 3))])

# ---------------------------------------------------------------------------------------------
p = Program("app_mlp", """
A 2-layer perceptron (tanh hidden layer, linear output, squared error summed over a batch):
gradients in all four parameter arrays.
""", """
def matvec [n] [m] (a: [n][m]f64) (x: [m]f64) : [n]f64 = map (\\r -> f64.sum (map2 (*) r x)) a

def mlp [h] [d] [o] (w1: [h][d]f64, b1: [h]f64, w2: [o][h]f64, b2: [o]f64) (x: [d]f64) : [o]f64 =
  let hid = map2 (\\z b -> f64.tanh (z + b)) (matvec w1 x) b1
  in map2 (+) (matvec w2 hid) b2

def loss [m] [h] [d] [o] (xs: [m][d]f64) (ys: [m][o]f64) (ps: ([h][d]f64, [h]f64, [o][h]f64, [o]f64)) : f64 =
  f64.sum (map2 (\\x y -> f64.sum (map2 (\\a b -> (a - b) * (a - b)) (mlp ps x) y)) xs ys)

entry grad [m] [h] [d] [o] (xs: [m][d]f64) (ys: [m][o]f64) (w1: [h][d]f64) (b1: [h]f64) (w2: [o][h]f64) (b2: [o]f64) =
  vjp (loss xs ys) (w1, b1, w2, b2) 1
""")


def mlp(X, Y, w1, b1, w2, b2):
    def loss(w1, b1, w2, b2):
        h = jnp.tanh(X @ w1.T + b1)
        out = h @ w2.T + b2
        return jnp.sum((out - Y) ** 2)

    return vjp(loss, (w1, b1, w2, b2), 1.0)


P.append(p.test("grad", mlp, [(rand(4, 3, 2), rand(5, 3, 2), rand(6, 4, 2), rand(7, 4), rand(8, 2, 4), rand(9, 2))]))

# ---------------------------------------------------------------------------------------------
p = Program("app_gmm", """
The ADBench GMM objective (benchmarks/README.md §GMM, gamma = 1, m = 0) at d = 3, K = 2, n = 4:
gradient in alphas, means and the packed inverse-covariance factors.
""", """
def logsumexp [n] (xs: [n]f64) : f64 =
  let m = f64.maximum xs
  in m + f64.log (f64.sum (map (\\x -> f64.exp (x - m)) xs))

-- Q (x - mu) for the packed lower-triangular factor, column by column
def qtimes (d: i64) (icf: []f64) (y: []f64) : []f64 =
  tabulate d (\\r ->
    f64.exp icf[r] * y[r]
    + f64.sum (tabulate d (\\c -> if c < r then icf[d + c * (d - 1) - c * (c - 1) / 2 + (r - c - 1)] * y[c] else 0)))

def gmm [n] [k] [d] [s] (x: [n][d]f64) (alphas: [k]f64, means: [k][d]f64, icf: [k][s]f64) : f64 =
  let data = f64.sum (map (\\xi ->
               logsumexp (map3 (\\a mu q ->
                 let z = qtimes d q (map2 (-) xi mu)
                 in a + f64.sum q[0:d] - 0.5 * f64.sum (map (\\t -> t * t) z)) alphas means icf)) x)
  let nf = f64.i64 n
  let df = f64.i64 d
  let prior = f64.sum (map (\\q -> 0.5 * (f64.sum (map (\\t -> f64.exp t * f64.exp t) q[0:d]) + f64.sum (map (\\t -> t * t) q[d:s]))) icf)
  let nw = df + 1
  let lmg = df * (df - 1) / 4 * f64.log f64.pi + f64.sum (tabulate d (\\j -> f64.lgamma (nw / 2 + (1 - f64.i64 (j + 1)) / 2)))
  let c = nw * df * (0 - 0.5 * f64.log 2) - lmg
  in data - nf * logsumexp alphas - nf * df / 2 * f64.log (2 * f64.pi) + prior - f64.i64 k * c

entry objective [n] [k] [d] [s] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64) = gmm x (alphas, means, icf)

entry grad [n] [k] [d] [s] (x: [n][d]f64) (alphas: [k]f64) (means: [k][d]f64) (icf: [k][s]f64) = vjp (gmm x) (alphas, means, icf) 1
""")


def gmm_j(x, alphas, means, icf):
    n, d = x.shape
    k = alphas.shape[0]

    def Q(q):
        m = jnp.diag(jnp.exp(q[:d]))
        t = d
        for c in range(d):
            for r in range(c + 1, d):
                m = m.at[r, c].set(q[t])
                t += 1
        return m

    data = 0.0
    for i in range(n):
        terms = []
        for kk in range(k):
            z = Q(icf[kk]) @ (x[i] - means[kk])
            terms.append(alphas[kk] + jnp.sum(icf[kk][:d]) - 0.5 * jnp.sum(z * z))
        data = data + logsumexp(jnp.stack(terms))
    prior = sum(0.5 * (jnp.sum(jnp.exp(icf[kk][:d]) ** 2) + jnp.sum(icf[kk][d:] ** 2)) for kk in range(k))
    nw = d + 1
    lmg = d * (d - 1) / 4 * math.log(math.pi) + sum(gammaln(nw / 2 + (1 - j) / 2) for j in range(1, d + 1))
    c = nw * d * (0 - 0.5 * math.log(2)) - lmg
    return data - n * logsumexp(alphas) - n * d / 2 * math.log(2 * math.pi) + prior - k * c


gx, ga, gm, gi = rand(10, 4, 3), rand(11, 2), rand(12, 2, 3), rand(13, 2, 6, lo=-0.5, hi=0.5)
P.append(p.test("objective", lambda x, a, m, i: f64(gmm_j(x, a, m, i)), [(gx, ga, gm, gi)]))
p.test("grad", lambda x, a, m, i: vjp(lambda a, m, i: gmm_j(x, a, m, i), (a, m, i), 1.0), [(gx, ga, gm, gi)])

# ---------------------------------------------------------------------------------------------
p = Program("app_euler_ode", """
Explicit Euler, 100 steps, for a damped nonlinear oscillator x'' = -k sin x - c x': gradient of
the final position in the initial state and the parameters.
""", """
def simulate (x0: f64, v0: f64, k: f64, c: f64) : f64 =
  let h = 0.05
  let (x, _) = loop (x, v) = (x0, v0) for _i < 100 do (x + h * v, v + h * (-k * f64.sin x - c * v))
  in x

entry final (x0: f64) (v0: f64) (k: f64) (c: f64) = simulate (x0, v0, k, c)

entry grad (x0: f64) (v0: f64) (k: f64) (c: f64) = vjp simulate (x0, v0, k, c) 1
""")


def sim(x0, v0, k, c):
    h = 0.05

    def body(_, s):
        x, v = s
        return (x + h * v, v + h * (-k * jnp.sin(x) - c * v))

    x, _ = jax.lax.fori_loop(0, 100, body, (x0, v0))
    return x


def sim_grad(*a):
    return vjp(lambda *b: sim(*b), tuple(a), 1.0)


cases = [(f64(1.0), f64(0.0), f64(2.0), f64(0.1)), (f64(-0.5), f64(1.5), f64(1.0), f64(0.5))]
P.append(p.test("final", lambda *a: f64(sim(*a)), cases))
p.test("grad", lambda *a: sim_grad(*a), cases)

# ---------------------------------------------------------------------------------------------
p = Program("app_horner", """
A polynomial evaluated by Horner's rule in a loop: gradient in the coefficients and the point.
""", """
def horner [n] (cs: [n]f64) (x: f64) : f64 = loop acc = 0 for i < n do acc * x + cs[n - 1 - i]

entry grad [n] (cs: [n]f64) (x: f64) = vjp (\\(c, t) -> horner c t) (cs, x) 1
""")


def horner(cs, x):
    g_c = f64([x ** i for i in range(len(cs))])
    g_x = f64(sum(i * cs[i] * x ** (i - 1) for i in range(1, len(cs))))
    return g_c, g_x


P.append(p.test("grad", horner, [(f64([1, 2, 3]), f64(2.0)), (f64([1, -1, 0.5, 0, 2]), f64(-1.5)), (f64([5.0]), f64(3.0)), (f64([1, 2, 3, 4]), f64(0.0))]))

# ---------------------------------------------------------------------------------------------
p = Program("app_least_squares", """
Least squares ||A x - b||^2: gradient 2 Aᵀ(Ax - b) in x, and the gradient in A and b.
""", """
def resid [m] [n] (a: [m][n]f64) (x: [n]f64) (b: [m]f64) : [m]f64 = map2 (\\r bi -> f64.sum (map2 (*) r x) - bi) a b

entry grad_x [m] [n] (a: [m][n]f64) (x: [n]f64) (b: [m]f64) = vjp (\\v -> f64.sum (map (\\r -> r * r) (resid a v b))) x 1

entry grad_all [m] [n] (a: [m][n]f64) (x: [n]f64) (b: [m]f64) = vjp (\\(p, q, r) -> f64.sum (map (\\e -> e * e) (resid p q r))) (a, x, b) 1
""")
A, X, B = rand(14, 4, 3), rand(15, 3), rand(16, 4)
P.append(p.test("grad_x", lambda a, x, b: f64(2 * a.T @ (a @ x - b)), [(A, X, B), (f64([[1, 0], [0, 1], [1, 1]]), f64([1, 1]), f64([1, 2, 3]))]))
p.test("grad_all", lambda a, x, b: vjp(lambda p, q, r: jnp.sum((p @ q - r) ** 2), (a, x, b), 1.0), [(A, X, B)])

# ---------------------------------------------------------------------------------------------
p = Program("app_kmeans", """
The k-means cost (benchmarks/README.md §k-means) and its gradient on the (3, 10, 2) instance;
expected values are the reference values given there.
""", """
def cost [n] [k] [d] (ps: [n][d]f64) (cs: [k][d]f64) : f64 =
  f64.sum (map (\\p -> f64.minimum (map (\\c -> f64.sum (map2 (\\a b -> (a - b) * (a - b)) p c)) cs)) ps)

entry value [n] [d] (ps: [n][d]f64) (cs: [3][d]f64) = cost ps cs

entry grad [n] [d] (ps: [n][d]f64) (cs: [3][d]f64) = vjp (cost ps) cs 1
""")
KP = f64([[0.5665615751722809, 0.7457817572627011], [0.9710027535867962, 0.4443592170557721],
          [0.44426470082635805, 0.762894391911761], [0.877348686764173, 0.5230671798509814],
          [0.28550868439696664, 0.7939966056623056], [0.4041421690502257, 0.6054203689753291],
          [0.4549379074702896, 0.5300789975015889], [0.43596539982472504, 0.16703498914055104],
          [0.645334640219506, 0.8153505833680997], [0.6817049733805886, 0.8843245635397898]])
# reference values copied from benchmarks/README.md §k-means
P.append(p.test("value", lambda ps, cs: f64(5.173619701e-01), [(KP, KP[:3])]))
p.test("grad", lambda ps, cs: f64([[-1.266405758e-01, 7.412702715e-01], [1.873081336e-01, -1.574159256e-01], [3.764106831e-01, 7.183744072e-01]]),
       [(KP, KP[:3])])

# ---------------------------------------------------------------------------------------------
p = Program("app_kmeans_generated", """
The k-means benchmark instance (k, n, d) = (5, 1000, 4) of benchmarks/README.md §k-means,
generated inside the program with the input generator described there (seed 1): cost and
gradient summaries by one vjp. Expected values are the reference row given there.
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

entry summary (k: i64) (n: i64) (d: i64) =
  let ps = tabulate_2d n d (\\i j -> unif 1 (i * d + j))
  let cs = ps[0:k]
  let (f, g) = vjp2 (cost ps) cs 1
  let gf = flatten g
  in (f, g[0, 0], g[0, d - 1], g[k - 1, 0], f64.sum gf, f64.sum (map f64.abs gf))
""")
# reference values copied from benchmarks/README.md §k-means
P.append(p.test("summary", lambda k, n, d: (f64(2.559754930e+02), f64(-2.793536869e+01), f64(2.109114415e+01), f64(-3.279308092e+01),
                                            f64(3.608421749e+02), f64(7.965579091e+02)), [(i64(5), i64(1000), i64(4))]))

# ---------------------------------------------------------------------------------------------
p = Program("app_rnn", """
A tiny recurrent network: h <- tanh(W h + U x_t) over a sequence, loss on the last state;
gradient in W, U and the initial state.
""", """
def mv [n] [m] (a: [n][m]f64) (x: [m]f64) : [n]f64 = map (\\r -> f64.sum (map2 (*) r x)) a

def run [t] [h] [d] (xs: [t][d]f64) (w: [h][h]f64, u: [h][d]f64, h0: [h]f64) : f64 =
  let hf = loop hs = h0 for x in xs do map2 (\\a b -> f64.tanh (a + b)) (mv w hs) (mv u x)
  in f64.sum (map (\\v -> v * v) hf)

entry grad [t] [h] [d] (xs: [t][d]f64) (w: [h][h]f64) (u: [h][d]f64) (h0: [h]f64) = vjp (run xs) (w, u, h0) 1
""")


def rnn(xs, w, u, h0):
    def f(w, u, h0):
        h = h0
        for x in xs:
            h = jnp.tanh(w @ h + u @ x)
        return jnp.sum(h * h)

    return vjp(f, (w, u, h0), 1.0)


P.append(p.test("grad", rnn, [(rand(17, 5, 2), rand(18, 3, 3), rand(19, 3, 2), rand(20, 3))]))

# ---------------------------------------------------------------------------------------------
p = Program("app_nnmf", """
NNMF exponential negative log-likelihood (benchmarks/README.md §NNMF): the gradient in H must
equal the closed form Wᵀ(1/X - A/X²) with X = W H.
""", """
def objective [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) : f64 =
  let x = map (\\wr -> map (\\hc -> f64.sum (map2 (*) wr hc)) (transpose h)) w
  in f64.sum (map2 (\\xr ar -> f64.sum (map2 (\\xv av -> f64.log xv + av / xv) xr ar)) x a)

entry grad_h [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) = vjp (objective a w) h 1

entry grad_w [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) = vjp (\\v -> objective a v h) w 1
""")
NA, NW, NH = rand(21, 4, 5, lo=0.5, hi=1.5), rand(22, 4, 2, lo=0.5, hi=1.5), rand(23, 2, 5, lo=0.5, hi=1.5)


def nnmf_h(a, w, h):
    x = w @ h
    return f64(w.T @ (1 / x - a / x ** 2))


def nnmf_w(a, w, h):
    x = w @ h
    return f64((1 / x - a / x ** 2) @ h.T)


P.append(p.test("grad_h", nnmf_h, [(NA, NW, NH)]))
p.test("grad_w", nnmf_w, [(NA, NW, NH)])

# ---------------------------------------------------------------------------------------------
p = Program("app_attention", """
Single-head dot-product attention with softmax over keys: gradient in queries, keys, values.
""", """
def softmax [n] (z: [n]f64) : [n]f64 =
  let m = f64.maximum z
  let e = map (\\t -> f64.exp (t - m)) z
  let s = f64.sum e
  in map (/ s) e

def attend [t] [d] (q: [t][d]f64, k: [t][d]f64, v: [t][d]f64) : f64 =
  let out = map (\\qi -> let w = softmax (map (\\kj -> f64.sum (map2 (*) qi kj)) k)
                        in map (\\col -> f64.sum (map2 (*) w col)) (transpose v)) q
  in f64.sum (map (\\r -> f64.sum (map (\\x -> x * x) r)) out)

entry grad [t] [d] (q: [t][d]f64) (k: [t][d]f64) (v: [t][d]f64) = vjp attend (q, k, v) 1
""")


def attend(q, k, v):
    w = jax.nn.softmax(q @ k.T, axis=1)
    return jnp.sum((w @ v) ** 2)


P.append(p.test("grad", lambda q, k, v: vjp(attend, (q, k, v), 1.0), [(rand(24, 3, 2), rand(25, 3, 2), rand(26, 3, 2))]))

# ---------------------------------------------------------------------------------------------
p = Program("app_rk4_stages", """
Classical Runge-Kutta steps for y0' = x0, yi' = xi y(i-1) (GradBench's ode with a given initial
state): each stage reads the previous one at the previous row, and the return sweep splits the
scalings of one cotangent among the stages' adjoints.
""", """
def ode_fun [n] (x: [n]f64) (y: [n]f64) : [n]f64 =
  tabulate n (\\i -> if i == 0 then x[0] else x[i] * y[i - 1])

def rk4 [n] (s: i64) (x: [n]f64) (y0: [n]f64) : [n]f64 =
  let h = 2 / f64.i64 s
  in loop y = y0 for _step < s do
       let k1 = ode_fun x y
       let k2 = ode_fun x (map2 (\\yi k -> yi + h * k / 2) y k1)
       let k3 = ode_fun x (map2 (\\yi k -> yi + h * k / 2) y k2)
       let k4 = ode_fun x (map2 (\\yi k -> yi + h * k) y k3)
       in map5 (\\yi a b c d -> yi + h * (a + 2 * b + 2 * c + d) / 6) y k1 k2 k3 k4

entry final [n] (x: [n]f64) (y0: [n]f64) (s: i64) : [n]f64 = rk4 s x y0

entry grad [n] (x: [n]f64) (y0: [n]f64) (s: i64) : ([n]f64, [n]f64) =
  vjp (\\(x, y0) -> rk4 s x y0) (x, y0) (tabulate n (\\i -> f64.i64 (i + 1)))
""")


def rk4(x, y0, s):
    def stage(y):
        return jnp.concatenate([x[:1], x[1:] * y[:-1]])

    h = 2.0 / int(s)
    y = y0
    for _ in range(int(s)):
        k1 = stage(y)
        k2 = stage(y + h * k1 / 2)
        k3 = stage(y + h * k2 / 2)
        k4 = stage(y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
    return y


def rk4_grad(x, y0, s):
    w = jnp.arange(1.0, x.shape[0] + 1)
    return vjp(lambda a, b: rk4(a, b, s), (x, y0), w)


cases = [(f64([0.5, -1.25, 2.0, 0.75, -0.3]), f64([0.1, 0.2, -0.4, 0.3, 1.5]), i64(3)),
         (f64([1.5, 0.25, -0.5, 1.0, 2.0, -1.0, 0.6]), f64([1.0, -1.0, 0.5, 0.25, -0.125, 2.0, 0.3]), i64(4))]
P.append(p.test("final", lambda *a: f64(rk4(*a)), cases))
p.test("grad", rk4_grad, cases)

for p in P:
    print(p.write())
