"""map in reverse mode: free scalars, free arrays read inside the map (gather), nested maps,
matrix-vector and matrix-matrix products, map2/map3, maps returning tuples."""

from common import *  # noqa: F401,F403

P = []

# ---------------------------------------------------------------------------------------------
p = Program("map_elementwise", """
Element-wise maps: the cotangent of each element is independent.
""", """
entry sq (xs: [4]f64) (yb: [4]f64) = vjp (map (\\t -> t * t * f64.sin t)) xs yb

entry two (xs: [3]f64) (ys: [3]f64) (yb: [3]f64) = vjp (\\(a, b) -> map2 (\\s t -> s * f64.exp t - t) a b) (xs, ys) yb

entry three (xs: [3]f64) (ys: [3]f64) (zs: [3]f64) = vjp (\\(a, b, c) -> f64.sum (map3 (\\s t u -> s * t + t * u * u) a b c)) (xs, ys, zs) 1

entry empty (xs: [0]f64) = vjp (map (\\t -> t * t)) xs xs
""")
P.append(p.test("sq", lambda x, yb: vjp(lambda v: v * v * jnp.sin(v), x, yb), [(f64([1, 2, 3, 4]), f64([1, 1, 1, 1])), (rand(1, 4), rand(2, 4))]))
p.test("two", lambda x, y, yb: vjp(lambda a, b: a * jnp.exp(b) - b, (x, y), yb), [(rand(3, 3), rand(4, 3), f64([1, 2, 3]))])
p.test("three", lambda x, y, z: vjp(lambda a, b, c: jnp.sum(a * b + b * c * c), (x, y, z), 1.0), [(f64([1, 2, 3]), f64([4, 5, 6]), f64([-1, 0, 1]))])
p.test("empty", lambda x: f64(np.zeros(0)), [f64(np.zeros(0))])

# ---------------------------------------------------------------------------------------------
p = Program("map_free_scalar", """
map with free scalar variables: the free scalar's cotangent is summed over all elements.
""", """
entry scale (xs: [4]f64) (k: f64) (yb: [4]f64) = vjp (\\(a, c) -> map (\\t -> c * t * t + c * c) a) (xs, k) yb

entry only_free (xs: [3]f64) (k: f64) = vjp (\\c -> f64.sum (map (\\t -> f64.sin (c * t)) xs)) k 1

entry two_free (xs: [3]f64) (a: f64) (b: f64) = vjp (\\(p, q) -> f64.sum (map (\\t -> p * t + q / (1 + t * t) + p * q) xs)) (a, b) 1
""")
P.append(p.test("scale", lambda x, k, yb: vjp(lambda a, c: c * a * a + c * c, (x, k), yb),
                [(f64([1, 2, 3, 4]), f64(2.0), f64([1, 1, 1, 1])), (rand(5, 4), f64(-0.5), rand(6, 4))]))
p.test("only_free", lambda x, k: vjp(lambda c: jnp.sum(jnp.sin(c * x)), k, 1.0), [(f64([1, 2, 3]), f64(0.5))])
p.test("two_free", lambda x, a, b: vjp(lambda p, q: jnp.sum(p * x + q / (1 + x * x) + p * q), (a, b), 1.0), [(f64([1, 2, 3]), f64(2.0), f64(-1.0))])

# ---------------------------------------------------------------------------------------------
p = Program("map_gather", """
Free arrays indexed inside a map (gathers): cotangents accumulate into the gathered positions,
also when several elements read the same position.
""", """
entry gather (xs: [5]f64) (is: [6]i64) (yb: [6]f64) = vjp (\\v -> map (\\i -> v[i] * v[i]) is) xs yb

entry neighbours (xs: [5]f64) = vjp (\\v -> f64.sum (map (\\i -> v[i] * v[(i + 1) % 5] - v[(i + 4) % 5]) (iota 5))) xs 1

entry weighted (xs: [4]f64) (ws: [4]f64) = vjp (\\(v, w) -> f64.sum (map (\\i -> w[3 - i] * v[i] * v[i]) (iota 4))) (xs, ws) 1

entry rows (m: [3][2]f64) (is: [4]i64) = vjp (\\a -> f64.sum (map (\\i -> a[i, 0] * a[i, 1]) is)) m 1
""")


def gather(x, idx, yb):
    return vjp(lambda v: v[idx] * v[idx], x, yb)


