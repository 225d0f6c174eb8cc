"""Structural array operations in reverse mode: indexing, slices, updates, concat, reshape,
transpose, rotate, reverse, replicate, iota, literals, zip/unzip."""

from common import *  # noqa: F401,F403

P = []

# ---------------------------------------------------------------------------------------------
p = Program("array_index", """
Indexing: the cotangent of a read goes to that element; repeated reads accumulate; rows of a
matrix; an index computed from data (not differentiated).
""", """
entry grad [n] (xs: [n]f64) = vjp (\\v -> v[1] * v[3] + v[0] * v[0] + v[1]) xs 1

entry row (m: [3][2]f64) (yb: [2]f64) = vjp (\\a -> map2 (*) a[1] a[2]) m yb

entry dyn (xs: [4]f64) (i: i64) = vjp (\\v -> v[i] * v[(i + 1) % 4]) xs 1

entry elem2d (m: [2][3]f64) = vjp (\\a -> a[0, 1] * a[1, 2] - a[1, 0]) m 1
""")
P.append(p.test("grad", lambda x: vjp(lambda v: v[1] * v[3] + v[0] * v[0] + v[1], x, 1.0),
                [f64([1, 2, 3, 4]), f64([0.5, -1, 0, 2, 7])]))
p.test("row", lambda m, yb: vjp(lambda a: a[1] * a[2], m, yb), [(rand(1, 3, 2), f64([1.0, -2.0])), (rand(2, 3, 2), f64([0.0, 1.0]))])
p.test("dyn", lambda x, i: vjp(lambda v: v[i] * v[(i + 1) % 4], x, 1.0), [(f64([1, 2, 3, 4]), i64(0)), (f64([1, 2, 3, 4]), i64(3))])
p.test("elem2d", lambda m: vjp(lambda a: a[0, 1] * a[1, 2] - a[1, 0], m, 1.0), [rand(3, 2, 3)])

# ---------------------------------------------------------------------------------------------
p = Program("array_slice", """
Slices: unit stride, strides, negative strides, columns and sub-matrices; overlapping slices
accumulate.
""", """
entry basic (xs: [6]f64) (yb: [3]f64) = vjp (\\v -> map2 (*) v[1:4] v[3:6]) xs yb

entry strided (xs: [6]f64) = vjp (\\v -> f64.sum v[::2] * 2 + f64.sum (map (\\t -> t * t) v[5:0:-2])) xs 1

entry reversed (xs: [5]f64) (yb: [5]f64) = vjp (\\v -> map2 (*) v v[::-1]) xs yb

entry columns (m: [3][4]f64) = vjp (\\a -> f64.sum a[:, 2] + f64.sum (flatten a[1:, :2]) * 3) m 1
""")
P.append(p.test("basic", lambda x, yb: vjp(lambda v: v[1:4] * v[3:6], x, yb),
                [(f64([1, 2, 3, 4, 5, 6]), f64([1, 1, 1])), (rand(4, 6), f64([0.5, -1, 2]))]))
p.test("strided", lambda x: vjp(lambda v: jnp.sum(v[::2]) * 2 + jnp.sum(v[5:0:-2] ** 2), x, 1.0), [f64([1, 2, 3, 4, 5, 6]), rand(5, 6)])
p.test("reversed", lambda x, yb: vjp(lambda v: v * v[::-1], x, yb), [(f64([1, 2, 3, 4, 5]), f64([1, 1, 1, 1, 1])), (rand(6, 5), rand(7, 5))])
p.test("columns", lambda m: vjp(lambda a: jnp.sum(a[:, 2]) + jnp.sum(a[1:, :2]) * 3, m, 1.0), [rand(8, 3, 4)])

# ---------------------------------------------------------------------------------------------
p = Program("array_update", """
In-place updates `with`: the new value gets ybar[i]; the array gets ybar with position i zeroed;
slice updates and 2-D updates; an update of an element by a function of itself.
""", """
entry elem (xs: [4]f64) (v: f64) (yb: [4]f64) = vjp (\\(a, t) -> copy a with [2] = t * a[0]) (xs, v) yb

entry self (xs: [3]f64) = vjp (\\a -> let b = copy a with [1] = a[1] * a[1] in f64.sum (map (\\t -> t * t) b)) xs 1

entry slice (xs: [5]f64) (ys: [2]f64) (yb: [5]f64) = vjp (\\(a, b) -> copy a with [1:3] = map (* 2) b) (xs, ys) yb

entry row2d (m: [2][3]f64) (r: [3]f64) = vjp (\\(a: [2][3]f64, b: [3]f64) -> let c0 = copy a with [0] = b let c = c0 with [1, 2] = a[1, 2] * 5 in f64.sum (flatten c) + c[0, 0] * c[1, 2]) (m, r) 1
""")


