-- Logistic regression: the mean negative log-likelihood of labels ys (0 or 1) for the rows
-- of xss under weights w, and predictions.

def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)

def sigmoid (z: f64) : f64 = 1 / (1 + f64.exp (-z))

def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) : f64 =
  let ps = map (\xs -> sigmoid (dot xs w)) xss
  let terms = map2 (\p y -> -(y * f64.log p + (1 - y) * f64.log (1 - p))) ps ys
  in f64.sum terms / f64.i64 m

-- ==
-- entry: loss_at
-- input { [[1.0, 0.0], [0.0, 1.0]] [1.0, 0.0] [0.0, 0.0] }
-- output { 0.693147 }
-- input @ logistic.in
-- output { 0.247646 }

entry loss_at [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) = loss xss ys w

-- ==
-- entry: predict
-- input @ logistic.in
-- output { [true, false, true, false] }

entry predict [m] [n] (xss: [m][n]f64) (_ys: [m]f64) (w: [n]f64) : [m]bool =
  map (\xs -> sigmoid (dot xs w) > 0.5) xss
