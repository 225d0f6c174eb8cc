"""Sequential loops in reverse mode: for loops with scalar, tuple and array state, loops over
arrays, nested loops, while loops, #[stripmine(k)] loops, and long loops whose updates are
invertible (x + e, x * e, rotations) so that reverse computing can replace checkpoints."""

from common import *  # noqa: F401,F403
import math

lax = jax.lax
P = []

# ---------------------------------------------------------------------------------------------
p = Program("loop_for_scalar", """
for loops with a scalar accumulator: powers, zero iterations, a free variable used in the body.
""", """
entry power (x: f64) (n: i64) = vjp (\\t -> loop acc = 1 for _i < n do acc * t) x 1

entry affine (x: f64) (a: f64) = vjp (\\(t, c) -> loop y = t for i < 5 do c * y + f64.i64 i * c * c) (x, a) 1

entry sines (x: f64) = vjp (\\t -> loop y = t for _i < 10 do f64.sin y + 0.5 * t) x 1

-- the loop's initial value is also free in the body: both paths contribute
entry init_and_free (x: f64) = vjp (\\t -> loop y = t for _i < 1 do y * y + t) x 1

entry init_and_free2 (x: f64) = vjp (\\t -> loop y = t for _i < 2 do y * 2 + t) x 1
""")
P.append(p.test("power", lambda x, n: f64(n * x ** (n - 1) if n > 0 else 0.0),
                [(f64(2.0), i64(3)), (f64(2.0), i64(0)), (f64(1.5), i64(4)), (f64(-1.0), i64(7)), (f64(0.0), i64(1))]))


def affine(t, c):
    y = t
    for i in range(5):
        y = c * y + i * c * c
    return y


def sines(t):
    y = t
    for _ in range(10):
        y = jnp.sin(y) + 0.5 * t
    return y


p.test("affine", lambda x, a: vjp(affine, (x, a), 1.0), [(f64(1.0), f64(2.0)), (f64(-0.5), f64(0.9))])
p.test("sines", lambda x: vjp(sines, x, 1.0), [f64(0.3), f64(2.0), f64(-1.0)])
p.test("init_and_free", lambda x: f64(2 * x + 1), [f64(0.5), f64(-2.0), f64(3.0)])
p.test("init_and_free2", lambda x: f64(7.0), [f64(0.5), f64(-2.0)])

# ---------------------------------------------------------------------------------------------
p = Program("loop_for_tuple", """
for loops carrying tuples: a Fibonacci-like recurrence and a two-variable nonlinear map.
""", """
entry fib (x: f64) (y: f64) = vjp (\\(a0, b0) -> let (a, b) = loop (a, b) = (a0, b0) for _i < 8 do (b, a + b) in a * b) (x, y) 1

entry henon (x: f64) (y: f64) (ab: f64) (bb: f64) =
  vjp (\\(a0, b0) -> loop (a, b) = (a0, b0) for _i < 6 do (1 - 1.4 * a * a * 0.1 + b, 0.3 * a)) (x, y) (ab, bb)
""")


def fib(a, b):
    for _ in range(8):
        a, b = b, a + b
    return a * b


def henon(a, b):
    for _ in range(6):
        a, b = 1 - 1.4 * a * a * 0.1 + b, 0.3 * a
    return a, b


