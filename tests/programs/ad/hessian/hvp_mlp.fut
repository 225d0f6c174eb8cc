-- Hessian-vector product of a small tanh network's squared error in its first-layer weights.

def mv [n] [m] (a: [n][m]f64) (x: [m]f64) : [n]f64 = map (\r -> f64.sum (map2 (*) r x)) a

def loss [b] [h] [d] (xs: [b][d]f64) (ys: [b]f64) (w2: [h]f64) (w1: [h][d]f64) : f64 =
  f64.sum (map2 (\x y -> let o = f64.sum (map2 (*) w2 (map f64.tanh (mv w1 x))) in (o - y) * (o - y)) xs ys)

-- ==
-- entry: hvp
-- input { [[-0.48, -0.4], [0.63, -0.82], [0.2, 0.46]] [-0.83, -0.53, 0.6] [0.89, 0.02, 0.95] [[0.61, 0.62], [0.03, -0.43], [-0.89, -0.23]] [[0.08, -0.31], [-0.26, -0.25], [0.97, 0.27]] }
-- output { [[0.8848191945430678, -0.6145522912400899], [0.022437491941427124, -0.0065507949275554695], [0.6009046800455474, -0.8282103143044625]] }
entry hvp [b] [h] [d] (xs: [b][d]f64) (ys: [b]f64) (w2: [h]f64) (w1: [h][d]f64) (v: [h][d]f64) = jvp (\w -> vjp (loss xs ys w2) w 1) w1 v