def upd_elem(xs, v, yb):
    return vjp(lambda a, t: a.at[2].set(t * a[0]), (xs, v), yb)


P.append(p.test("elem", upd_elem, [(f64([1, 2, 3, 4]), f64(5.0), f64([1, 1, 1, 1])), (f64([-1, 2, 3, 4]), f64(0.5), f64([0.5, 2, -3, 1]))]))
p.test("self", lambda x: vjp(lambda a: jnp.sum(a.at[1].set(a[1] * a[1]) ** 2), x, 1.0), [f64([1, 2, 3]), f64([0, -1.5, 2])])
p.test("slice", lambda x, y, yb: vjp(lambda a, b: a.at[1:3].set(b * 2), (x, y), yb),
       [(f64([1, 2, 3, 4, 5]), f64([7, 8]), f64([1, 2, 3, 4, 5]))])


def row2d(a, b):
    c = a.at[0].set(b).at[1, 2].set(a[1, 2] * 5)
    return jnp.sum(c) + c[0, 0] * c[1, 2]


p.test("row2d", lambda m, r: vjp(row2d, (m, r), 1.0), [(rand(9, 2, 3), f64([1, 2, 3]))])

# ---------------------------------------------------------------------------------------------
p = Program("array_concat", """
Concatenation: cotangents split back to the parts; an array concatenated with itself sums.
""", """
entry two (xs: [3]f64) (ys: [2]f64) (yb: [5]f64) = vjp (\\(a, b) -> a ++ map (* 3) b) (xs, ys) yb

entry self (xs: [3]f64) = vjp (\\a -> let c = concat a (map (\\t -> t * t) a) in f64.sum (map2 (*) c (map f64.i64 (iota 6)))) xs 1

entry rows (m: [2][2]f64) (r: [2]f64) = vjp (\\(a, b) -> let c = a ++ [b] in f64.sum (map (\\row -> row[0] * row[1]) c)) (m, r) 1
""")
P.append(p.test("two", lambda x, y, yb: vjp(lambda a, b: jnp.concatenate([a, b * 3]), (x, y), yb),
                [(f64([1, 2, 3]), f64([4, 5]), f64([1, 2, 3, 4, 5]))]))
p.test("self", lambda x: vjp(lambda a: jnp.sum(jnp.concatenate([a, a * a]) * jnp.arange(6.0)), x, 1.0), [f64([1, 2, 3]), f64([-1, 0, 0.5])])
p.test("rows", lambda m, r: vjp(lambda a, b: jnp.sum(jnp.concatenate([a, b[None]])[:, 0] * jnp.concatenate([a, b[None]])[:, 1]), (m, r), 1.0),
       [(f64([[1, 2], [3, 4]]), f64([5, 6]))])

# ---------------------------------------------------------------------------------------------
p = Program("array_reshape", """
flatten, unflatten and their 3-D forms route cotangents back unchanged.
""", """
entry flat (m: [2][3]f64) = vjp (\\a -> let f = flatten a in f64.sum (map2 (*) f (rotate 1 f))) m 1

entry unflat (xs: [6]f64) (yb: [2]f64) = vjp (\\v -> let m = unflatten (v :> [2 * 3]f64) in map (\\r -> r[0] * r[2] + r[1]) m) xs yb

entry three (a: [2][2][2]f64) = vjp (\\t -> let f = flatten_3d t in f64.sum (map (\\x -> x * x * x) f)) a 1

entry roundtrip (xs: [4]f64) (yb: [2][2]f64) = vjp (\\v -> unflatten (v :> [2 * 2]f64) |> transpose |> map (map (* 2))) xs yb
""")
P.append(p.test("flat", lambda m: vjp(lambda a: jnp.sum(a.reshape(-1) * jnp.roll(a.reshape(-1), -1)), m, 1.0), [rand(10, 2, 3)]))
p.test("unflat", lambda x, yb: vjp(lambda v: v.reshape(2, 3)[:, 0] * v.reshape(2, 3)[:, 2] + v.reshape(2, 3)[:, 1], x, yb),
       [(f64([1, 2, 3, 4, 5, 6]), f64([1, -1]))])
