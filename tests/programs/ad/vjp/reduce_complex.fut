-- reduce with complex multiplication as a tuple operator.

def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)

-- ==
-- entry: grad
-- input { [1.0, 0.5, 2.0] [2.0, -1.0, 0.5] 1.0 0.0 }
-- output { [1.5, 1.0, 2.5] [1.75, -4.5, 0.0] }
-- input { [1.0, 0.5, 2.0] [2.0, -1.0, 0.5] 0.0 1.0 }
-- output { [-1.75, 4.5, 0.0] [1.5, 1.0, 2.5] }
-- input { [0.0, 0.0, 1.0] [0.0, 1.0, 0.0] 1.0 1.0 }
-- output { [1.0, 0.0, 0.0] [-1.0, 0.0, 0.0] }
entry grad (re: [3]f64) (im: [3]f64) (rb: f64) (ib: f64) = vjp (\(r, i) -> reduce cmul (1, 0) (zip r i)) (re, im) (rb, ib)
