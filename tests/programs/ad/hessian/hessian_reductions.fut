-- Hessian-vector products through reduce with *, logsumexp, scan with + and hist with + (hist both
-- forward over reverse and reverse over forward).

-- ==
-- entry: prod
-- input { [1.0, 2.0, 3.0] [1.0, 1.0, 1.0] }
-- output { [5.0, 4.0, 3.0] }
-- input { [0.0, 2.0, 3.0, 4.0] [1.0, 0.0, 0.0, 1.0] }
-- output { [6.0, 12.0, 8.0, 6.0] }
-- input { [0.0, 0.0, 3.0] [1.0, 1.0, 1.0] }
-- output { [3.0, 3.0, 0.0] }
entry prod [n] (x: [n]f64) (v: [n]f64) = jvp (\y -> vjp f64.product y 1) x v

def lse [n] (x: [n]f64) : f64 = let m = f64.maximum x in m + f64.log (f64.sum (map (\t -> f64.exp (t - m)) x))

-- ==
-- entry: logsumexp
-- input { [1.0, 2.0, 3.0] [1.0, 0.0, 0.0] }
-- output { [0.08192506906499324, -0.022033044520174298, -0.05989202454481894] }
-- input { [0.0, 0.0, 0.0, 0.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [-0.375, -0.125, 0.125, 0.375] }
entry logsumexp [n] (x: [n]f64) (v: [n]f64) = jvp (\y -> vjp lse y 1) x v

-- ==
-- entry: scan_sq
-- input { [1.0, -1.0, 2.0] [1.0, 1.0, 1.0] }
-- output { [42.0, 36.0, 36.0] }
entry scan_sq [n] (x: [n]f64) (v: [n]f64) = jvp (\y -> vjp (\a -> f64.sum (map (\t -> t * t * t) (scan (+) 0 a))) y 1) x v

-- ==
-- entry: hist_sq
-- input { [1.0, 2.0, 3.0, 4.0] [0i64, 1i64, 1i64, 5i64] [1.0, 1.0, 1.0, 1.0] }
-- output { [2.0, 4.0, 4.0, 0.0] }
entry hist_sq [n] (x: [n]f64) (is: [n]i64) (v: [n]f64) = jvp (\y -> vjp (\a -> f64.sum (map (\t -> t * t) (hist (+) 0 2 is a))) y 1) x v

-- ==
-- entry: hist_sq_rev_fwd
-- input { [1.0, 2.0, 3.0, 4.0] [0i64, 1i64, 1i64, 5i64] [1.0, 1.0, 1.0, 1.0] }
-- output { [2.0, 4.0, 4.0, 0.0] }
-- input { [0.5, -1.5, 2.5] [1i64, -1i64, 1i64] [2.0, 1.0, -1.0] }
-- output { [2.0, 0.0, 2.0] }
entry hist_sq_rev_fwd [n] (x: [n]f64) (is: [n]i64) (v: [n]f64) = vjp (\y -> jvp (\a -> f64.sum (map (\t -> t * t) (hist (+) 0 2 is a))) y v) x 1
