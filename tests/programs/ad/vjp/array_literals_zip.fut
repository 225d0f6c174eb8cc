-- Array literals built from inputs, zip and unzip, and arrays of tuples.

-- ==
-- entry: lit
-- input { 2.0 3.0 [1.0, 1.0, 1.0] }
-- output { 4.0 3.0 }
-- input { 2.0 3.0 [0.0, 1.0, -2.0] }
-- output { -6.0 -3.0 }
entry lit (a: f64) (b: f64) (yb: [3]f64) = vjp (\(x, y) -> [x, y, x * y]) (a, b) yb

-- ==
-- entry: zipped
-- input { [1.0, 2.0, 3.0] [4.0, 5.0, 6.0] [1.0, 0.0, 1.0] [0.0, 1.0, 1.0] }
-- output { [4.0, 1.0, 7.0] [1.0, 1.0, 4.0] }
entry zipped (xs: [3]f64) (ys: [3]f64) (ub: [3]f64) (vb: [3]f64) =
  vjp (\(a, b) -> unzip (map (\(s, t) -> (s * t, s + t)) (zip a b))) (xs, ys) (ub, vb)

-- ==
-- entry: pairs
-- input { [1.0, 2.0, 3.0] }
-- output { [4.0, 8.0, 12.0] }
entry pairs (xs: [3]f64) = vjp (\a -> let ps = zip a (map (* 2) a) in f64.sum (map (\(s, t) -> s * t) ps)) xs 1
