"""Straight-line scalar programs: every primitive class, tuples, records, `if`, integer leaves."""

from common import *  # noqa: F401,F403
import math


def vjp(f, x, yb):
    """JAX reverse mode: returns the cotangent of the (tuple) argument."""
    _, back = jax.vjp(f, *x) if isinstance(x, tuple) else jax.vjp(f, x)
    r = back(yb)
    return r if isinstance(x, tuple) else r[0]


def wrap32(v):
    return np.int32(((int(v) + 2**31) % 2**32) - 2**31)


def wrap64(v):
    return np.int64(((int(v) + 2**63) % 2**64) - 2**63)


P = []

# ---------------------------------------------------------------------------------------------
p = Program("scalar_arith", """
Reverse mode of + - * / and negation on f64 scalars, with tuple arguments and a scaled seed.
""", """
def f (a: f64, b: f64) : f64 = a * b - a / b + 3 * a - b * b * b + -a

entry grad (x: f64) (y: f64) = vjp f (x, y) 1

entry scaled (x: f64) (y: f64) (yb: f64) = vjp f (x, y) yb

entry value_and_grad (x: f64) (y: f64) =
  let (v, (dx, dy)) = vjp2 f (x, y) 1
  in (v, dx, dy)
""")
f = lambda a, b: a * b - a / b + 3 * a - b * b * b - a
P.append(p.test("grad", lambda x, y: vjp(f, (x, y), 1.0),
                [(f64(2.0), f64(3.0)), (f64(-1.5), f64(0.5)), (f64(0.0), f64(1.0)), (f64(1e3), f64(-2e-2))]))
p.test("scaled", lambda x, y, s: vjp(f, (x, y), s), [(f64(2.0), f64(3.0), f64(2.5)), (f64(1.0), f64(1.0), f64(0.0)),
                                                     (f64(-3.0), f64(4.0), f64(-1.0))])
p.test("value_and_grad", lambda x, y: (f(x, y),) + tuple(vjp(f, (x, y), 1.0)),
       [(f64(2.0), f64(3.0)), (f64(0.25), f64(-4.0))])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_sqrt_exp_log", """
sqrt, exp, log, log1p, log2, log10, rsqrt, cbrt in reverse mode.
""", """
def f (x: f64) : f64 = f64.sqrt x * f64.exp (-x) + f64.log x * x

entry grad (x: f64) = vjp f x 1

def g (x: f64) : f64 = f64.log1p x + f64.log2 x - f64.log10 (x * x) + f64.rsqrt x + f64.cbrt x

entry grad_g (x: f64) = vjp g x 1

entry chain (x: f64) = vjp (\\t -> f64.exp (f64.sqrt (f64.log (t * t + 1)))) x 1
""")
P.append(p.test("grad", lambda x: vjp(lambda t: jnp.sqrt(t) * jnp.exp(-t) + jnp.log(t) * t, x, 1.0),
                [f64(1.0), f64(0.01), f64(4.0), f64(25.0)]))
p.test("grad_g", lambda x: vjp(lambda t: jnp.log1p(t) + jnp.log2(t) - jnp.log10(t * t) + 1 / jnp.sqrt(t) + jnp.cbrt(t), x, 1.0),
       [f64(1.0), f64(0.5), f64(8.0), f64(100.0)])
p.test("chain", lambda x: vjp(lambda t: jnp.exp(jnp.sqrt(jnp.log(t * t + 1))), x, 1.0),
       [f64(1.0), f64(-2.0), f64(0.3)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_trig", """
sin, cos, tan, asin, acos, atan, atan2 and hypot in reverse mode.
""", """
entry grad (x: f64) = vjp (\\t -> f64.sin t * f64.cos (2 * t) + f64.tan (t / 3)) x 1

entry inverse (x: f64) = vjp (\\t -> f64.asin t + 2 * f64.acos (t / 2) + f64.atan (3 * t)) x 1