p.test("three", lambda a: vjp(lambda t: jnp.sum(t ** 3), a, 1.0), [rand(11, 2, 2, 2)])
p.test("roundtrip", lambda x, yb: vjp(lambda v: v.reshape(2, 2).T * 2, x, yb), [(f64([1, 2, 3, 4]), f64([[1, 2], [3, 4]]))])

# ---------------------------------------------------------------------------------------------
p = Program("array_transpose", """
transpose in reverse mode, alone and combined with maps over rows.
""", """
entry plain (m: [2][3]f64) (yb: [3][2]f64) = vjp transpose m yb

entry weighted (m: [3][3]f64) = vjp (\\a -> f64.sum (map2 (\\r c -> f64.sum (map2 (*) r c)) a (transpose a))) m 1

entry rows (m: [2][3]f64) (yb: [3]f64) = vjp (\\a -> map (\\col -> col[0] * col[1]) (transpose a)) m yb
""")
P.append(p.test("plain", lambda m, yb: vjp(lambda a: a.T, m, yb), [(rand(12, 2, 3), rand(13, 3, 2))]))
p.test("weighted", lambda m: vjp(lambda a: jnp.sum(a * a.T), m, 1.0), [rand(14, 3, 3), f64([[1, 2, 3], [4, 5, 6], [7, 8, 9]])])
p.test("rows", lambda m, yb: vjp(lambda a: a[0] * a[1], m, yb), [(rand(15, 2, 3), f64([1, 2, 3]))])

# ---------------------------------------------------------------------------------------------
p = Program("array_rotate_reverse", """
rotate (left, right, by more than the length) and reverse in reverse mode.
""", """
entry rot (xs: [5]f64) (r: i64) (yb: [5]f64) = vjp (\\v -> map2 (*) v (rotate r v)) xs yb

entry rev (xs: [4]f64) (yb: [4]f64) = vjp (\\v -> map (\\t -> t * t) (reverse v)) xs yb

entry both (m: [3][2]f64) = vjp (\\a -> let b = rotate (-1) (reverse a) in f64.sum (map2 (\\r s -> r[0] * s[1]) a b)) m 1
""")
P.append(p.test("rot", lambda x, r, yb: vjp(lambda v: v * jnp.roll(v, -int(r)), x, yb),
                [(f64([1, 2, 3, 4, 5]), i64(1), f64([1, 1, 1, 1, 1])), (f64([1, 2, 3, 4, 5]), i64(-2), f64([1, 0, 2, 0, 3])),
                 (f64([1, 2, 3, 4, 5]), i64(7), f64([5, 4, 3, 2, 1])), (f64([1, 2, 3, 4, 5]), i64(0), f64([1, 1, 1, 1, 1]))]))
p.test("rev", lambda x, yb: vjp(lambda v: v[::-1] ** 2, x, yb), [(f64([1, 2, 3, 4]), f64([1, 10, 100, 1000]))])
p.test("both", lambda m: vjp(lambda a: jnp.sum(a[:, 0] * jnp.roll(a[::-1], 1, axis=0)[:, 1]), m, 1.0), [rand(16, 3, 2)])

# ---------------------------------------------------------------------------------------------
p = Program("array_replicate_iota", """
replicate sums the cotangents of its copies; iota-based weights; tabulate reading the input.
""", """
entry rep (x: f64) (yb: [3]f64) = vjp (replicate 3) x yb

entry rep_arr (xs: [2]f64) (yb: [3][2]f64) = vjp (\\v -> replicate 3 (map (* 2) v)) xs yb

entry weights [n] (xs: [n]f64) = vjp (\\v -> f64.sum (map2 (\\i t -> f64.i64 (i + 1) * t * t) (iota n) v)) xs 1

entry tab (xs: [3]f64) (yb: [4]f64) = vjp (\\v -> tabulate 4 (\\i -> v[i % 3] * f64.i64 i)) xs yb
""")
P.append(p.test("rep", lambda x, yb: f64(np.sum(yb)), [(f64(2.0), f64([1, 2, 3])), (f64(-1.0), f64([0, 0, 0]))]))
p.test("rep_arr", lambda x, yb: f64(2 * yb.sum(axis=0)), [(f64([1, 2]), f64([[1, 2], [3, 4], [5, 6]]))])
p.test("weights", lambda x: f64(2 * np.arange(1, len(x) + 1) * x), [f64([1, 2, 3]), f64([0.5, -1, 2, 4])])


