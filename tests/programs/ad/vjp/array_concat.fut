-- Concatenation: cotangents split back to the parts; an array concatenated with itself sums.

-- ==
-- entry: two
-- input { [1.0, 2.0, 3.0] [4.0, 5.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [1.0, 2.0, 3.0] [12.0, 15.0] }
entry two (xs: [3]f64) (ys: [2]f64) (yb: [5]f64) = vjp (\(a, b) -> a ++ map (* 3) b) (xs, ys) yb

-- ==
-- entry: self
-- input { [1.0, 2.0, 3.0] }
-- output { [6.0, 17.0, 32.0] }
-- input { [-1.0, 0.0, 0.5] }
-- output { [-6.0, 1.0, 7.0] }
entry self (xs: [3]f64) = vjp (\a -> let c = concat a (map (\t -> t * t) a) in f64.sum (map2 (*) c (map f64.i64 (iota 6)))) xs 1

-- ==
-- entry: rows
-- input { [[1.0, 2.0], [3.0, 4.0]] [5.0, 6.0] }
-- output { [[2.0, 1.0], [4.0, 3.0]] [6.0, 5.0] }
entry rows (m: [2][2]f64) (r: [2]f64) = vjp (\(a, b) -> let c = a ++ [b] in f64.sum (map (\row -> row[0] * row[1]) c)) (m, r) 1
