-- The k-means benchmark instance (k, n, d) = (5, 1000, 4) of benchmarks/README.md §k-means,
-- generated inside the program with the input generator described there (seed 1): cost and
-- gradient summaries by one vjp. Expected values are the reference row given there.

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
-- entry: summary
-- input { 5i64 1000i64 4i64 }
-- output { 255.975493 -27.93536869 21.09114415 -32.79308092 360.8421749 796.5579091 }
entry summary (k: i64) (n: i64) (d: i64) =
  let ps = tabulate_2d n d (\i j -> unif 1 (i * d + j))
  let cs = ps[0:k]
  let (f, g) = vjp2 (cost ps) cs 1
  let gf = flatten g
  in (f, g[0, 0], g[0, d - 1], g[k - 1, 0], f64.sum gf, f64.sum (map f64.abs gf))
