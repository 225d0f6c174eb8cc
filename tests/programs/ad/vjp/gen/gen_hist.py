"""hist, reduce_by_index and scatter in reverse mode, with out-of-range indices, duplicates,
zeros (for *) and ties (for min/max; the destination counts as the earliest contributor)."""

from common import *  # noqa: F401,F403

P = []


def bins(k, idx):
    """For each bin, the list of contributing positions in increasing order."""
    out = [[] for _ in range(k)]
    for j, b in enumerate(idx):
        if 0 <= b < k:
            out[b].append(j)
    return out


def rbi_grad(dest, op, idx, vs, yb):
    """Cotangents (dest, vs) of reduce_by_index dest op ne idx vs, by hand:
    op in '+', '*', 'min', 'max'; the destination is the first operand of each bin."""
    dest = np.asarray(dest, dtype=float)
    vs = np.asarray(vs, dtype=float)
    k = len(dest)
    gd = np.zeros(k)
    gv = np.zeros(len(vs))
    for b, js in enumerate(bins(k, idx)):
        elems = [dest[b]] + [vs[j] for j in js]
        if op == "+":
            g = [1.0] * len(elems)
        elif op == "*":
            g = [np.prod(np.delete(np.array(elems), i)) for i in range(len(elems))]
        else:
            pick = max(elems) if op == "max" else min(elems)
            first = elems.index(pick)
            g = [1.0 if i == first else 0.0 for i in range(len(elems))]
        gd[b] = g[0] * yb[b]
        for gi, j in zip(g[1:], js):
            gv[j] = gi * yb[b]
    return gd, gv


# ---------------------------------------------------------------------------------------------
p = Program("hist_add", """
hist with +: each value gets its bin's cotangent; out-of-range indices (negative or >= k) get 0.
""", """
entry grad (is: [6]i64) (vs: [6]f64) (yb: [4]f64) = vjp (\\v -> hist (+) 0 4 is v) vs yb

entry of_map (is: [5]i64) (vs: [5]f64) = vjp (\\v -> let h = hist (+) 0 3 is (map (\\t -> t * t) v) in f64.sum (map (\\x -> x * x) h)) vs 1

entry free (is: [4]i64) (vs: [4]f64) (k: f64) = vjp (\\c -> f64.sum (hist (+) 0 2 is (map (* c) vs))) k 1
""")
P.append(p.test("grad", lambda idx, v, yb: f64(rbi_grad(np.zeros(4), "+", idx, v, yb)[1]),
                [(i64([0, 1, 1, 3, -1, 4]), f64([1, 2, 3, 4, 5, 6]), f64([1, 2, 3, 4])), (i64([2, 2, 2, 2, 2, 9]), f64([1, 2, 3, 4, 5, 6]), f64([1, 2, 3, 4]))]))


def hist_of_map(idx, v):
    def f(vv):
        h = jnp.zeros(3)
        for j in range(len(idx)):
            if 0 <= idx[j] < 3:
                h = h.at[idx[j]].add(vv[j] ** 2)
        return jnp.sum(h ** 2)

    return vjp(f, v, 1.0)


p.test("of_map", hist_of_map, [(i64([0, 2, 0, 5, 1]), f64([1, 2, 3, 4, 5]))])
p.test("free", lambda idx, v, k: f64(np.sum(v[(idx >= 0) & (idx < 2)])), [(i64([0, 1, 2, -5]), f64([1, 2, 3, 4]), f64(2.0))])

# ---------------------------------------------------------------------------------------------
p = Program("hist_mul", """
hist with *: exact gradients with zeros in a bin; out-of-range values get 0.
""", """
entry grad (is: [6]i64) (vs: [6]f64) (yb: [3]f64) = vjp (\\v -> hist (*) 1 3 is v) vs yb
""")
P.append(p.test("grad", lambda idx, v, yb: f64(rbi_grad(np.ones(3), "*", idx, v, yb)[1]),
                [(i64([0, 0, 1, 1, 2, 3]), f64([2, 3, 4, 5, 6, 7]), f64([1, 1, 1])), (i64([0, 0, 1, 1, 1, 0]), f64([0, 3, 0, 5, 2, 4]), f64([1, 2, 3])),
                 (i64([1, 1, 1, -1, 2, 2]), f64([2, 0, 5, 0, 0, 0]), f64([1, 1, 1]))]))

# ---------------------------------------------------------------------------------------------
p = Program("hist_minmax", """
hist with min and max: the cotangent goes to the earliest value equal to the bin's extremum.
""", """
entry hmax (is: [6]i64) (vs: [6]f64) (yb: [3]f64) = vjp (\\v -> hist f64.max (-f64.inf) 3 is v) vs yb

entry hmin (is: [6]i64) (vs: [6]f64) (yb: [3]f64) = vjp (\\v -> hist f64.min f64.inf 3 is v) vs yb
""")
cases = [(i64([0, 1, 0, 1, 2, 5]), f64([1, 5, 3, 2, 7, 100]), f64([1, 2, 3])), (i64([0, 0, 0, 1, 1, -1]), f64([2, 2, 1, 4, 4, -10]), f64([1, 2, 3])),
         (i64([2, 2, 2, 2, 2, 2]), f64([1, 3, 3, 0, 0, 3]), f64([1, 1, 5]))]
