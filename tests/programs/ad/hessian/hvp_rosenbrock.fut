-- Hessian-vector products of the Rosenbrock function, forward-over-reverse and
-- reverse-over-forward; both must agree with the exact Hessian times v.

def rosen [n] (x: [n]f64) : f64 =
  f64.sum (tabulate (n - 1) (\i -> 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2))

-- ==
-- entry: fwd_rev
-- input { [1.0, 1.0, 1.0] [1.0, 0.0, 0.0] }
-- output { [802.0, -400.0, 0.0] }
-- input { [-1.2, 1.0, 0.5, 2.0] [1.0, -1.0, 0.5, 2.0] }
-- output { [850.0, -922.0, -149.0, 300.0] }
-- input { [0.0, 0.0] [0.0, 1.0] }
-- output { [0.0, 200.0] }
entry fwd_rev [n] (x: [n]f64) (v: [n]f64) = jvp (\y -> vjp rosen y 1) x v

-- ==
-- entry: rev_fwd
-- input { [1.0, 1.0, 1.0] [1.0, 0.0, 0.0] }
-- output { [802.0, -400.0, 0.0] }
-- input { [-1.2, 1.0, 0.5, 2.0] [1.0, -1.0, 0.5, 2.0] }
-- output { [850.0, -922.0, -149.0, 300.0] }
-- input { [0.0, 0.0] [0.0, 1.0] }
-- output { [0.0, 200.0] }
entry rev_fwd [n] (x: [n]f64) (v: [n]f64) = vjp (\y -> jvp rosen y v) x 1

-- ==
-- entry: grad
-- input { [1.0, 1.0, 1.0] }
-- output { [0.0, 0.0, 0.0] }
-- input { [-1.2, 1.0, 0.5, 2.0] }
-- output { [-215.59999999999997, 112.00000000000001, -451.0, 350.0] }
-- input { [0.0, 0.0] }
-- output { [-2.0, 0.0] }
entry grad [n] (x: [n]f64) = vjp rosen x 1