P.append(p.test("fib", lambda x, y: vjp(fib, (x, y), 1.0), [(f64(1.0), f64(1.0)), (f64(0.5), f64(-2.0))]))
p.test("henon", lambda x, y, ab, bb: vjp(henon, (x, y), (ab, bb)), [(f64(0.1), f64(0.2), f64(1.0), f64(0.0)), (f64(0.1), f64(0.2), f64(0.0), f64(1.0))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_array_state", """
for loops whose state is an array updated in place, element by element, and a loop whose body
maps over the whole array state.
""", """
entry inplace [n] (xs: [n]f64) = vjp (\\v -> let a = loop a = copy v for i < n - 1 do a with [i + 1] = a[i + 1] * a[i] + 1 in f64.sum a) xs 1

entry whole (xs: [3]f64) (yb: [3]f64) = vjp (\\v -> loop a = v for _i < 4 do map (\\t -> f64.sin t + t * 0.5) a) xs yb

entry prefix [n] (xs: [n]f64) (yb: [n]f64) = vjp (\\v -> loop a = copy v for i < n - 1 do a with [i + 1] = a[i] + a[i + 1]) xs yb

entry swap (xs: [4]f64) = vjp (\\v -> let a = loop a = copy v for i < 3 do let t = a[i] in (a with [i] = a[i + 1] * 2) with [i + 1] = t in a[0] * a[3] + a[1]) xs 1
""")


def inplace(v):
    a = v
    for i in range(len(v) - 1):
        a = a.at[i + 1].set(a[i + 1] * a[i] + 1)
    return jnp.sum(a)


def whole(v):
    a = v
    for _ in range(4):
        a = jnp.sin(a) + a * 0.5
    return a


def swap(v):
    a = v
    for i in range(3):
        t = a[i]
        a = a.at[i].set(a[i + 1] * 2).at[i + 1].set(t)
    return a[0] * a[3] + a[1]


P.append(p.test("inplace", lambda x: vjp(inplace, x, 1.0), [f64([1, 2, 3, 4]), f64([0.5, -1, 0.25]), f64([2.0])]))
p.test("whole", lambda x, yb: vjp(whole, x, yb), [(f64([0.1, 1, -2]), f64([1, 1, 1]))])
p.test("prefix", lambda x, yb: f64(np.cumsum(yb[::-1])[::-1]), [(f64([1, 2, 3, 4]), f64([1, 2, 3, 4])), (f64([1, 2, 3]), f64([0, 0, 1]))])
p.test("swap", lambda x: vjp(swap, x, 1.0), [f64([1, 2, 3, 4])])

# ---------------------------------------------------------------------------------------------
p = Program("loop_for_in", """
`for x in xs` loops: each element is read once; an accumulator mixing state and element.
""", """
entry sumsq (xs: [5]f64) = vjp (\\v -> loop s = 0 for e in v do s + e * e) xs 1

entry horner_like (xs: [4]f64) (x: f64) = vjp (\\(v, t) -> loop s = 0 for e in v do s * t + e) (xs, x) 1

entry maxrun (xs: [5]f64) = vjp (\\v -> loop s = 0 for e in v do f64.max s (s * 0.5 + e)) xs 1
""")


def horner_like(v, t):
    s = 0.0
    for i in range(v.shape[0]):
        s = s * t + v[i]
    return s


def maxrun(v):
    # hand-derived: f64.max gives the first operand on a tie
    s = 0.0
    ds = np.zeros(len(v))  # ds/dv
    for i, e in enumerate(v):
        cand = s * 0.5 + e
        if s >= cand:
            pass
        else:
            ds = ds * 0.5
            ds[i] += 1
            s = cand
    return f64(ds)


P.append(p.test("sumsq", lambda x: f64(2 * x), [f64([1, 2, 3, 4, 5])]))
p.test("horner_like", lambda x, t: vjp(horner_like, (x, t), 1.0), [(f64([1, 2, 3, 4]), f64(2.0)), (f64([0.5, 0, -1, 3]), f64(-1.5))])
p.test("maxrun", maxrun, [f64([1, -1, 2, 0.5, 3]), f64([-1, -2, -3, -4, -5]), f64([2, 1, 0, 2, 0])])

# ---------------------------------------------------------------------------------------------
p = Program("loop_nested", """
Nested for loops: an inner loop over a row, the outer loop over rows, with carried state.
""", """
entry grid (m: [3][3]f64) = vjp (\\a -> loop s = 0 for i < 3 do loop t = s for j < 3 do t * 0.9 + a[i, j] * a[j, i]) m 1

entry powers (x: f64) = vjp (\\t -> loop s = 0 for i < 4 do s + (loop p = 1 for _j < i do p * t)) x 1

entry matpow (m: [2][2]f64) = vjp (\\a ->
    let r = loop r = [[1.0, 0.0], [0.0, 1.0]] for _k < 3 do
              tabulate_2d 2 2 (\\i j -> loop s = 0 for l < 2 do s + r[i, l] * a[l, j])
    in r[0, 0] + r[1, 1] * 2 + r[0, 1]) m 1
""")


def grid(a):
    s = 0.0
    for i in range(3):
        t = s
        for j in range(3):
            t = t * 0.9 + a[i, j] * a[j, i]
        s = t
    return s


def matpow(a):
    r = jnp.eye(2)
    for _ in range(3):
        r = r @ a
    return r[0, 0] + r[1, 1] * 2 + r[0, 1]


P.append(p.test("grid", lambda m: vjp(grid, m, 1.0), [rand(1, 3, 3), f64([[1, 2, 3], [4, 5, 6], [7, 8, 9]])]))
p.test("powers", lambda x: f64(1 + 2 * x + 3 * x * x), [f64(2.0), f64(-1.0), f64(0.0)])
p.test("matpow", lambda m: vjp(matpow, m, 1.0), [rand(2, 2, 2)])

# ---------------------------------------------------------------------------------------------
p = Program("loop_while", """
while loops: the iteration count depends on the data but is not differentiated.
""", """
entry doubling (x: f64) = vjp (\\t -> loop y = t while y < 100 do y * 2 + t) x 1

entry counted (x: f64) (n: i64) = vjp (\\t -> let (y, _) = loop (y, i) = (t, 0) while i < n do (y * y * 0.5 + 0.1, i + 1) in y) x 1

entry newton (a: f64) = vjp (\\c -> let (y, _) = loop (y, k) = (c, 0i32) while k < 6 do (0.5 * (y + c / y), k + 1) in y) a 1

entry never (x: f64) = vjp (\\t -> loop y = t * 3 while y > 1000 do y / 2) x 1
""")


def doubling(t):
    # count iterations on the primal, then differentiate the fixed-length chain
    y, k = float(t), 0
    while y < 100:
        y = y * 2 + float(t)
        k += 1

    def f(tt):
        yy = tt
        for _ in range(k):
            yy = yy * 2 + tt
        return yy

    return vjp(f, t, 1.0)


def counted(t, n):
    def f(tt):
        y = tt
        for _ in range(int(n)):
            y = y * y * 0.5 + 0.1
        return y

    return vjp(f, t, 1.0)


def newton(c):
    def f(cc):
        y = cc
        for _ in range(6):
            y = 0.5 * (y + cc / y)
        return y

    return vjp(f, c, 1.0)


P.append(p.test("doubling", doubling, [f64(1.0), f64(30.0), f64(150.0), f64(7.0)]))
p.test("counted", counted, [(f64(0.5), i64(3)), (f64(1.2), i64(0)), (f64(-0.3), i64(5))])
p.test("newton", newton, [f64(2.0), f64(9.0), f64(0.5)])
p.test("never", lambda x: f64(3.0), [f64(1.0)])

# ---------------------------------------------------------------------------------------------
p = Program("loop_stripmine", """
#[stripmine(k)] loops: the gradient must equal that of the plain loop, for iteration counts
that are and are not multiples of the strip size, and for zero and one iteration.
""", """
def step (y: f64) (c: f64) = y * c + f64.sin y

entry sm2 (x: f64) (c: f64) (n: i64) = vjp (\\(t, k) -> #[stripmine(2)] loop y = t for _i < n do step y k) (x, c) 1

entry sm3 (x: f64) (c: f64) (n: i64) = vjp (\\(t, k) -> #[stripmine(3)] loop y = t for _i < n do step y k) (x, c) 1

entry plain (x: f64) (c: f64) (n: i64) = vjp (\\(t, k) -> loop y = t for _i < n do step y k) (x, c) 1

entry arr (xs: [4]f64) (n: i64) = vjp (\\v -> let a = #[stripmine(2)] loop a = copy v for i < n do a with [i % 4] = a[i % 4] * 0.5 + a[(i + 1) % 4] in f64.sum a) xs 1
""")


def sm(x, c, n):
    def f(t, k):
        y = t
        for _ in range(int(n)):
            y = y * k + jnp.sin(y)
        return y

    return vjp(f, (x, c), 1.0)


cases = [(f64(0.5), f64(0.9), i64(n)) for n in (0, 1, 7, 16, 25)]
P.append(p.test("sm2", sm, cases))
p.test("sm3", sm, cases)
p.test("plain", sm, cases)


def sm_arr(v, n):
    def f(v):
        a = v
        for i in range(int(n)):
            a = a.at[i % 4].set(a[i % 4] * 0.5 + a[(i + 1) % 4])
        return jnp.sum(a)

    return vjp(f, v, 1.0)


p.test("arr", sm_arr, [(f64([1, 2, 3, 4]), i64(9)), (f64([1, -2, 3, 0.5]), i64(16)), (f64([1, 2, 3, 4]), i64(0))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_reverse_add", """
A long loop whose carried update is x + e (invertible by subtraction): 2000 steps.
""", """
entry grad (x: f64) (c: f64) = vjp (\\(t, k) -> loop y = t for i < 2000 do y + f64.sin (k + 0.001 * f64.i64 i) * 0.001) (x, c) 1

entry sub (x: f64) (c: f64) = vjp (\\(t, k) -> let y = loop y = t for i < 1000 do y - k * k / f64.i64 (i + 1) in y * y) (x, c) 1
""")


def rev_add(x, c):
    i = np.arange(2000.0)
    return f64(1.0), f64(np.sum(np.cos(c + 0.001 * i)) * 0.001)


def rev_sub(x, c):
    h = np.sum(1.0 / np.arange(1, 1001))
    y = x - c * c * h
    return f64(2 * y), f64(2 * y * (-2 * c * h))


P.append(p.test("grad", rev_add, [(f64(1.0), f64(0.01)), (f64(-3.0), f64(0.5))]))
p.test("sub", rev_sub, [(f64(1.0), f64(0.1)), (f64(5.0), f64(-0.3))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_reverse_mul", """
Long loops whose carried update is x * e (invertible by division unless e is zero): the
gradient must stay exact when some factors are zero.
""", """
entry grad [n] (x: f64) (es: [n]f64) = vjp (\\(t, v) -> loop y = t for i < n do y * v[i]) (x, es) 1

entry long (x: f64) (c: f64) = vjp (\\(t, k) -> loop y = t for i < 1000 do y * (1 + k * f64.cos (f64.i64 i))) (x, c) 1
""")


def rev_mul(x, es):
    # hand-derived without dividing by any factor
    n = len(es)
    y = float(x) * np.prod(es)
    dt = np.prod(es)
    dv = np.array([float(x) * np.prod(np.delete(es, i)) for i in range(n)])
    return f64(dt), f64(dv)


def rev_long(x, c):
    def f(t, k):
        i = jnp.arange(1000.0)
        return t * jnp.prod(1 + k * jnp.cos(i))

    return vjp(f, (x, c), 1.0)


P.append(p.test("grad", rev_mul, [(f64(2.0), f64([1.5, 2, 0.5, -1])), (f64(2.0), f64([1.5, 0, 0.5, -1])),
                                  (f64(2.0), f64([0, 2, 0, 3])), (f64(0.0), f64([1, 2, 3]))]))
p.test("long", rev_long, [(f64(1.5), f64(0.001)), (f64(-1.0), f64(0.0005))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_reverse_rotation", """
A long loop rotating a pair of values (an invertible update): 1000 steps of a rotation by an
angle that is itself differentiated.
""", """
entry grad (x: f64) (y: f64) (th: f64) =
  vjp (\\(a0, b0, t) -> let (a, b) = loop (a, b) = (a0, b0) for _i < 1000 do (f64.cos t * a - f64.sin t * b, f64.sin t * a + f64.cos t * b) in a * 2 + b) (x, y, th) 1

entry damped (x: f64) (y: f64) = vjp (\\(a0, b0) -> let (a, b) = loop (a, b) = (a0, b0) for i < 500 do (b, a + b * 0.001 * f64.i64 (i % 3)) in a - b) (x, y) 1
""")


def rot(x, y, th):
    def f(a0, b0, t):
        n = 1000
        a = jnp.cos(n * t) * a0 - jnp.sin(n * t) * b0
        b = jnp.sin(n * t) * a0 + jnp.cos(n * t) * b0
        return a * 2 + b

    return vjp(f, (x, y, th), 1.0)


def damped(x, y):
    # linear: propagate the 2x2 matrices exactly
    m = np.eye(2)
    for i in range(500):
        m = np.array([[0.0, 1.0], [1.0, 0.001 * (i % 3)]]) @ m
    g = np.array([1.0, -1.0]) @ m
    return f64(g[0]), f64(g[1])


P.append(p.test("grad", rot, [(f64(1.0), f64(0.0), f64(0.001)), (f64(0.5), f64(-2.0), f64(0.01))]))
p.test("damped", damped, [(f64(1.0), f64(2.0))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_free_array", """
A loop reading a free array at a data-dependent position: the array's cotangent accumulates
over iterations.
""", """
entry grad [n] (xs: [n]f64) (is: [5]i64) = vjp (\\v -> loop s = 1 for j < 5 do s * 0.5 + v[is[j]] * v[is[j]]) xs 1

entry both (xs: [3]f64) (x: f64) = vjp (\\(v, t) -> loop s = t for i < 6 do s * v[i % 3] + v[(i + 1) % 3]) (xs, x) 1
""")


def lfa(xs, idx):
    def f(v):
        s = 1.0
        for j in range(5):
            s = s * 0.5 + v[idx[j]] * v[idx[j]]
        return s

    return vjp(f, xs, 1.0)


def both(xs, x):
    def f(v, t):
        s = t
        for i in range(6):
            s = s * v[i % 3] + v[(i + 1) % 3]
        return s

    return vjp(f, (xs, x), 1.0)


P.append(p.test("grad", lfa, [(f64([1, 2, 3]), i64([0, 1, 2, 1, 0])), (f64([0.5, -1]), i64([1, 1, 1, 1, 1]))]))
p.test("both", both, [(f64([0.5, 1.5, -1]), f64(2.0))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_if_body", """
An if inside the loop body: the branch taken may differ between iterations.
""", """
entry collatz_like (x: f64) = vjp (\\t -> loop y = t for i < 12 do if i % 3 == 0 then y * 0.5 else if y > 1 then y - 0.3 * y * y else y + t) x 1

entry clip (xs: [4]f64) = vjp (\\v -> f64.sum (loop a = v for _i < 3 do map (\\e -> if e > 1 then 1 + (e - 1) * 0.1 else e * 1.5) a)) xs 1
""")


def collatz_like(x):
    def f(t):
        y = t
        for i in range(12):
            if i % 3 == 0:
                y = y * 0.5
            elif float(y) > 1:
                y = y - 0.3 * y * y
            else:
                y = y + t
        return y

    # branch choices read the primal value; JAX traces with concrete values under jax.vjp? no:
    # compute with plain floats and forward-mode dual numbers instead
    y, dy = float(x), 1.0
    for i in range(12):
        if i % 3 == 0:
            y, dy = y * 0.5, dy * 0.5
        elif y > 1:
            y, dy = y - 0.3 * y * y, dy - 0.6 * y * dy
        else:
            y, dy = y + float(x), dy + 1.0
    return f64(dy)


def clip(xs):
    a = xs.astype(float).copy()
    da = np.ones(4)
    for _ in range(3):
        big = a > 1
        da = da * np.where(big, 0.1, 1.5)
        a = np.where(big, 1 + (a - 1) * 0.1, a * 1.5)
    return f64(da)


P.append(p.test("collatz_like", collatz_like, [f64(0.5), f64(3.0), f64(1.2)]))
p.test("clip", clip, [f64([0.1, 0.9, 2.0, -1.0])])

# ---------------------------------------------------------------------------------------------
p = Program("loop_int", """
Integer loops in reverse mode: exact integer cotangents.
""", """
entry power (x: i32) = vjp (\\t -> loop acc = 1 for _i < 5 do acc * t) x 1

entry mix (x: i64) (y: i64) = vjp (\\(a, b) -> loop s = a for i < 4 do s * b + i) (x, y) 1
""")


def mix(x, y):
    # s4 = a b^4 + 0 b^3 + 1 b^2 + 2 b + 3
    a, b = int(x), int(y)
    return i64(b ** 4), i64(4 * a * b ** 3 + 2 * b + 2)


P.append(p.test("power", lambda x: i32(((5 * int(x) ** 4 + 2**31) % 2**32) - 2**31), [i32(2), i32(-3), i32(200)]))
p.test("mix", mix, [(i64(2), i64(3)), (i64(-1), i64(5))])

# ---------------------------------------------------------------------------------------------
p = Program("loop_f32", """
An f32 loop with a free f32 array.
""", """
entry grad (x: f32) (ws: [3]f32) = vjp (\\(t, w) -> loop y = t for i < 9 do f32.tanh (y * w[i % 3] + 0.1)) (x, ws) 1
""")


def lf32(x, ws):
    def f(t, w):
        y = t
        for i in range(9):
            y = jnp.tanh(y * w[i % 3] + 0.1)
        return y

    return vjp(f, (x, ws), np.float32(1))


P.append(p.test("grad", lf32, [(f32(0.5), f32([1.5, -0.5, 2.0]))]))

for p in P:
    print(p.write())
