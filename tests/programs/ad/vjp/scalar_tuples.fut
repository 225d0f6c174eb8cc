-- Tuples as the input and the output of the differentiated function; the seed is a tuple.

def f (a: f64, b: f64, c: f64) : (f64, f64, f64) = (a * b, b + c * c, a * c - b)

-- ==
-- entry: rev
-- input { 1.0 2.0 3.0 1.0 0.0 0.0 }
-- output { 2.0 1.0 0.0 }
-- input { 1.0 2.0 3.0 0.0 1.0 0.0 }
-- output { 0.0 1.0 6.0 }
-- input { 1.0 2.0 3.0 0.0 0.0 1.0 }
-- output { 3.0 -1.0 1.0 }
-- input { -0.5 2.5 4.0 1.0 -2.0 3.0 }
-- output { 14.5 -5.5 -17.5 }
entry rev (x: f64) (y: f64) (z: f64) (u: f64) (v: f64) (w: f64) = vjp f (x, y, z) (u, v, w)

-- ==
-- entry: nested
-- input { 1.0 2.0 }
-- output { -3.0 6.0 3.0 }
-- input { -3.0 0.5 }
-- output { 2.5 -5.0 4.0 }
entry nested (x: f64) (y: f64) =
  let ((da, db), dc) = vjp (\((a, b), c) -> (a * c, (b - a) * c)) ((x, y), x + y) (1, 2)
  in (da, db, dc)
