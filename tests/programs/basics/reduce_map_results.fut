-- A map whose results a reduction reads and later code reads too: the optimiser computes
-- both in one traversal (a `redomap` with map results), alone or paired with a reduction
-- of the same inputs. Each entry is checked against values computed by loops.

-- Softmax: the exponentials are summed, then divided by the sum.
def softmax [n] (xs: [n]f64) : [n]f64 =
  let m = f64.maximum xs
  let e = map (\x -> f64.exp (x - m)) xs
  let s = f64.sum e
  in map (/ s) e

def softmax_loop [n] (xs: [n]f64) : [n]f64 =
  let m = loop m = -f64.inf for x in xs do f64.max m x
  let s = loop s = 0 for x in xs do s + f64.exp (x - m)
  in tabulate n (\i -> f64.exp (xs[i] - m) / s)

def close (a: f64) (b: f64) = f64.abs (a - b) <= 1e-12 * (1 + f64.abs b)

-- ==
-- entry: softmax_entry
-- input { [0.0, 0.0] } output { [0.5, 0.5] }
-- input { [1.0, 2.0, 3.0] } output { [0.09003057317038046, 0.24472847105479764, 0.6652409557748218] }
-- input { empty([0]f64) } output { empty([0]f64) }

entry softmax_entry (xs: []f64) = softmax xs

-- ==
-- entry: softmax_matches_loops
-- random input { [100000]f64 } output { true }
-- random input { [7]f64 } output { true }

entry softmax_matches_loops [n] (xs: [n]f64) =
  and (map2 close (softmax xs) (softmax_loop xs))

-- The squares are summed and also returned, shifted by the sum; an independent sum of the
-- inputs and their maximum read the same array.
-- ==
-- entry: kept_and_paired
-- input { [1i64, 2i64, 3i64] } output { [15i64, 18i64, 23i64] 6i64 3i64 }
-- input { empty([0]i64) } output { empty([0]i64) 0i64 -9223372036854775808i64 }

entry kept_and_paired (xs: []i64) =
  let sq = map (\x -> x * x) xs
  let s = i64.sum sq
  let t = i64.sum xs
  let m = i64.maximum xs
  in (map (+ s) sq, t, m)

-- ==
-- entry: kept_and_paired_matches_loops
-- random input { [100000]i64 } output { true }

entry kept_and_paired_matches_loops [n] (xs: [n]i64) =
  let xs = map (% 1000) xs
  let (a, t, m) = kept_and_paired xs
  let s = loop s = 0 for x in xs do s + x * x
  let t' = loop t = 0 for x in xs do t + x
  let m' = loop m = i64.lowest for x in xs do i64.max m x
  in t == t' && m == m' && and (map2 (\y x -> y == x * x + s) a xs)

-- A scaled copy (a map) and a weighted sum of the same array pair up.
-- ==
-- entry: map_beside_sum
-- input { [1.0, 2.0, 4.0] 0.5 } output { [0.5, 1.0, 2.0] 1.75 }

entry map_beside_sum [n] (xs: [n]f64) (c: f64) : ([n]f64, f64) =
  let d = 1 / f64.sum xs
  let scaled = map (* c) xs
  let wsum = f64.sum (map (\x -> x * d * c * 7 / 2) xs)
  in (scaled, wsum)
