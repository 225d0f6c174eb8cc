-- tanh, sinh, cosh, the logistic sigmoid and softplus in reverse mode.

def sigmoid (z: f64) = 1 / (1 + f64.exp (-z))

def softplus (z: f64) = f64.log1p (f64.exp z)

-- ==
-- entry: grad
-- input { 0.0 }
-- output { 1.0 }
-- input { 1.0 }
-- output { 0.36102009105104405 }
-- input { -3.0 }
-- output { -0.9377750710742729 }
-- input { 20.0 }
-- output { -2.0611536096934946e-09 }
entry grad (x: f64) = vjp (\t -> f64.tanh t + sigmoid (2 * t) + softplus (-t)) x 1

-- ==
-- entry: hyper
-- input { 0.0 }
-- output { 2.25 }
-- input { 1.5 }
-- output { 4.766705756148678 }
-- input { -2.0 }
-- output { 8.717063584370427 }
entry hyper (x: f64) = vjp (\t -> f64.sinh t * f64.cosh (t / 2) + f64.asinh t + f64.atanh (t / 4)) x 1
