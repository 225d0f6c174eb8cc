-- An if inside a map: each element takes its own branch (ReLU, abs-like and a piecewise map).

-- ==
-- entry: relu
-- input { [-1.0, 0.0, 1.0, 2.0, -3.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [0.1, 0.2, 3.0, 4.0, 0.5] }
entry relu (xs: [5]f64) (yb: [5]f64) = vjp (map (\t -> if t > 0 then t else 0.1 * t)) xs yb

-- ==
-- entry: piece
-- input { [0.0, 1.0, 2.0, 3.0] 1.5 }
-- output { [1.5, 1.5, 4.0, 6.0] 1.0 }
-- input { [-1.0, 5.0, 1.5, 0.0] 1.5 }
-- output { [1.5, 10.0, 3.0, 1.5] -1.0 }
entry piece (xs: [4]f64) (k: f64) = vjp (\(v, c) -> f64.sum (map (\t -> if t < c then c * t else t * t) v)) (xs, k) 1