P.append(p.test("hmax", lambda idx, v, yb: f64(rbi_grad(np.full(3, -np.inf), "max", idx, v, yb)[1]), cases))
p.test("hmin", lambda idx, v, yb: f64(rbi_grad(np.full(3, np.inf), "min", idx, v, yb)[1]), cases)

# ---------------------------------------------------------------------------------------------
p = Program("rbi_add", """
reduce_by_index with +: the destination and the values both get cotangents.
""", """
entry grad (dest: [4]f64) (is: [5]i64) (vs: [5]f64) (yb: [4]f64) = vjp (\\(d, v) -> reduce_by_index (copy d) (+) 0 is v) (dest, vs) yb

entry squares (dest: [3]f64) (is: [4]i64) (vs: [4]f64) = vjp (\\(d, v) -> f64.sum (map (\\x -> x * x) (reduce_by_index (map (* 2) d) (+) 0 is (map (\\t -> t * t) v)))) (dest, vs) 1
""")
P.append(p.test("grad", lambda d, idx, v, yb: tuple(f64(g) for g in rbi_grad(d, "+", idx, v, yb)),
                [(f64([1, 2, 3, 4]), i64([0, 3, 3, 7, -2]), f64([5, 6, 7, 8, 9]), f64([1, 2, 3, 4]))]))


def rbi_sq(d, idx, v):
    def f(dd, vv):
        h = dd * 2
        for j in range(len(idx)):
            if 0 <= idx[j] < 3:
                h = h.at[idx[j]].add(vv[j] ** 2)
        return jnp.sum(h ** 2)

    return vjp(f, (d, v), 1.0)


p.test("squares", rbi_sq, [(f64([1, -1, 0.5]), i64([0, 0, 2, 3]), f64([1, 2, 3, 4]))])

# ---------------------------------------------------------------------------------------------
p = Program("rbi_mul", """
reduce_by_index with *: exact gradients with zeros in the destination and in the values.
""", """
entry grad (dest: [3]f64) (is: [5]i64) (vs: [5]f64) (yb: [3]f64) = vjp (\\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (dest, vs) yb
""")
P.append(p.test("grad", lambda d, idx, v, yb: tuple(f64(g) for g in rbi_grad(d, "*", idx, v, yb)),
                [(f64([1, 2, 3]), i64([0, 1, 1, 2, 3]), f64([2, 3, 4, 5, 6]), f64([1, 1, 1])), (f64([0, 2, 3]), i64([0, 1, 1, 2, 2]), f64([2, 0, 4, 0, 0]), f64([1, 2, 3])),
                 (f64([2, 0, 1]), i64([1, 1, -1, 0, 0]), f64([3, 5, 0, 0, 7]), f64([1, 1, 1]))]))

# ---------------------------------------------------------------------------------------------
p = Program("rbi_minmax", """
reduce_by_index with max and min: on a tie with the destination the destination gets the
cotangent; among values the earliest.
""", """
entry rmax (dest: [3]f64) (is: [5]i64) (vs: [5]f64) (yb: [3]f64) = vjp (\\(d, v) -> reduce_by_index (copy d) f64.max (-f64.inf) is v) (dest, vs) yb

entry rmin (dest: [3]f64) (is: [5]i64) (vs: [5]f64) (yb: [3]f64) = vjp (\\(d, v) -> reduce_by_index (copy d) f64.min f64.inf is v) (dest, vs) yb
""")
cases = [(f64([1, 5, 3]), i64([0, 1, 1, 2, 7]), f64([2, 5, 6, 3, 9]), f64([1, 2, 3])), (f64([4, 0, 0]), i64([0, 0, 2, 2, 2]), f64([4, 4, 1, 1, -1]), f64([1, 2, 3])),
         (f64([2, 2, 2]), i64([-1, 1, 1, 1, 1]), f64([7, 1, 3, 3, 2]), f64([1, 1, 1]))]
P.append(p.test("rmax", lambda d, idx, v, yb: tuple(f64(g) for g in rbi_grad(d, "max", idx, v, yb)), cases))
p.test("rmin", lambda d, idx, v, yb: tuple(f64(g) for g in rbi_grad(d, "min", idx, v, yb)), cases)

