"""Prelude functions and language forms under vjp: folds, iterate, filter/partition, exscan,
copy/opaque, local opens, sections and pipes, higher-order helpers, small integer types."""

from common import *  # noqa: F401,F403

P = []

# ---------------------------------------------------------------------------------------------
p = Program("misc_folds_iterate", """
foldl, foldr, iterate and iterate_while (prelude loops) in reverse mode.
""", """
entry fl (xs: [4]f64) = vjp (\\v -> foldl (\\acc x -> acc * 0.5 + x * x) 1 v) xs 1

entry fr (xs: [4]f64) = vjp (\\v -> foldr (\\x acc -> acc * x + 1) 0 v) xs 1

entry it (x: f64) = vjp (\\t -> iterate 5 (\\y -> y * y * 0.5 + 0.25) t) x 1

entry itw (x: f64) = vjp (\\t -> iterate_while (\\y -> y < 10) (\\y -> y * 1.5 + 1) t) x 1
""")


def fl(v):
    acc = 1.0
    for i in range(v.shape[0]):
        acc = acc * 0.5 + v[i] * v[i]
    return acc


def fr(v):
    acc = 0.0
    for i in reversed(range(v.shape[0])):
        acc = acc * v[i] + 1
    return acc


def it(t):
    y = t
    for _ in range(5):
        y = y * y * 0.5 + 0.25
    return y


def itw(t):
    y, k = float(t), 0
    while y < 10:
        y = y * 1.5 + 1
        k += 1
    return f64(1.5 ** k)


P.append(p.test("fl", lambda x: vjp(fl, x, 1.0), [f64([1, 2, 3, 4]), f64([-1, 0.5, 0, 2])]))
p.test("fr", lambda x: vjp(fr, x, 1.0), [f64([1, 2, 3, 4]), f64([0.5, -1, 0, 2])])
p.test("it", lambda x: vjp(it, x, 1.0), [f64(0.5), f64(1.0), f64(-0.3)])
p.test("itw", itw, [f64(1.0), f64(12.0), f64(9.5)])

# ---------------------------------------------------------------------------------------------
p = Program("misc_filter_partition", """
filter and partition: the selection is not differentiated; cotangents flow to the selected
elements and the others get 0.
""", """
entry flt (xs: [6]f64) = vjp (\\v -> f64.sum (map (\\t -> t * t) (filter (> 0) v))) xs 1

entry part (xs: [5]f64) = vjp (\\v -> let (a, b) = partition (\\t -> t < 1) v in f64.sum a * 2 + f64.product b) xs 1
""")


def part(x):
    x = np.asarray(x, float)
    g = np.zeros(len(x))
    small = x < 1
    g[small] = 2
    big = np.flatnonzero(~small)
    for i in big:
        g[i] = np.prod(np.delete(x[big], list(big).index(i)))
    return f64(g)


P.append(p.test("flt", lambda x: f64(np.where(x > 0, 2 * x, 0)), [f64([1, -2, 3, 0, -1, 0.5]), f64([-1, -1, -1, -1, -1, -1])]))
p.test("part", part, [f64([0.5, 2, 3, -1, 4]), f64([0, 0, 0, 0, 0]), f64([1, 2, 0.5, 1, 3])])

# ---------------------------------------------------------------------------------------------
p = Program("misc_exscan", """
exscan (exclusive prefix sums and products) in reverse mode.
""", """
entry add (xs: [4]f64) (yb: [4]f64) = vjp (exscan (+) 0) xs yb

entry mul (xs: [4]f64) = vjp (\\v -> f64.sum (exscan (*) 1 v)) xs 1
""")


def ex_add(x, yb):
    # out[k] = sum_{j<k} x[j]
    return f64([yb[j + 1:].sum() for j in range(len(x))])


def ex_mul(x):
    # out[k] = prod_{j<k} x[j]
    x = np.asarray(x, float)
    n = len(x)
    g = np.zeros(n)
    for k in range(n):
        for i in range(k):
            g[i] += np.prod(np.delete(x[:k], i))
    return f64(g)


P.append(p.test("add", ex_add, [(f64([1, 2, 3, 4]), f64([1, 1, 1, 1])), (f64([1, 2, 3, 4]), f64([1, 2, 3, 4]))]))
p.test("mul", ex_mul, [f64([1, 2, 3, 4]), f64([2, 0, 3, 4])])

# ---------------------------------------------------------------------------------------------
p = Program("misc_language_forms", """
Language forms inside differentiated code: local opens, sections, pipes, composition, copy,
opaque, let-patterns and shadowing.
""", """
entry local_open (x: f64) = vjp (\\t -> f64.(sqrt (t * t + 1) + exp (sin t))) x 1

entry sections (xs: [3]f64) = vjp (\\v -> v |> map (* 2) |> map (+ 1) |> map (2 **) |> f64.sum) xs 1

entry compose (x: f64) = vjp (f64.sin >-> (* 3) >-> f64.exp) x 1

entry copies (xs: [3]f64) = vjp (\\v -> let a = copy v let b = opaque a let c = manifest (map (* 2) b) in f64.sum (map2 (*) a c)) xs 1

entry shadow (x: f64) = vjp (\\t -> let t = t * 2 let t = t + t * t let (a, t) = (t, t * 3) in a * t) x 1
""")
P.append(p.test("local_open", lambda x: vjp(lambda t: jnp.sqrt(t * t + 1) + jnp.exp(jnp.sin(t)), x, 1.0), [f64(0.5), f64(-2.0)]))
p.test("sections", lambda x: vjp(lambda v: jnp.sum(2 ** (v * 2 + 1)), x, 1.0), [f64([0, 1, -1])])
p.test("compose", lambda x: vjp(lambda t: jnp.exp(jnp.sin(t) * 3), x, 1.0), [f64(0.3), f64(2.0)])
p.test("copies", lambda x: f64(4 * x), [f64([1, 2, 3])])


