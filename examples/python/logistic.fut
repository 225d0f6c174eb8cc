-- Logistic regression with an L2 penalty: the mean negative log-likelihood of labels ys
-- (0 or 1) for the rows of xss under weights w, its gradient (reverse mode), and predictions.

def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)

-- log(1 + exp z) without overflow for large z
def softplus (z: f64) : f64 = if z > 0 then z + f64.log1p (f64.exp (-z)) else f64.log1p (f64.exp z)

def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (penalty: f64) (w: [n]f64) : f64 =
  -- -log sigmoid(z) = softplus(-z) and -log(1 - sigmoid(z)) = softplus(z)
  let terms = map2 (\xs y -> let z = dot xs w in y * softplus (-z) + (1 - y) * softplus z) xss ys
  in f64.sum terms / f64.i64 m + 0.5 * penalty * dot w w

entry objective [m] [n] (xss: [m][n]f64) (ys: [m]f64) (penalty: f64) (w: [n]f64) : f64 =
  loss xss ys penalty w

entry gradient [m] [n] (xss: [m][n]f64) (ys: [m]f64) (penalty: f64) (w: [n]f64) : [n]f64 =
  vjp (loss xss ys penalty) w 1

entry predict [m] [n] (xss: [m][n]f64) (w: [n]f64) : [m]bool =
  map (\xs -> dot xs w > 0) xss