# ---------------------------------------------------------------------------------------------
p = Program("hist_int", """
Integer hist with + and * in reverse mode: exact integer cotangents.
""", """
entry add (is: [4]i64) (vs: [4]i32) (yb: [2]i32) = vjp (\\v -> hist (+) 0 2 is v) vs yb

entry mul (is: [4]i64) (vs: [4]i32) = vjp (\\v -> i32.sum (hist (*) 1 2 is v)) vs 1

entry mul_u8 (is: [12]i64) (vs: [12]u8) (d: [4]u8) (yb: [4]u8) =
  vjp (\\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (d, vs) yb

entry mul_i32 (is: [12]i64) (vs: [12]i32) (d: [4]i32) (yb: [4]i32) =
  vjp (\\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (d, vs) yb

entry mul_u64 (is: [10]i64) (vs: [10]u64) (d: [3]u64) (yb: [3]u64) =
  vjp (\\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (d, vs) yb
""")
P.append(p.test("add", lambda idx, v, yb: i32(rbi_grad(np.zeros(2), "+", idx, v, yb)[1]), [(i64([0, 1, 1, 2]), i32([1, 2, 3, 4]), i32([5, 7]))]))
p.test("mul", lambda idx, v: i32(rbi_grad(np.ones(2), "*", idx, v, np.ones(2))[1]), [(i64([0, 0, 1, 1]), i32([3, 4, 0, 6])), (i64([0, 0, 0, 1]), i32([3, 0, 0, 6]))])


def int_product_rbi(bits, conv):
    """Adjoints of an integer product reduce_by_index by brute force modulo 2^bits: every
    contributor (the destination's element first) gets the product of the other contributors
    of its bin times the bin's cotangent."""
    M = 1 << bits

    def grad(idx, v, d, yb):
        d, v = [int(x) % M for x in d], [int(x) % M for x in v]
        db, vb = [0] * len(d), [0] * len(v)
        for b in range(len(d)):
            members = [("d", b)] + [("v", i) for i in range(len(v)) if idx[i] == b]
            value = lambda m: d[m[1]] if m[0] == "d" else v[m[1]]
            for m in members:
                p = 1
                for o in members:
                    if o != m:
                        p = p * value(o) % M
                r = p * int(yb[b]) % M
                if m[0] == "d":
                    db[b] = r
                else:
                    vb[m[1]] = r
        return conv(db), conv(vb)

    return grad


def wrap32(xs):
    return i32([x - (1 << 32) if x >= 1 << 31 else x for x in xs])


def int_cases(seed, bits, n, m, pick):
    rng = np.random.default_rng(seed)
    M = 1 << bits
    idx = [int(rng.integers(-1, m + 1)) for _ in range(n)]
    v = [pick(rng, M) for _ in range(n)]
    d = [int(rng.choice([0, 2, int(rng.integers(0, M, dtype=np.uint64))])) for _ in range(m)]
    yb = [int(rng.integers(0, M, dtype=np.uint64)) for _ in range(m)]
    return idx, v, d, yb


# zeros, repeated factors of two, wrap-around and out-of-range indices
u8c = int_cases(5, 8, 12, 4, lambda r, M: int(r.choice([0, 1, 2, 4, 8, int(r.integers(0, M, dtype=np.uint64))])))
p.test("mul_u8", int_product_rbi(8, u8), [(i64(u8c[0]), u8(u8c[1]), u8(u8c[2]), u8(u8c[3]))])
i32c = int_cases(6, 32, 12, 4, lambda r, M: int(r.choice([0, 2, 4, 12, int(r.integers(0, M, dtype=np.uint64))])))
p.test("mul_i32", int_product_rbi(32, wrap32),
       [(i64(i32c[0]), wrap32(i32c[1]), wrap32(i32c[2]), wrap32(i32c[3]))])
u64c = int_cases(7, 64, 10, 3, lambda r, M: int(r.choice([0, 2, 12, int(r.integers(0, M, dtype=np.uint64))])))
u64 = lambda xs: np.asarray(xs, dtype=np.uint64)
p.test("mul_u64", int_product_rbi(64, u64), [(i64(u64c[0]), u64(u64c[1]), u64(u64c[2]), u64(u64c[3]))])

# ---------------------------------------------------------------------------------------------
p = Program("hist_centroids", """
hist as in k-means: per-cluster sums of points gathered by assignment; the gradient of a cost
built from them reaches the points.
""", """
entry grad (xs: [6]f64) (as: [6]i64) = vjp (\\v -> let s = hist (+) 0 2 as v let c = hist (+) 0 2 as (map (const 1) v) in f64.sum (map2 (\\a b -> a * a / b) s c)) xs 1
""")


def centroids(x, a):
    s = np.array([x[a == b].sum() for b in range(2)])
    c = np.array([(a == b).sum() for b in range(2)])
    return f64([2 * s[b] / c[b] for b in a])