P.append(p.test("gather", gather, [(f64([1, 2, 3, 4, 5]), i64([0, 2, 2, 4, 0, 0]), f64([1, 1, 1, 1, 1, 1])),
                                   (f64([1, 2, 3, 4, 5]), i64([4, 3, 2, 1, 0, 1]), f64([1, 2, 3, 4, 5, 6]))]))
p.test("neighbours", lambda x: vjp(lambda v: jnp.sum(v * jnp.roll(v, -1) - jnp.roll(v, 1)), x, 1.0), [f64([1, 2, 3, 4, 5]), rand(7, 5)])
p.test("weighted", lambda x, w: vjp(lambda v, ww: jnp.sum(ww[::-1] * v * v), (x, w), 1.0), [(f64([1, 2, 3, 4]), f64([1, 0, -1, 2]))])
p.test("rows", lambda m, idx: vjp(lambda a: jnp.sum(a[idx, 0] * a[idx, 1]), m, 1.0), [(rand(8, 3, 2), i64([0, 2, 2, 1]))])

# ---------------------------------------------------------------------------------------------
p = Program("map_nested", """
Nested maps: over rows and elements, with free values from the outer map inside the inner one.
""", """
entry outer (m: [2][3]f64) (yb: [2][3]f64) = vjp (map (\\r -> let s = f64.sum r in map (\\t -> t * s) r)) m yb

entry inner_free (m: [3][2]f64) (v: [2]f64) = vjp (\\(a, w) -> f64.sum (map (\\r -> f64.sum (map2 (\\t u -> f64.exp (t * u)) r w)) a)) (m, v) 1

entry triple (a: [2][2][2]f64) (k: f64) = vjp (\\(t, c) -> f64.sum (map (\\p -> f64.sum (map (\\r -> f64.sum (map (\\x -> c * x * x) r)) p)) t)) (a, k) 1
""")
P.append(p.test("outer", lambda m, yb: vjp(lambda a: a * jnp.sum(a, axis=1, keepdims=True), m, yb), [(rand(9, 2, 3), rand(10, 2, 3))]))
p.test("inner_free", lambda m, v: vjp(lambda a, w: jnp.sum(jnp.exp(a * w[None, :])), (m, v), 1.0), [(rand(11, 3, 2), f64([0.5, -1]))])
p.test("triple", lambda a, k: vjp(lambda t, c: jnp.sum(c * t * t), (a, k), 1.0), [(rand(12, 2, 2, 2), f64(1.5))])

# ---------------------------------------------------------------------------------------------
p = Program("matvec", """
Matrix-vector product: cotangents of both the matrix (outer product) and the vector.
""", """
def mv [n] [m] (a: [n][m]f64) (x: [m]f64) : [n]f64 = map (\\r -> f64.sum (map2 (*) r x)) a

entry grad (a: [3][2]f64) (x: [2]f64) (yb: [3]f64) = vjp (\\(p, q) -> mv p q) (a, x) yb

entry quad (a: [3][3]f64) (x: [3]f64) = vjp (\\v -> f64.sum (map2 (*) v (mv a v))) x 1
""")
P.append(p.test("grad", lambda a, x, yb: vjp(lambda p, q: p @ q, (a, x), yb),
                [(f64([[1, 2], [3, 4], [5, 6]]), f64([1, -1]), f64([1, 0, 2])), (rand(13, 3, 2), rand(14, 2), rand(15, 3))]))
p.test("quad", lambda a, x: vjp(lambda v: v @ (a @ v), x, 1.0), [(rand(16, 3, 3), f64([1, 2, 3]))])

# ---------------------------------------------------------------------------------------------
p = Program("matmul", """
Matrix multiplication written with map, transpose and a dot product; gradients of both
factors, a chain of two products, and the Frobenius norm of a product.
""", """
def dot [n] (a: [n]f64) (b: [n]f64) = f64.sum (map2 (*) a b)

def matmul [n] [m] [p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\\r -> map (\\c -> dot r c) (transpose b)) a

entry grad (a: [2][3]f64) (b: [3][2]f64) (yb: [2][2]f64) = vjp (\\(x, y) -> matmul x y) (a, b) yb

entry chain (a: [2][2]f64) (b: [2][2]f64) (c: [2][2]f64) = vjp (\\(x, y, z) -> f64.sum (flatten (matmul (matmul x y) z))) (a, b, c) 1

entry frob (a: [3][3]f64) = vjp (\\x -> let p = matmul x (transpose x) in f64.sum (map (\\r -> dot r r) p)) a 1
""")
P.append(p.test("grad", lambda a, b, yb: vjp(lambda x, y: x @ y, (a, b), yb),
                [(rand(17, 2, 3), rand(18, 3, 2), f64([[1, 0], [0, 1]])), (rand(19, 2, 3), rand(20, 3, 2), rand(21, 2, 2))]))
