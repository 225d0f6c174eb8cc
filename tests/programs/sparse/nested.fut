-- Sparse Jacobians and Hessians inside `map`, of functions closing over the mapped value.

import "check"

def f [n] (a: f64) (x: [n]f64) : [n]f64 = map2 (\u v -> a * u * v) x (rotate 1 x)

-- ==
-- entry: check
-- random input { [4]f64 [7]f64 } output { true }
entry check [n] [k] (as: [k]f64) (x: [n]f64) : bool =
  and (map (\a -> check_jacobian (f a) x) as)
  && and (map (\a -> check_hessian (\y -> f64.sum (f a y)) x) as)

-- The values of each Jacobian in one array: the patterns agree, so the values have one size.
-- ==
-- entry: values
-- input { [1.0, 2.0] [1.0, 2.0, 3.0] }
-- output { [[2.0, 1.0, 3.0, 2.0, 3.0, 1.0], [4.0, 2.0, 6.0, 4.0, 6.0, 2.0]] }
entry values [n] [k] (as: [k]f64) (x: [n]f64) : [k][]f64 =
  let m = length (sparse_jacobian (f as[0]) x).0
  in map (\a -> sized m (sparse_jacobian (f a) x).0) as
