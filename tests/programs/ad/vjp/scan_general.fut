-- scan with general operators: affine-map composition (a linear recurrence) and complex products.

def compose (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a2 * a1, a2 * b1 + b2)

-- ==
-- entry: recurrence
-- input { [0.5, 2.0, -1.0, 0.0, 3.0] [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [0.0, 0.0, 4.0, -4.0, 4.0] [1.0, 0.0, 1.0, 4.0, 1.0] }
-- input { [0.5, 2.0, -1.0, 0.0, 3.0] [1.0, 2.0, 3.0, 4.0, 5.0] [0.0, 0.0, 1.0, 0.0, 2.0] }
-- output { [0.0, -1.0, 4.0, -6.0, 8.0] [-2.0, -1.0, 1.0, 6.0, 2.0] }
entry recurrence (as: [5]f64) (bs: [5]f64) (yb: [5]f64) = vjp (\(a, b) -> let (_, q) = unzip (scan compose (1, 0) (zip a b)) in q) (as, bs) yb

def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)

-- ==
-- entry: complex
-- input { [1.0, 0.5, 2.0] [2.0, -1.0, 0.5] }
-- output { [-2.5, 15.0, 2.5] [8.75, -2.5, 5.0] }
entry complex (re: [3]f64) (im: [3]f64) = vjp (\(r, i) -> let (pr, pi) = unzip (scan cmul (1, 0) (zip r i)) in f64.sum pr + 2 * f64.sum pi) (re, im) 1