p.test("chain", lambda a, b, c: vjp(lambda x, y, z: jnp.sum(x @ y @ z), (a, b, c), 1.0), [(rand(22, 2, 2), rand(23, 2, 2), rand(24, 2, 2))])
p.test("frob", lambda a: vjp(lambda x: jnp.sum((x @ x.T) ** 2), a, 1.0), [rand(25, 3, 3)])

# ---------------------------------------------------------------------------------------------
p = Program("map_tuple_result", """
A map whose function returns a tuple, and a map over an array of tuples.
""", """
entry polar (rs: [3]f64) (ts: [3]f64) (xb: [3]f64) (yb: [3]f64) =
  vjp (\\(r, t) -> unzip (map2 (\\a b -> (a * f64.cos b, a * f64.sin b)) r t)) (rs, ts) (xb, yb)

entry pairs (xs: [3]f64) = vjp (\\v -> let (a, b) = unzip (map (\\t -> (t * t, t * 3)) v) in f64.sum (map2 (*) a b)) xs 1
""")
P.append(p.test("polar", lambda r, t, xb, yb: vjp(lambda a, b: (a * jnp.cos(b), a * jnp.sin(b)), (r, t), (xb, yb)),
                [(f64([1, 2, 3]), f64([0, 1, 2]), f64([1, 1, 1]), f64([0, 0, 0])), (f64([1, 2, 3]), f64([0, 1, 2]), f64([0.5, -1, 2]), f64([1, 2, 3]))]))
p.test("pairs", lambda x: f64(9 * x * x), [f64([1, 2, -3])])

# ---------------------------------------------------------------------------------------------
p = Program("map_if_inside", """
An if inside a map: each element takes its own branch (ReLU, abs-like and a piecewise map).
""", """
entry relu (xs: [5]f64) (yb: [5]f64) = vjp (map (\\t -> if t > 0 then t else 0.1 * t)) xs yb

entry piece (xs: [4]f64) (k: f64) = vjp (\\(v, c) -> f64.sum (map (\\t -> if t < c then c * t else t * t) v)) (xs, k) 1
""")
P.append(p.test("relu", lambda x, yb: f64(np.where(x > 0, 1.0, 0.1) * yb), [(f64([-1, 0, 1, 2, -3]), f64([1, 2, 3, 4, 5]))]))


def piece(x, k):
    dx = np.where(x < k, k, 2 * x)
    dk = np.sum(np.where(x < k, x, 0.0))
    return f64(dx), f64(dk)


p.test("piece", piece, [(f64([0, 1, 2, 3]), f64(1.5)), (f64([-1, 5, 1.5, 0]), f64(1.5))])

# ---------------------------------------------------------------------------------------------
p = Program("map_f32", """
An f32 map with free f32 scalars and arrays.
""", """
entry grad (xs: [4]f32) (w: [4]f32) (b: f32) = vjp (\\(x, c) -> f32.sum (map2 (\\t u -> f32.tanh (t * u + c)) x w)) (xs, b) 1
""")
P.append(p.test("grad", lambda x, w, b: vjp(lambda xx, c: jnp.sum(jnp.tanh(xx * w + c)), (x, b), np.float32(1)),
                [(f32([0.5, -1, 2, 0]), f32([1, 2, 0.5, -1]), f32(0.25))]))

# ---------------------------------------------------------------------------------------------
p = Program("map_int", """
Integer maps in reverse mode, with a free integer scalar: exact cotangents.
""", """
entry grad (xs: [4]i32) (k: i32) = vjp (\\(v, c) -> i32.sum (map (\\t -> c * t * t + t) v)) (xs, k) 1
""")
P.append(p.test("grad", lambda x, k: (i32(2 * k * x + 1), i32(np.sum(x.astype(np.int64) ** 2))), [(i32([1, 2, 3, -4]), i32(3))]))

for p in P:
    print(p.write())