def tab(x, yb):
    g = np.zeros(3)
    for i in range(4):
        g[i % 3] += i * yb[i]
    return f64(g)


p.test("tab", tab, [(f64([1, 2, 3]), f64([1, 1, 1, 1])), (f64([1, 2, 3]), f64([1, 2, 3, 4]))])

# ---------------------------------------------------------------------------------------------
p = Program("array_literals_zip", """
Array literals built from inputs, zip and unzip, and arrays of tuples.
""", """
entry lit (a: f64) (b: f64) (yb: [3]f64) = vjp (\\(x, y) -> [x, y, x * y]) (a, b) yb

entry zipped (xs: [3]f64) (ys: [3]f64) (ub: [3]f64) (vb: [3]f64) =
  vjp (\\(a, b) -> unzip (map (\\(s, t) -> (s * t, s + t)) (zip a b))) (xs, ys) (ub, vb)

entry pairs (xs: [3]f64) = vjp (\\a -> let ps = zip a (map (* 2) a) in f64.sum (map (\\(s, t) -> s * t) ps)) xs 1
""")
P.append(p.test("lit", lambda a, b, yb: vjp(lambda x, y: jnp.stack([x, y, x * y]), (a, b), yb), [(f64(2.0), f64(3.0), f64([1, 1, 1])), (f64(2.0), f64(3.0), f64([0, 1, -2]))]))
p.test("zipped", lambda x, y, ub, vb: vjp(lambda a, b: (a * b, a + b), (x, y), (ub, vb)),
       [(f64([1, 2, 3]), f64([4, 5, 6]), f64([1, 0, 1]), f64([0, 1, 1]))])
p.test("pairs", lambda x: f64(4 * x), [f64([1, 2, 3])])

# ---------------------------------------------------------------------------------------------
p = Program("array_take_drop", """
take, drop, head, last, tail, init and split.
""", """
entry ends (xs: [5]f64) = vjp (\\v -> head v * last v + f64.sum (tail v) * f64.sum (init v)) xs 1

entry td (xs: [5]f64) (yb: [2]f64) = vjp (\\v -> map2 (*) (take 2 v) (drop 3 v)) xs yb

entry halves (xs: [4]f64) = vjp (\\v -> let (a, b) = split (v :> [2 + 2]f64) in f64.sum (map2 (\\s t -> s * t * t) a b)) xs 1
""")
P.append(p.test("ends", lambda x: vjp(lambda v: v[0] * v[-1] + jnp.sum(v[1:]) * jnp.sum(v[:-1]), x, 1.0), [f64([1, 2, 3, 4, 5]), rand(17, 5)]))
p.test("td", lambda x, yb: vjp(lambda v: v[:2] * v[3:], x, yb), [(f64([1, 2, 3, 4, 5]), f64([1, -1]))])
p.test("halves", lambda x: vjp(lambda v: jnp.sum(v[:2] * v[2:] ** 2), x, 1.0), [f64([1, 2, 3, 4])])

# ---------------------------------------------------------------------------------------------
p = Program("array_2d_mixed", """
A 2-D pipeline: rows, columns, transpose, flatten and an update in one function.
""", """
def f [n] (m: [n][n]f64) : f64 =
  let t = transpose m
  let d = map2 (\\r i -> r[i]) m (iota n)
  let c = copy t with [0] = d
  let s = map2 (\\r q -> f64.sum (map2 (*) r q)) c m
  in f64.sum s + f64.sum (flatten c) * 0.5

entry grad [n] (m: [n][n]f64) = vjp f m 1
""")


def mixed(m):
    n = m.shape[0]
    t = m.T
    d = jnp.diag(m)
    c = t.at[0].set(d)
    s = jnp.sum(c * m, axis=1)
    return jnp.sum(s) + jnp.sum(c) * 0.5


P.append(p.test("grad", lambda m: vjp(mixed, m, 1.0), [rand(18, 3, 3), f64([[1, 2], [3, 4]])]))

for p in P:
    print(p.write())