entry two_args (y: f64) (x: f64) = vjp (\\(a, b) -> f64.atan2 a b + f64.hypot a b) (y, x) 1
""")
P.append(p.test("grad", lambda x: vjp(lambda t: jnp.sin(t) * jnp.cos(2 * t) + jnp.tan(t / 3), x, 1.0),
                [f64(0.0), f64(1.0), f64(-2.5), f64(3.14159)]))
p.test("inverse", lambda x: vjp(lambda t: jnp.arcsin(t) + 2 * jnp.arccos(t / 2) + jnp.arctan(3 * t), x, 1.0),
       [f64(0.0), f64(0.5), f64(-0.9)])
p.test("two_args", lambda y, x: vjp(lambda a, b: jnp.arctan2(a, b) + jnp.hypot(a, b), (y, x), 1.0),
       [(f64(1.0), f64(1.0)), (f64(-2.0), f64(0.5)), (f64(3.0), f64(-4.0))])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_tanh_sigmoid", """
tanh, sinh, cosh, the logistic sigmoid and softplus in reverse mode.
""", """
def sigmoid (z: f64) = 1 / (1 + f64.exp (-z))

def softplus (z: f64) = f64.log1p (f64.exp z)

entry grad (x: f64) = vjp (\\t -> f64.tanh t + sigmoid (2 * t) + softplus (-t)) x 1

entry hyper (x: f64) = vjp (\\t -> f64.sinh t * f64.cosh (t / 2) + f64.asinh t + f64.atanh (t / 4)) x 1
""")
sig = lambda z: 1 / (1 + jnp.exp(-z))
P.append(p.test("grad", lambda x: vjp(lambda t: jnp.tanh(t) + sig(2 * t) + jnp.log1p(jnp.exp(-t)), x, 1.0),
                [f64(0.0), f64(1.0), f64(-3.0), f64(20.0)]))
p.test("hyper", lambda x: vjp(lambda t: jnp.sinh(t) * jnp.cosh(t / 2) + jnp.arcsinh(t) + jnp.arctanh(t / 4), x, 1.0),
       [f64(0.0), f64(1.5), f64(-2.0)])


# ---------------------------------------------------------------------------------------------
def pow_partials(x, y):
    """gradus's table 10.4 for x ** y (hand-written: JAX differs at x <= 0)."""
    x, y = float(x), float(y)
    dx = 0.0 if (x == 0 and y < 1) else y * x ** (y - 1)
    dy = 0.0 if x <= 0 else x ** y * math.log(x)
    return f64(dx), f64(dy)


p = Program("scalar_pow", """
Float power `**` and `f64.pow`-style uses: both partials, including the kinks of table 10.4
(x = 0 with y < 1 gives 0 for x; x <= 0 gives 0 for y).
""", """
entry grad (x: f64) (y: f64) = vjp (\\(a, b) -> a ** b) (x, y) 1

entry square_root_pow (x: f64) = vjp (\\t -> t ** 0.5 + t ** 2 + 2 ** t) x 1
""")
P.append(p.test("grad", pow_partials,
                [(f64(2.0), f64(3.0)), (f64(0.0), f64(2.0)), (f64(0.0), f64(0.5)), (f64(-2.0), f64(3.0)),
                 (f64(4.0), f64(0.5)), (f64(1.0), f64(-1.0)), (f64(0.0), f64(1.0))]))
p.test("square_root_pow", lambda x: vjp(lambda t: t ** 0.5 + t ** 2 + 2 ** t, x, 1.0), [f64(4.0), f64(0.25), f64(9.0)])


# ---------------------------------------------------------------------------------------------
def mm(x, y):
    # hand-derived with the tie rule: the first operand wins ties
    x, y = float(x), float(y)
    dmx, dmy = (1.0, 0.0) if x >= y else (0.0, 1.0)   # max x y
    dnx, dny = (1.0, 0.0) if x <= y else (0.0, 1.0)   # min x y
    # f = 2 * max x y + 3 * min x y
    return f64(2 * dmx + 3 * dnx), f64(2 * dmy + 3 * dny)


