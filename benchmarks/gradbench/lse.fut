-- GradBench `lse`: log-sum-exp with the max trick (`primal`) and its gradient (`gradient`).

def logsumexp [n] (x: [n]f64) : f64 =
  let m = f64.maximum x
  in m + f64.log (f64.sum (map (\a -> f64.exp (a - m)) x))

entry primal [n] (x: [n]f64) : f64 = logsumexp x

-- ==
-- entry: primal
-- input { [0.0, 0.0] }
-- output { 0.6931471805599453 }

entry gradient [n] (x: [n]f64) : [n]f64 = vjp logsumexp x 1

-- ==
-- entry: gradient
-- input { [1.0, 1.0, 1.0, 1.0] }
-- output { [0.25, 0.25, 0.25, 0.25] }