def shadow(t):
    t = t * 2
    t = t + t * t
    a, t = t, t * 3
    return a * t


p.test("shadow", lambda x: vjp(shadow, x, 1.0), [f64(0.5), f64(-1.0)])

# ---------------------------------------------------------------------------------------------
p = Program("misc_higher_order", """
Higher-order helpers inside the differentiated function: a function parameter applied to
array elements, a function returned by a function, and vjp of a partially applied helper.
""", """
def apply_twice (f: f64 -> f64) (x: f64) : f64 = f (f x)

def scaler (k: f64) : f64 -> f64 = \\x -> k * x * x

def sum_by [n] (f: f64 -> f64) (xs: [n]f64) : f64 = f64.sum (map f xs)

entry twice (x: f64) = vjp (apply_twice (\\t -> f64.sin t + t)) x 1

entry returned (x: f64) (k: f64) = vjp (\\(t, c) -> apply_twice (scaler c) t) (x, k) 1

entry summed (xs: [3]f64) (k: f64) = vjp (\\(v, c) -> sum_by (\\t -> f64.exp (c * t)) v) (xs, k) 1
""")
P.append(p.test("twice", lambda x: vjp(lambda t: (lambda u: jnp.sin(u) + u)(jnp.sin(t) + t), x, 1.0), [f64(0.5), f64(3.0)]))
p.test("returned", lambda x, k: vjp(lambda t, c: c * (c * t * t) ** 2, (x, k), 1.0), [(f64(1.5), f64(0.5)), (f64(-1.0), f64(2.0))])
p.test("summed", lambda x, k: vjp(lambda v, c: jnp.sum(jnp.exp(c * v)), (x, k), 1.0), [(f64([0, 1, -1]), f64(0.5))])

# ---------------------------------------------------------------------------------------------
p = Program("misc_small_ints", """
Reverse mode on i8, i16, u8 and u32 leaves: exact cotangents with wrap-around.
""", """
entry i8sq (x: i8) = vjp (\\t -> t * t * t) x 1

entry i16poly (x: i16) = vjp (\\t -> 5 * t * t - t) x 3

entry u8prod (x: u8) (y: u8) = vjp (\\(a, b) -> a * b * b) (x, y) 1

entry u32sum (xs: [3]u32) = vjp (\\v -> u32.sum (map (\\t -> t * t) v)) xs 1
""")


def wrap(v, bits, signed=True):
    v = int(v) % (1 << bits)
    if signed and v >= 1 << (bits - 1):
        v -= 1 << bits
    return v


P.append(p.test("i8sq", lambda x: np.int8(wrap(3 * int(x) ** 2, 8)), [np.int8(3), np.int8(-7), np.int8(10)]))
p.test("i16poly", lambda x: np.int16(wrap(3 * (10 * int(x) - 1), 16)), [np.int16(4), np.int16(-300), np.int16(2000)])
p.test("u8prod", lambda x, y: (np.uint8(wrap(int(y) ** 2, 8, False)), np.uint8(wrap(2 * int(x) * int(y), 8, False))),
       [(np.uint8(3), np.uint8(5)), (np.uint8(200), np.uint8(100))])
p.test("u32sum", lambda x: np.asarray([wrap(2 * int(t), 32, False) for t in x], dtype=np.uint32), [np.asarray([1, 2, 3000000000], dtype=np.uint32)])

# ---------------------------------------------------------------------------------------------
p = Program("misc_sizes", """
Size-dependent code under vjp: length, size parameters used as numbers, and ranges.
""", """
entry mean [n] (xs: [n]f64) = vjp (\\v -> f64.sum v / f64.i64 (length v)) xs 1

entry variance [n] (xs: [n]f64) = vjp (\\v -> let m = f64.sum v / f64.i64 n in f64.sum (map (\\t -> (t - m) * (t - m)) v) / f64.i64 n) xs 1

entry ranged (xs: [6]f64) = vjp (\\v -> f64.sum (map (\\i -> v[i] * f64.i64 i) (1..3..<6))) xs 1
""")
P.append(p.test("mean", lambda x: f64(np.full(len(x), 1 / len(x))), [f64([1, 2, 3, 4]), f64([5.0])]))
p.test("variance", lambda x: f64(2 * (x - x.mean()) / len(x)), [f64([1, 2, 3, 4]), f64([1, 1, 1])])
p.test("ranged", lambda x: f64([0, 1, 0, 3, 0, 5]), [f64([1, 2, 3, 4, 5, 6])])

for p in P:
    print(p.write())
