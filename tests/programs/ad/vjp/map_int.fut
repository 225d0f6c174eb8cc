-- Integer maps in reverse mode, with a free integer scalar: exact cotangents.

-- ==
-- entry: grad
-- input { [1, 2, 3, -4] 3 }
-- output { [7, 13, 19, -23] 30 }
entry grad (xs: [4]i32) (k: i32) = vjp (\(v, c) -> i32.sum (map (\t -> c * t * t + t) v)) (xs, k) 1
