-- Logistic regression: mean negative log-likelihood and its gradient in the weights and the
-- bias (docs/language.md §A complete example and random data).

def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)

def sigmoid (z: f64) : f64 = 1 / (1 + f64.exp (-z))

def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64, b: f64) : f64 =
  let ps = map (\xs -> sigmoid (dot xs w + b)) xss
  let terms = map2 (\p y -> -(y * f64.log p + (1 - y) * f64.log (1 - p))) ps ys
  in f64.sum terms / f64.i64 m

-- ==
-- entry: grad
-- input { [[1.0, 0.0], [0.0, 1.0]] [1.0, 0.0] [0.0, 0.0] 0.0 }
-- output { [-0.25, 0.25] 0.0 }
-- input { [[0.02, 0.9, -0.71], [0.9, -0.38, -0.15], [0.66, -0.18, 0.1], [-0.94, 0.51, 0.08], [-0.34, 0.58, -0.39], [-0.09, -0.73, -0.19]] [1.0, 0.0, 0.0, 1.0, 1.0, 0.0] [0.5, -0.25, 1.0] 0.1 }
-- output { [0.2846914909652308, -0.33888695274681846, 0.09520414224493563] -0.028651411591327114 }
entry grad [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (b: f64) = vjp (loss xss ys) (w, b) 1
