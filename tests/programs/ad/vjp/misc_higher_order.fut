-- Higher-order helpers inside the differentiated function: a function parameter applied to
-- array elements, a function returned by a function, and vjp of a partially applied helper.

def apply_twice (f: f64 -> f64) (x: f64) : f64 = f (f x)

def scaler (k: f64) : f64 -> f64 = \x -> k * x * x

def sum_by [n] (f: f64 -> f64) (xs: [n]f64) : f64 = f64.sum (map f xs)

-- ==
-- entry: twice
-- input { 0.5 }
-- output { 2.924333983043355 }
-- input { 3.0 }
-- output { 1.1178070704305234e-09 }
entry twice (x: f64) = vjp (apply_twice (\t -> f64.sin t + t)) x 1

-- ==
-- entry: returned
-- input { 1.5 0.5 }
-- output { 1.6875 3.796875 }
-- input { -1.0 2.0 }
-- output { -32.0 12.0 }
entry returned (x: f64) (k: f64) = vjp (\(t, c) -> apply_twice (scaler c) t) (x, k) 1

-- ==
-- entry: summed
-- input { [0.0, 1.0, -1.0] 0.5 }
-- output { [0.5, 0.8243606353500641, 0.3032653298563167] 1.0421906109874948 }
entry summed (xs: [3]f64) (k: f64) = vjp (\(v, c) -> sum_by (\t -> f64.exp (c * t)) v) (xs, k) 1