P.append(p.test("grad", centroids, [(f64([1, 2, 3, 4, 5, 6]), i64([0, 1, 0, 1, 1, 0])), (f64([0.5, -1, 2, 0, 1, 1]), i64([1, 1, 1, 0, 1, 1]))]))

# ---------------------------------------------------------------------------------------------
p = Program("scatter_basic", """
scatter: the winning (last) write to a position gets its cotangent; overwritten and
out-of-range writes get 0; the destination gets the cotangent with written positions zeroed.
""", """
entry grad (dest: [4]f64) (vs: [5]f64) (yb: [4]f64) = vjp (\\(d, v) -> scatter (copy d) [1, 3, 1, 9, -1] v) (dest, vs) yb

entry indices (dest: [5]f64) (is: [4]i64) (vs: [4]f64) (yb: [5]f64) = vjp (\\(d, v) -> scatter (copy d) is v) (dest, vs) yb
""")


def scatter_grad(d, idx, v, yb):
    gd = np.array(yb, dtype=float).copy()
    gv = np.zeros(len(v))
    last = {}
    for j, i in enumerate(idx):
        if 0 <= i < len(d):
            last[i] = j
    for i, j in last.items():
        gv[j] = yb[i]
        gd[i] = 0
    return f64(gd), f64(gv)


P.append(p.test("grad", lambda d, v, yb: scatter_grad(d, [1, 3, 1, 9, -1], v, yb),
                [(f64([0, 0, 0, 0]), f64([1, 2, 3, 4, 5]), f64([1, 2, 3, 4])), (f64([1, 1, 1, 1]), f64([1, 1, 1, 1, 1]), f64([10, 20, 30, 40]))]))
p.test("indices", scatter_grad, [(f64([1, 2, 3, 4, 5]), i64([4, 4, 4, 0]), f64([1, 2, 3, 4]), f64([1, 2, 3, 4, 5])),
                                 (f64([1, 2, 3, 4, 5]), i64([5, -1, 100, 2]), f64([1, 2, 3, 4]), f64([1, 2, 3, 4, 5])),
                                 (f64([1, 2, 3, 4, 5]), i64([0, 1, 2, 3]), f64([1, 2, 3, 4]), f64([1, 1, 1, 1, 1]))])

# ---------------------------------------------------------------------------------------------
p = Program("scatter_computed", """
scatter of computed values into a computed destination, followed by a nonlinear function;
scatter inside a loop.
""", """
entry grad (dest: [4]f64) (vs: [3]f64) = vjp (\\(d, v) -> let r = scatter (map (\\t -> t * t) d) [2, 0, 2] (map f64.exp v) in f64.sum (map2 (*) r (map f64.i64 (iota 4))) + r[0] * r[2]) (dest, vs) 1

entry looped (xs: [4]f64) = vjp (\\v -> let a = loop a = copy v for i < 3 do let t = a[i] * 2 in scatter a [i + 1] [t] in f64.sum (map (\\t -> t * t) a)) xs 1
""")


def sc_comp(d, v):
    def f(dd, vv):
        r = (dd * dd).at[jnp.array([0])].set(jnp.exp(vv[1])).at[2].set(jnp.exp(vv[2]))
        return jnp.sum(r * jnp.arange(4.0)) + r[0] * r[2]

    return vjp(f, (d, v), 1.0)


def sc_loop(x):
    def f(v):
        a = v
        for i in range(3):
            a = a.at[i + 1].set(a[i] * 2)
        return jnp.sum(a * a)

    return vjp(f, x, 1.0)


P.append(p.test("grad", sc_comp, [(f64([1, 2, 3, 4]), f64([0.1, 0.2, 0.3]))]))
p.test("looped", sc_loop, [f64([1, 2, 3, 4]), f64([-0.5, 7, 7, 7])])

# ---------------------------------------------------------------------------------------------
p = Program("scatter_spread", """
scatter into a fresh destination (spread-like) and into an f32 array.
""", """
entry fresh (vs: [3]f64) (yb: [5]f64) = vjp (\\v -> scatter (replicate 5 0) [4, 0, 4] v) vs yb

entry single (xs: [3]f32) (yb: [3]f32) = vjp (\\v -> scatter (copy v) [0, 5] [v[2] * v[1], 1]) xs yb
""")
P.append(p.test("fresh", lambda v, yb: f64([0, yb[0], yb[4]]), [(f64([1, 2, 3]), f64([1, 2, 3, 4, 5]))]))
# result: [v2*v1, v1, v2]; cotangents: v1 <- yb1 + yb0*v2, v2 <- yb2 + yb0*v1, v0 <- 0
p.test("single", lambda x, yb: f32([0, yb[1] + yb[0] * x[2], yb[2] + yb[0] * x[1]]), [(f32([1, 2, 3]), f32([1, 1, 1])), (f32([1, 2, 3]), f32([2, 0.5, -1]))])

for p in P:
    print(p.write())
