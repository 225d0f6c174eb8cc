-- The k-means benchmark instance (k, n, d) = (5, 1000, 4) of benchmarks/README.md §k-means,
-- generated inside the program with the input generator described there (seed 1): the Hessian
-- diagonal by one jvp over vjp. Expected values are the reference row given there
-- (Hdiag[0][0] = 184, sum = 2 n d).

def mix (z: u64) : u64 =
  let z1 = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u64
  let z2 = (z1 ^ (z1 >> 27)) * 0x94D049BB133111EBu64
  in z2 ^ (z2 >> 31)

def unif (s: u64) (i: i64) : f64 =
  let b = mix (s + (u64.i64 i + 1) * 0x9E3779B97F4A7C15u64)
  in f64.u64 (b >> 11) / 9007199254740992.0

def cost [n] [k] [d] (ps: [n][d]f64) (cs: [k][d]f64) : f64 =
  f64.sum (map (\p -> f64.minimum (map (\c -> f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)) cs)) ps)

-- ==
-- entry: hdiag
-- input { 5i64 1000i64 4i64 }
-- output { 184.0 8000.0 312.0 }
entry hdiag (k: i64) (n: i64) (d: i64) =
  let ps = tabulate_2d n d (\i j -> unif 1 (i * d + j))
  let cs = ps[0:k]
  let h = jvp (\c -> vjp (cost ps) c 1) cs (map (map (const 1)) cs)
  in (h[0, 0], f64.sum (flatten h), h[k - 1, d - 1])
