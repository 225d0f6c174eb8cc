"""Expected values of the reverse-computing programs (revcomp_*.fut).

Standalone (plain Python floats, no JAX): a small tape-based reverse-mode AD below records
every operation of the primal loop, so the gradients it gives are the checkpoint-everything
reference that reverse computing must reproduce. `python3 gen_revcomp.py` writes
../revcomp_{add,mul,rotation,symplectic}.fut (each entry's gradus source is next to its Python
twin below).
"""

import math
import os

TAPE = []


class D:
    __slots__ = ("v", "parents", "g")

    def __init__(self, v, parents=()):
        self.v = float(v)
        self.parents = parents
        self.g = 0.0
        TAPE.append(self)

    def __add__(self, o):
        o = lift(o)
        return D(self.v + o.v, ((self, 1.0), (o, 1.0)))

    __radd__ = __add__

    def __sub__(self, o):
        o = lift(o)
        return D(self.v - o.v, ((self, 1.0), (o, -1.0)))

    def __rsub__(self, o):
        return lift(o) - self

    def __mul__(self, o):
        o = lift(o)
        return D(self.v * o.v, ((self, o.v), (o, self.v)))

    __rmul__ = __mul__

    def __truediv__(self, o):
        o = lift(o)
        return D(self.v / o.v, ((self, 1.0 / o.v), (o, -self.v / (o.v * o.v))))

    def __neg__(self):
        return D(-self.v, ((self, -1.0),))


def lift(x):
    return x if isinstance(x, D) else D(x)


def sin(x):
    return D(math.sin(x.v), ((x, math.cos(x.v)),)) if isinstance(x, D) else math.sin(x)


def cos(x):
    return D(math.cos(x.v), ((x, -math.sin(x.v)),)) if isinstance(x, D) else math.cos(x)


def grad(f, *args):
    TAPE.clear()
    xs = [D(a) for a in args]
    y = f(*xs)
    y.g = 1.0
    for node in reversed(TAPE):
        for p, d in node.parents:
            p.g += d * node.g
    return [x.g for x in xs]


def fmt(x):
    if isinstance(x, int):
        return f"{x}i64"
    r = repr(float(x))
    return r if ("." in r or "e" in r or "n" in r) else r + ".0"


def fmt_arr(xs):
    return "[" + ", ".join(fmt(float(x)) for x in xs) + "]"


BLOCKS = {}


def block(entry, cases):
    lines = ["-- ==", f"-- entry: {entry}"]
    for inp, out in cases:
        lines.append("-- input { " + " ".join(inp) + " }")
        lines.append("-- output { " + " ".join(out) + " }")
    BLOCKS[entry] = "\n".join(lines) + "\n"