p = Program("scalar_minmax", """
f64.max and f64.min: the returned operand gets the cotangent; on a tie the first operand.
""", """
entry grad (x: f64) (y: f64) = vjp (\\(a, b) -> 2 * f64.max a b + 3 * f64.min a b) (x, y) 1

entry relu (x: f64) = vjp (\\t -> f64.max t 0) x 1

entry clamp (x: f64) = vjp (\\t -> f64.min 1 (f64.max (-1) (2 * t))) x 1
""")
P.append(p.test("grad", mm, [(f64(1.0), f64(2.0)), (f64(3.0), f64(-1.0)), (f64(2.0), f64(2.0)), (f64(-0.5), f64(-0.5))]))
p.test("relu", lambda x: f64(1.0 if x >= 0 else 0.0), [f64(1.5), f64(-1.5), f64(0.0)])
# min 1 (max (-1) 2t): derivative 2 inside (-1, 1); at 2t == 1 the first operand (1) wins -> 0;
# at 2t == -1 the first operand (-1) wins -> 0
p.test("clamp", lambda x: f64(2.0 if -1 < 2 * x < 1 else 0.0), [f64(0.1), f64(0.5), f64(-0.5), f64(3.0), f64(-2.0)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_abs_sign", """
abs (derivative sgn x, 0 at 0), sgn, floor, ceil, round and trunc (derivative 0).
""", """
entry grad (x: f64) = vjp (\\t -> f64.abs t * 3 + f64.abs (t * t - 1)) x 1

entry flat (x: f64) = vjp (\\t -> f64.floor t + f64.ceil (2 * t) + f64.round t + f64.trunc t + f64.sgn t + t) x 1

entry int_abs (x: i32) = vjp (\\t -> i32.abs t * 5) x 1
""")
P.append(p.test("grad", lambda x: f64(3 * np.sign(x) + np.sign(x * x - 1) * 2 * x),
                [f64(2.0), f64(-0.5), f64(0.0), f64(1.0), f64(-1.0)]))
p.test("flat", lambda x: f64(1.0), [f64(1.3), f64(-2.5), f64(0.0)])
p.test("int_abs", lambda x: i32(5 * np.sign(x)), [i32(7), i32(-3), i32(0)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_conversions", """
Conversions are identities for AD (10.3): the cotangent is converted back with the opposite
conversion; rounding before a conversion still gives 0.
""", """
entry f32_roundtrip (x: f32) = vjp (\\t -> f32.f64 (f64.f32 t * 2) * t) x 1

entry to_int (x: f64) = vjp i32.f64 x 2

entry via_int (x: f64) = vjp (\\t -> f64.i32 (i32.f64 t) * 3) x 1

entry floor_int (x: f64) = vjp (\\t -> f64.i64 (i64.f64 (f64.floor t))) x 1

entry from_int (n: i32) = vjp (\\k -> f64.i32 k * 2.5) n 2
""")
P.append(p.test("f32_roundtrip", lambda x: f32(4 * x), [f32(1.5), f32(-2.0), f32(0.0)]))
p.test("to_int", lambda x: f64(2.0), [f64(1.5), f64(-7.25)])
p.test("via_int", lambda x: f64(3.0), [f64(1.7), f64(-0.2)])
p.test("floor_int", lambda x: f64(0.0), [f64(2.5), f64(-1.5)])
# the cotangent 2.0 * 2 of the f64 result is converted back to i32: 5 (i32.f64 5.0)
p.test("from_int", lambda n: i32(5), [i32(3), i32(-4)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_int_leaves", """
Integer leaves have integer cotangents computed exactly with wrap-around (10.3).
""", """
entry cube (x: i32) = vjp (\\t -> t * t * t) x 1

entry times (x: i32) (y: i32) = vjp (\\t -> t * y) x 2

entry poly64 (x: i64) = vjp (\\t -> 3 * t * t - 7 * t + 11) x 3

entry div_mod (x: i32) (y: i32) = vjp (\\(a, b) -> a / b + a % b) (x, y) 1

entry ipow (x: i32) = vjp (\\t -> t ** 4) x 1
""")
P.append(p.test("cube", lambda x: wrap32(3 * int(x) * int(x)), [i32(3), i32(-2), i32(0), i32(100000)]))
p.test("times", lambda x, y: wrap32(2 * int(y)), [(i32(5), i32(7)), (i32(1), i32(2**30 + 5))])
p.test("poly64", lambda x: wrap64(3 * (6 * int(x) - 7)), [i64(2), i64(-5), i64(10**18)])


def div_mod(x, y):
    x, y = int(x), int(y)
    # table 10.4: the partials of integer `/` are written with `//` (rounding towards zero)
    q = lambda a, b: int(a / b) if abs(a) < 2**52 else None
    dx = q(1, y) + 1
    dy = -q(x, y * y)
    return wrap32(dx), wrap32(dy)


p.test("div_mod", div_mod, [(i32(7), i32(2)), (i32(7), i32(1)), (i32(-9), i32(2)), (i32(20), i32(-3))])
p.test("ipow", lambda x: wrap32(4 * int(x) ** 3), [i32(2), i32(-3), i32(0), i32(1000)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_tuples", """
Tuples as the input and the output of the differentiated function; the seed is a tuple.
""", """
def f (a: f64, b: f64, c: f64) : (f64, f64, f64) = (a * b, b + c * c, a * c - b)

entry rev (x: f64) (y: f64) (z: f64) (u: f64) (v: f64) (w: f64) = vjp f (x, y, z) (u, v, w)

entry nested (x: f64) (y: f64) =
  let ((da, db), dc) = vjp (\\((a, b), c) -> (a * c, (b - a) * c)) ((x, y), x + y) (1, 2)
  in (da, db, dc)
""")
ft = lambda a, b, c: (a * b, b + c * c, a * c - b)
P.append(p.test("rev", lambda x, y, z, u, v, w: vjp(ft, (x, y, z), (u, v, w)),
                [tuple(f64(v) for v in (1, 2, 3, 1, 0, 0)), tuple(f64(v) for v in (1, 2, 3, 0, 1, 0)),
                 tuple(f64(v) for v in (1, 2, 3, 0, 0, 1)), tuple(f64(v) for v in (-0.5, 2.5, 4, 1, -2, 3))]))


def nested(x, y):
    (ab, c) = vjp(lambda ab, c: (ab[0] * c, (ab[1] - ab[0]) * c), ((x, y), x + y), (1.0, 2.0))
    return ab[0], ab[1], c


p.test("nested", nested, [(f64(1.0), f64(2.0)), (f64(-3.0), f64(0.5))])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_records", """
Records as inputs, outputs and seeds of vjp; field order in the type does not matter.
""", """
def f (p: {x: f64, y: f64, k: f64}) : {s: f64, t: f64} = {s = p.x * p.k + p.y, t = p.y * p.y * p.k}

entry rev (a: f64) (b: f64) (c: f64) (sb: f64) (tb: f64) =
  let r = vjp f {x = a, y = b, k = c} {t = tb, s = sb}
  in (r.x, r.y, r.k)

entry update (a: f64) (b: f64) =
  let r = vjp (\\(p: {u: f64, v: f64}) -> p with v = p.u * p.v) {u = a, v = b} {u = 1, v = 1}
  in (r.u, r.v)
""")


def rec_rev(a, b, c, sb, tb):
    g = lambda x, y, k: (x * k + y, y * y * k)
    return vjp(g, (a, b, c), (sb, tb))


P.append(p.test("rev", rec_rev, [tuple(f64(v) for v in (1, 2, 3, 1, 0)), tuple(f64(v) for v in (1, 2, 3, 0, 1)),
                                 tuple(f64(v) for v in (-1.5, 0.5, 2, 2, -1))]))
# (u, v) -> (u, u * v), seed (1, 1): du = 1 + v, dv = u
p.test("update", lambda a, b: (f64(1 + b), f64(a)), [(f64(2.0), f64(3.0)), (f64(-1.0), f64(0.0))])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_if", """
`if`: the branch taken is differentiated; the condition is not. Branches that return different
variables, nested ifs, and an if inside a tuple-valued function.
""", """
def f (x: f64) (y: f64) : f64 =
  if x > y then x * x * y else if x < 0 then y - x else f64.sin x * y

entry grad (x: f64) (y: f64) = vjp (\\(a, b) -> f a b) (x, y) 1

entry select (x: f64) (y: f64) (c: bool) = vjp (\\(a, b) -> let (p, q) = if c then (a, b) else (b, a) in p * 2 + q * 3) (x, y) 1

entry piecewise (x: f64) = vjp (\\t -> if t < 1 then t * t else 2 * t - 1) x 1
""")


def if_grad(x, y):
    if x > y:
        return f64(2 * x * y), f64(x * x)
    if x < 0:
        return f64(-1.0), f64(1.0)
    return f64(math.cos(x) * y), f64(math.sin(x))


P.append(p.test("grad", if_grad, [(f64(3.0), f64(2.0)), (f64(-3.0), f64(2.0)), (f64(0.5), f64(2.0)), (f64(2.0), f64(2.0))]))
p.test("select", lambda x, y, c: (f64(2.0), f64(3.0)) if c else (f64(3.0), f64(2.0)),
       [(f64(1.0), f64(5.0), True), (f64(1.0), f64(5.0), False)])
p.test("piecewise", lambda x: f64(2 * x if x < 1 else 2.0), [f64(0.5), f64(1.0), f64(3.0), f64(-2.0)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_f32", """
f32 straight-line code in reverse mode.
""", """
entry grad (x: f32) (y: f32) = vjp (\\(a, b) -> f32.exp (a * b) / (1 + b * b) + f32.sqrt (a * a + 1) * f32.sin b) (x, y) 1

entry to_f64 (x: f32) = vjp (\\t -> f64.f32 t * f64.f32 t) x 2
""")
P.append(p.test("grad", lambda x, y: vjp(lambda a, b: jnp.exp(a * b) / (1 + b * b) + jnp.sqrt(a * a + 1) * jnp.sin(b),
                                          (x, y), np.float32(1.0)),
                [(f32(0.5), f32(1.0)), (f32(-1.0), f32(2.0)), (f32(0.0), f32(0.0))]))
# cotangent 2 * 2t computed in f64, converted back to f32
p.test("to_f64", lambda x: f32(4 * float(x)), [f32(1.5), f32(-0.25)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_special", """
erf, erfc, lgamma, gamma, fma, mad, lerp and recip in reverse mode.
""", """
entry grad (x: f64) = vjp (\\t -> f64.erf t + 2 * f64.erfc (t / 2) + f64.lgamma (t + 2) + f64.gamma (t + 1.5)) x 1

entry three (a: f64) (b: f64) (c: f64) = vjp (\\(x, y, z) -> f64.fma x y z * f64.lerp x y z + f64.recip (z + 3) + f64.mad z x y) (a, b, c) 1
""")
import jax.scipy.special as jss

P.append(p.test("grad", lambda x: vjp(lambda t: jss.erf(t) + 2 * jss.erfc(t / 2) + jss.gammaln(t + 2) + jnp.exp(jss.gammaln(t + 1.5)), x, 1.0),
                [f64(0.0), f64(0.7), f64(1.5)]))
p.test("three", lambda a, b, c: vjp(lambda x, y, z: (x * y + z) * (x + (y - x) * z) + 1 / (z + 3) + (z * x + y), (a, b, c), 1.0),
       [(f64(1.0), f64(2.0), f64(0.5)), (f64(-1.5), f64(0.5), f64(2.0))])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_fanout", """
A value used many times accumulates cotangent from every use; unused inputs get zero; a
constant result gives zero cotangents; a long chain of lets.
""", """
entry fanout (x: f64) = vjp (\\t -> let u = t * 2 let v = u * t let w = u + v + t in w * u - v) x 1

entry unused (x: f64) (y: f64) = vjp (\\(a, _b) -> a + 2) (x, y) 1

entry constant (x: f64) = vjp (\\_t -> 42.0) x 1

entry chain (x: f64) =
  vjp (\\t ->
    let a1 = t * 1.1
    let a2 = a1 + t * 0.5
    let a3 = a2 * a1
    let a4 = f64.sin a3 + a2
    let a5 = a4 * a4 - a1
    let a6 = a5 / (1 + a2 * a2)
    let a7 = a6 + a3 * 0.01
    let a8 = f64.exp (a7 * 0.1)
    in a8 * t) x 1
""")


def fan(t):
    u = t * 2
    v = u * t
    w = u + v + t
    return w * u - v


def chain(t):
    a1 = t * 1.1
    a2 = a1 + t * 0.5
    a3 = a2 * a1
    a4 = jnp.sin(a3) + a2
    a5 = a4 * a4 - a1
    a6 = a5 / (1 + a2 * a2)
    a7 = a6 + a3 * 0.01
    a8 = jnp.exp(a7 * 0.1)
    return a8 * t


P.append(p.test("fanout", lambda x: vjp(fan, x, 1.0), [f64(1.0), f64(-2.0), f64(0.0)]))
p.test("unused", lambda x, y: (f64(1.0), f64(0.0)), [(f64(3.0), f64(4.0))])
p.test("constant", lambda x: f64(0.0), [f64(3.0)])
p.test("chain", lambda x: vjp(chain, x, 1.0), [f64(0.5), f64(-1.2), f64(2.0)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_bool_leaves", """
Boolean leaves: cotangent `false` unless passed through `!`; an integer size's cotangent
through iota is the sum of the result's cotangents (10.3).
""", """
entry bool_arg (x: f64) (b: bool) = vjp (\\(t, c) -> if c then t * 3 else t * t) (x, b) 1

entry negate (b: bool) = vjp (\\c -> !c) b true

entry compare (x: f64) = vjp (\\t -> t < 2) x true

entry iota_count (n: i64) = vjp (\\k -> i64.sum (iota k)) n 1

entry iota_scaled (n: i64) = vjp (\\k -> map (* 2) (iota k)) n (replicate n 3)
""")
P.append(p.test("bool_arg", lambda x, b: (f64(3.0 if b else 2 * x), False), [(f64(2.0), True), (f64(2.0), False)]))
p.test("negate", lambda b: True, [True, False])
p.test("compare", lambda x: f64(0.0), [f64(1.0), f64(3.0)])
p.test("iota_count", lambda n: i64(n), [i64(5), i64(0), i64(1)])
# the cotangent of each element of iota k is 2 * 3
p.test("iota_scaled", lambda n: i64(6 * n), [i64(4), i64(1)])

# ---------------------------------------------------------------------------------------------
p = Program("scalar_float_mod", """
Float remainder: partials 1 and -trunc(x/y); also with negative operands.
""", """
entry grad (x: f64) (y: f64) = vjp (\\(a, b) -> a % b) (x, y) 1

entry f32mod (x: f32) (y: f32) = vjp (\\(a, b) -> a % b * 2) (x, y) 1
""")
P.append(p.test("grad", lambda x, y: (f64(1.0), f64(-math.trunc(x / y))),
                [(f64(7.5), f64(2.0)), (f64(-7.5), f64(2.0)), (f64(1.0), f64(3.0)), (f64(10.0), f64(-3.0))]))
p.test("f32mod", lambda x, y: (f32(2.0), f32(-2 * math.trunc(float(x) / float(y)))), [(f32(5.5), f32(2.0)), (f32(-9.0), f32(4.0))])

for p in P:
    print(p.write())
