-- Hessian-vector product of the logistic-regression loss (docs/language.md §A complete example:
-- [0.125, 0] at w = 0), in both nesting orders.

def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)

def sigmoid (z: f64) : f64 = 1 / (1 + f64.exp (-z))

def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) : f64 =
  let ps = map (\xs -> sigmoid (dot xs w)) xss
  let terms = map2 (\p y -> -(y * f64.log p + (1 - y) * f64.log (1 - p))) ps ys
  in f64.sum terms / f64.i64 m

-- ==
-- entry: hvp
-- input { [[1.0, 0.0], [0.0, 1.0]] [1.0, 0.0] [0.0, 0.0] [1.0, 0.0] }
-- output { [0.125, 0.0] }
-- input { [[0.02, 0.9, -0.71], [0.9, -0.38, -0.15], [0.66, -0.18, 0.1], [-0.94, 0.51, 0.08], [-0.34, 0.58, -0.39]] [1.0, 0.0, 1.0, 1.0, 0.0] [0.3, -0.2, 0.5] [1.0, 2.0, -1.0] }
-- output { [0.001925732455705773, 0.1327032725190728, -0.10758560280112589] }
entry hvp [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (v: [n]f64) = jvp (\w' -> vjp (loss xss ys) w' 1) w v

-- ==
-- entry: hvp_rev
-- input { [[1.0, 0.0], [0.0, 1.0]] [1.0, 0.0] [0.0, 0.0] [1.0, 0.0] }
-- output { [0.125, 0.0] }
-- input { [[0.02, 0.9, -0.71], [0.9, -0.38, -0.15], [0.66, -0.18, 0.1], [-0.94, 0.51, 0.08], [-0.34, 0.58, -0.39]] [1.0, 0.0, 1.0, 1.0, 0.0] [0.3, -0.2, 0.5] [1.0, 2.0, -1.0] }
-- output { [0.001925732455705773, 0.1327032725190728, -0.10758560280112589] }
entry hvp_rev [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (v: [n]f64) = vjp (\w' -> jvp (loss xss ys) w' v) w 1