def write(name, header, entries):
    """Writes revcomp_NAME.fut: the header comment, then each entry's block and source."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", f"revcomp_{name}.fut")
    parts = [header.strip() + "\n"]
    for entry, src in entries:
        parts.append(BLOCKS[entry] + src.strip() + "\n")
    with open(path, "w") as f:
        f.write("\n".join(parts))


# ---------------------------------------------------------------- revcomp_add

def add_f(t, k, n):
    y = t
    for i in range(n):
        y = y + sin(k * float(i)) * 0.01
    return y * y + k * y


def sub_f(t, k, n):
    y = t
    for i in range(n):
        y = (k * k) / float(i + 1) * 0.1 - y - k * 0.01
    return y * y * k


def mixed_f(t, u, n):
    # y is inverted (its term reads w before the iteration); w = w*w*0.5 + 0.1 is not.
    y, w = t, u
    for i in range(n):
        y, w = y + sin(w) * 0.1, w * w * 0.5 + 0.1
    return y * w + y


def counter_f(t, n):
    y, k = t, 7
    for i in range(n):
        y, k = y + sin(float(k % 5)) * 0.01 + 0.001 * float(i), k + 3
    return y * y * float(k)


def cycle_f(t, u, n):
    # Neither update can be solved without the other's earlier value: y is checkpointed, then
    # z is solved from it.
    y, z = t, u
    for i in range(n):
        y, z = y + 0.01 * z * z, z - 0.01 * sin(y)
    return y * z


def gen_add():
    block("add", [([fmt(x), fmt(k), fmt(n)], [fmt(g) for g in grad(lambda a, b: add_f(a, b, n), x, k)])
                  for x, k, n in [(1.0, 0.3, 1000), (-2.0, 1.5, 1000), (0.5, 0.7, 0), (0.5, 0.7, 1)]])
    block("sub", [([fmt(x), fmt(k), fmt(n)], [fmt(g) for g in grad(lambda a, b: sub_f(a, b, n), x, k)])
                  for x, k, n in [(1.0, 0.3, 1001), (-0.25, 1.2, 500), (2.0, -0.5, 2)]])
    block("mixed", [([fmt(x), fmt(u), fmt(n)], [fmt(g) for g in grad(lambda a, b: mixed_f(a, b, n), x, u)])
                    for x, u, n in [(1.0, 0.3, 300), (-1.5, 0.6, 300), (0.2, 0.1, 1)]])
    block("counter", [([fmt(x), fmt(n)], [fmt(g) for g in grad(lambda a: counter_f(a, n), x)])
                      for x, n in [(1.0, 400), (-0.3, 37), (2.0, 0)]])
    block("cycle", [([fmt(x), fmt(u), fmt(n)], [fmt(g) for g in grad(lambda a, b: cycle_f(a, b, n), x, u)])
                    for x, u, n in [(1.0, 0.5, 200), (-0.4, 1.1, 50)]])
    write("add", '''
-- Reverse computing of loops whose carried scalars are updated by `x + e`, `x - e` and `e - x`
-- (e independent of x): the return sweep recovers the previous iterate by the inverse update
-- instead of reading checkpoints. `mixed` inverts y (its term reads w before the iteration) and
-- checkpoints w (w*w is not invertible); `counter` inverts an integer exactly; in `cycle` each
-- update needs the other's earlier value, so y is checkpointed and z inverted. Expected values:
-- gen/gen_revcomp.py (a tape-based reverse mode in Python that stores every iterate).
''', [
        ("add", '''entry add (x: f64) (c: f64) (n: i64) =
  vjp (\\(t, k) -> let y = loop y = t for i < n do y + f64.sin (k * f64.i64 i) * 0.01 in y * y + k * y) (x, c) 1'''),
        ("sub", '''entry sub (x: f64) (c: f64) (n: i64) =
  vjp (\\(t, k) -> let y = loop y = t for i < n do k * k / f64.i64 (i + 1) * 0.1 - y - k * 0.01 in y * y * k) (x, c) 1'''),
        ("mixed", '''entry mixed (x: f64) (u: f64) (n: i64) =
  vjp (\\(t, w0) -> let (y, w) = loop (y, w) = (t, w0) for _i < n do (y + f64.sin w * 0.1, w * w * 0.5 + 0.1) in y * w + y) (x, u) 1'''),
        ("counter", '''entry counter (x: f64) (n: i64) =
  vjp (\\t -> let (y, k) = loop (y, k) = (t, 7i64) for i < n do (y + f64.sin (f64.i64 (k % 5)) * 0.01 + 0.001 * f64.i64 i, k + 3)
              in y * y * f64.i64 k) x 1'''),
        ("cycle", '''entry cycle (x: f64) (u: f64) (n: i64) =
  vjp (\\(t, z0) -> let (y, z) = loop (y, z) = (t, z0) for _i < n do (y + 0.01 * z * z, z - 0.01 * f64.sin y) in y * z) (x, u) 1'''),
    ])


# ---------------------------------------------------------------- revcomp_mul

def prod_f(t, vs):
    y = t
    for v in vs:
        y = y * v
    return y * y + y


def grad_prod(x, vs):
    g = grad(lambda *a: prod_f(a[0], list(a[1:])), x, *vs)
    return [fmt(g[0]), fmt_arr(g[1:]) if vs else "empty([0]f64)"]


def scaled_f(t, k, n):
    # y is inverted by division, s by subtraction once y is known.
    y, s = t, 0.0
    for i in range(n):
        y2 = y * (1.0 + k * cos(float(i)))
        y, s = y2, s + sin(y) * 0.01
    return y + s * s


def divided_f(t, k, n):
    y = t
    for i in range(n):
        y = (y + k) / (1.0 + 0.001 * float(i % 7)) - sin(k) * 0.01
    return y * y


def zero_at_f(t, k, n, z):
    y, s = t, 0.0
    for i in range(n):
        f = 0.0 if i == z else 1.0 + k * 0.001
        y, s = y * f + k * 0.01, s + y * y * 0.001
    return y + s


def gen_mul():
    cases = [(2.0, [1.5, 2.0, 0.5, -1.0]), (2.0, [1.5, 0.0, 0.5, -1.0]), (2.0, [0.0, 2.0, 0.0, 3.0]),
             (0.0, [1.0, 2.0, 3.0]), (1.25, [])]
    block("prod", [([fmt(x), fmt_arr(vs) if vs else "empty([0]f64)"], grad_prod(x, vs)) for x, vs in cases])
    block("scaled", [([fmt(x), fmt(k), fmt(n)], [fmt(g) for g in grad(lambda a, b: scaled_f(a, b, n), x, k)])
                     for x, k, n in [(1.5, 0.001, 1000), (-1.0, 0.0005, 1000), (0.5, 0.01, 3)]])
    block("divided", [([fmt(x), fmt(k), fmt(n)], [fmt(g) for g in grad(lambda a, b: divided_f(a, b, n), x, k)])
                      for x, k, n in [(1.0, 0.2, 500), (-3.0, 0.05, 100)]])
    block("zero_at", [([fmt(x), fmt(k), fmt(n), fmt(z)], [fmt(g) for g in grad(lambda a, b: zero_at_f(a, b, n, z), x, k)])
                      for x, k, n, z in [(1.0, 0.5, 200, 100), (1.0, 0.5, 200, 199), (1.0, 0.5, 200, 0), (1.0, 0.5, 200, -1)]])
    write("mul", '''
-- Reverse computing of `x * e` and `x / e`: the return sweep divides (multiplies) by e. A zero
-- factor makes the update non-invertible; the forward sweep notices (a flag over all
-- iterations) and the return sweep then re-runs the loop with checkpoints instead, so the
-- gradient stays exact: `prod` and `zero_at` have zero factors at the start, middle and end
-- and not at all (z = -1). In `scaled`, s is recovered after y (its term reads y before the
-- iteration). Expected values: gen/gen_revcomp.py.
''', [
        ("prod", '''entry prod [n] (x: f64) (es: [n]f64) = vjp (\\(t, v) -> let y = loop y = t for i < n do y * v[i] in y * y + y) (x, es) 1'''),
        ("scaled", '''entry scaled (x: f64) (c: f64) (n: i64) =
  vjp (\\(t, k) -> let (y, s) = loop (y, s) = (t, 0.0) for i < n do (y * (1 + k * f64.cos (f64.i64 i)), s + f64.sin y * 0.01)
                  in y + s * s) (x, c) 1'''),
        ("divided", '''entry divided (x: f64) (c: f64) (n: i64) =
  vjp (\\(t, k) -> let y = loop y = t for i < n do (y + k) / (1 + 0.001 * f64.i64 (i % 7)) - f64.sin k * 0.01 in y * y) (x, c) 1'''),
        ("zero_at", '''entry zero_at (x: f64) (c: f64) (n: i64) (z: i64) =
  vjp (\\(t, k) -> let (y, s) = loop (y, s) = (t, 0.0) for i < n do
                     let f = if i == z then 0.0 else 1 + k * 0.001
                     in (y * f + k * 0.01, s + y * y * 0.001)
                  in y + s) (x, c) 1'''),
    ])


# ---------------------------------------------------------------- revcomp_rotation

def rot_f(a0, b0, t, n):
    a, b = a0, b0
    for i in range(n):
        c = cos(t + 0.001 * float(i))
        s = sin(t + 0.001 * float(i))
        a, b = c * a - s * b, s * a + c * b
    return a * a * b + 3.0 * b


def euler_f(a0, b0, h, n):
    # Explicit Euler of the oscillator: the 2x2 matrix [[1, h], [-h, 1]] (a cycle, not triangular).
    a, b = a0, b0
    for i in range(n):
        a, b = a + h * b, b - h * a
    return a * b + a


def singular_f(a0, b0, n):
    a, b = a0, b0
    for i in range(n):
        a, b = 0.5 * a + 0.5 * b + 0.1, 0.5 * a + 0.5 * b - 0.1
    return a * a - b


def gen_rot():
    block("rot", [([fmt(x), fmt(y), fmt(t), fmt(n)], [fmt(g) for g in grad(lambda a, b, c: rot_f(a, b, c, n), x, y, t)])
                  for x, y, t, n in [(1.0, 0.0, 0.001, 1000), (0.5, -2.0, 0.01, 1000), (0.3, 0.4, 1.0, 1)]])
    block("euler", [([fmt(x), fmt(y), fmt(h), fmt(n)], [fmt(g) for g in grad(lambda a, b, c: euler_f(a, b, c, n), x, y, h)])
                    for x, y, h, n in [(1.0, 0.0, 0.001, 1000), (-0.5, 0.8, 0.01, 300)]])
    block("singular", [([fmt(x), fmt(y), fmt(n)], [fmt(g) for g in grad(lambda a, b: singular_f(a, b, n), x, y)])
                       for x, y, n in [(1.0, 2.0, 10), (-1.0, 0.5, 1)]])
    BLOCKS["rot_ck"] = BLOCKS["rot"].replace("entry: rot", "entry: rot_ck")
    write("rotation", '''
-- Reverse computing of 2x2 linear updates, inverted by Cramer's rule: a rotation by an angle
-- that changes per iteration and is differentiated (`rot`; `rot_ck` is the same loop with
-- `#[checkpoint]`, which turns reverse computing off), explicit Euler for the harmonic
-- oscillator (matrix [[1, h], [-h, 1]], a cycle no triangular order solves), and a singular
-- matrix (determinant 0 at run time: the return sweep falls back to checkpoints).
-- Expected values: gen/gen_revcomp.py.
''', [
        ("rot", '''entry rot (x: f64) (y: f64) (th: f64) (n: i64) =
  vjp (\\(a0, b0, t) ->
         let (a, b) = loop (a, b) = (a0, b0) for i < n do
           let c = f64.cos (t + 0.001 * f64.i64 i)
           let s = f64.sin (t + 0.001 * f64.i64 i)
           in (c * a - s * b, s * a + c * b)
         in a * a * b + 3 * b) (x, y, th) 1'''),
        ("rot_ck", '''entry rot_ck (x: f64) (y: f64) (th: f64) (n: i64) =
  vjp (\\(a0, b0, t) ->
         let (a, b) = #[checkpoint] loop (a, b) = (a0, b0) for i < n do
           let c = f64.cos (t + 0.001 * f64.i64 i)
           let s = f64.sin (t + 0.001 * f64.i64 i)
           in (c * a - s * b, s * a + c * b)
         in a * a * b + 3 * b) (x, y, th) 1'''),
        ("euler", '''entry euler (x: f64) (y: f64) (h: f64) (n: i64) =
  vjp (\\(a0, b0, h) -> let (a, b) = loop (a, b) = (a0, b0) for _i < n do (a + h * b, b - h * a) in a * b + a) (x, y, h) 1'''),
        ("singular", '''entry singular (x: f64) (y: f64) (n: i64) =
  vjp (\\(a0, b0) -> let (a, b) = loop (a, b) = (a0, b0) for _i < n do (0.5 * a + 0.5 * b + 0.1, 0.5 * a + 0.5 * b - 0.1)
                    in a * a - b) (x, y) 1'''),
    ])


# ---------------------------------------------------------------- revcomp_symplectic

def pendulum_f(x0, v0, h, n):
    x, v = x0, v0
    for i in range(n):
        x2 = x + h * v
        x, v = x2, v - h * sin(x2)
    return 0.5 * v * v - cos(x)


def chain_f(x0, v0, h, n):
    # Three carried values, inverted in the order t, v, x.
    x, v, t = x0, v0, 0.0
    for i in range(n):
        t2 = t + h
        x2 = x + h * v * cos(t2)
        v2 = v - h * x2 * cos(t)
        x, v, t = x2, v2, t2
    return x * v + t * x


def gen_symp():
    block("pendulum", [([fmt(x), fmt(v), fmt(h), fmt(n)], [fmt(g) for g in grad(lambda a, b, c: pendulum_f(a, b, c, n), x, v, h)])
                       for x, v, h, n in [(1.0, 0.0, 0.002, 1000), (-0.5, 1.5, 0.001, 1000), (0.3, 0.2, 0.1, 0)]])
    block("chain", [([fmt(x), fmt(v), fmt(h), fmt(n)], [fmt(g) for g in grad(lambda a, b, c: chain_f(a, b, c, n), x, v, h)])
                    for x, v, h, n in [(1.0, 0.5, 0.002, 300), (-0.2, 1.0, 0.001, 400)]])
    write("symplectic", '''
-- Reverse computing of triangular chains of invertible updates, inverted in reverse order:
-- symplectic Euler for a pendulum (x' = x + h v, v' = v - h sin x': v is recovered first from
-- x', then x from v) over 1000 steps and zero steps, and a chain of three carried values
-- (t, then v, then x). Expected values: gen/gen_revcomp.py.
''', [
        ("pendulum", '''entry pendulum (x: f64) (v: f64) (h: f64) (n: i64) =
  vjp (\\(x0, v0, h) ->
         let (x, v) = loop (x, v) = (x0, v0) for _i < n do
           let x' = x + h * v in (x', v - h * f64.sin x')
         in 0.5 * v * v - f64.cos x) (x, v, h) 1'''),
        ("chain", '''entry chain (x: f64) (v: f64) (h: f64) (n: i64) =
  vjp (\\(x0, v0, h) ->
         let (x, v, t) = loop (x, v, t) = (x0, v0, 0.0) for _i < n do
           let t' = t + h
           let x' = x + h * v * f64.cos t'
           let v' = v - h * x' * f64.cos t
           in (x', v', t')
         in x * v + t * x) (x, v, h) 1'''),
    ])


if __name__ == "__main__":
    gen_add()
    gen_mul()
    gen_rot()
    gen_symp()
