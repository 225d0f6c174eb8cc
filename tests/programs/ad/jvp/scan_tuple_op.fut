-- scan with a user-defined operator on tuples: the linear recurrence x_i = a_i x_(i-1) + b_i.
def lin (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a1 * a2, b1 * a2 + b2)

-- ==
-- entry: primal
-- input { [0.5, 2.0, -1.0] [1.0, 1.0, 3.0] } output { [0.5, 1.0, -1.0] [1.0, 3.0, 0.0] }

entry primal [n] (a: [n]f64) (b: [n]f64) = unzip (scan lin (1, 0) (zip a b))

-- ==
-- entry: fwd
-- input { [0.5, 2.0, -1.0] [1.0, 1.0, 3.0] [1.0, 0.0, 1.0] [0.0, 1.0, 1.0] }
-- output { [1.0, 2.0, -1.0] [0.0, 1.0, 3.0] }

entry fwd [n] (a: [n]f64) (b: [n]f64) (da: [n]f64) (db: [n]f64) =
  jvp (\(p, q) -> unzip (scan lin (1, 0) (zip p q))) (a, b) (da, db)
