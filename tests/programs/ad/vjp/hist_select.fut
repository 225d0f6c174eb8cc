-- Reverse mode of histograms whose operator picks a side by comparing the first components
-- and carries the other components of that side along: what `jvp` makes of a max `hist`
-- (reverse over forward), and an arg-max written by hand. Every component's adjoint goes to
-- the contribution that won its bin (the earlier one on ties, as the operator decides), or
-- to the destination when nothing beat it. Expected values by hand.

def tangent_max [n] (is: [n]i64) (vs: [n]f64) (dvs: [n]f64) =
  jvp (hist f64.max f64.lowest 3 is) vs dvs

-- ==
-- entry: rev_fwd_max
-- input { [0i64, 2i64, 5i64, 2i64, 0i64] [1.0, 2.0, 3.0, 2.0, 0.5] [0.5, 0.5, 0.5, 0.5, 0.5] [1.0, 10.0, 100.0] }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0] [1.0, 100.0, 0.0, 0.0, 0.0] }
entry rev_fwd_max [n] (is: [n]i64) (vs: [n]f64) (dvs: [n]f64) (u: [3]f64) =
  vjp (\(a, b) -> tangent_max is a b) (vs, dvs) u

-- ==
-- entry: rev_fwd_rbi
-- input { [1.5, 0.0, 7.0] [0i64, 2i64, 5i64, 2i64, 0i64] [1.0, 2.0, 3.0, 9.0, 0.5] [1.0, 10.0, 100.0] }
-- output { [0.0, 0.0, 0.0] [0.0, 0.0, 0.0, 1000.0, 0.0] }
entry rev_fwd_rbi [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) (u: [k]f64) =
  vjp (\(d, v) -> jvp (\(d, v) -> reduce_by_index (copy d) (\a b -> if a >= b then a else b) f64.lowest is v)
                      (d, v) (replicate k 1, map (* 10) v))
      (dest, vs) u

-- ==
-- entry: argmax_payload
-- input { [0i64, 2i64, 5i64, 2i64, 0i64] [1.0, 2.0, 3.0, 2.0, 0.5] [10.0, 20.0, 30.0, 40.0, 50.0] [1.0, 2.0, 3.0] [0.5, 0.25, 4.0] }
-- output { [1.0, 3.0, 0.0, 0.0, 0.0] [0.5, 4.0, 0.0, 0.0, 0.0] }
entry argmax_payload [n] (is: [n]i64) (vs: [n]f64) (ps: [n]f64) (um: [3]f64) (uq: [3]f64) =
  vjp (\(v, p) -> unzip (hist (\(a, x) (b, y) -> if a >= b then (a, x) else (b, y)) (f64.lowest, 0) 3 is (zip v p)))
      (vs, ps) (um, uq)
