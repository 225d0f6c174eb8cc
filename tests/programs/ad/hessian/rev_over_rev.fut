-- Reverse over reverse on arrays: the gradient of the squared norm of a gradient, and vjp of a
-- vjp with a non-trivial outer cotangent.

def f [n] (x: [n]f64) : f64 = f64.sum (map (\t -> f64.tanh t) x) * f64.sum (map (\t -> t * t) x)

-- ==
-- entry: gnorm
-- input { [0.5, -1.0, 2.0] }
-- output { [8.703983543832432, 3.5362994779553816, 40.673915484665784] }
-- input { [0.1, 0.2, 0.3, 0.4] }
-- output { [6.3422454658247025, 7.984050632168996, 9.5243961636934, 10.993796744408638] }
entry gnorm [n] (x: [n]f64) = vjp (\y -> let g = vjp f y 1 in f64.sum (map (\t -> t * t) g)) x 1

-- ==
-- entry: seeded
-- input { [0.5, -1.0, 2.0] [1.0, 0.0, -1.0] }
-- output { [-4.130470530288729, -2.691516841067604, 2.0372821041237783] }
entry seeded [n] (x: [n]f64) (u: [n]f64) = vjp (\y -> vjp f y 1) x u

-- vjp of the vjp of a filter (whose return sweep updates in place inside an if): the sum
-- of the kept squares has the Hessian diag(2 if x² > 0.5 else 0), by hand.
def kept [n] (x: [n]f64) : f64 = f64.sum (filter (> 0.5) (map (\t -> t * t) x))

-- ==
-- entry: kept_hvp
-- input { [0.9, 0.5, 1.2, 0.3, 1.1, -0.95] [1.0, -0.5, 0.25, 2.0, -1.0, 0.5] }
-- output { [2.0, 0.0, 0.5, 0.0, -2.0, 1.0] }
entry kept_hvp [n] (x: [n]f64) (u: [n]f64) = vjp (\y -> vjp kept y 1) x u
