-- Sparse Hessian of a graph Laplacian energy with a quartic term; the edges are read from
-- arrays (a ring with chords), so the pattern depends on data, not on the program's shape.

import "check"

def energy [n] [e] (us: [e]i64) (vs: [e]i64) (w: [e]f64) (x: [n]f64) : f64 =
  f64.sum (map3 (\u v wt -> wt * (x[u] - x[v]) * (x[u] - x[v])) us vs w)
  + f64.sum (map (\t -> t * t * t * t / 12) x)

def graph (n: i64) : ([]i64, []i64, []f64) =
  let ring = iota n
  let us = concat ring (map (\i -> i) (iota (n / 3)))
  let vs = concat (map (\i -> (i + 1) % n) ring) (map (\i -> (3 * i + n / 2) % n) (iota (n / 3)))
  in (us, vs, map (\i -> 1 + f64.i64 (i % 4)) (indices us))

-- ==
-- entry: check
-- random input { [5]f64 } output { true }
-- random input { [30]f64 } output { true }
entry check [n] (x: [n]f64) : bool =
  let (us, vs, w) = graph n
  in check_hessian (energy us vs w) x

-- The pattern is the graph's adjacency plus the diagonal: at n = 6, the 6 ring edges and the
-- chord (0, 3) (the other chord, (1, 0), is a ring edge), so 6 + 2 * 7 entries.
-- ==
-- entry: entries
-- input { [0.1, 0.2, 0.3, 0.4, 0.5, 0.6] } output { 20i64 }
entry entries [n] (x: [n]f64) : i64 =
  let (us, vs, w) = graph n
  in length (sparse_hessian (energy us vs w) x).1
