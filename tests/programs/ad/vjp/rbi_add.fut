-- reduce_by_index with +: the destination and the values both get cotangents.

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0, 4.0] [0i64, 3i64, 3i64, 7i64, -2i64] [5.0, 6.0, 7.0, 8.0, 9.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 2.0, 3.0, 4.0] [1.0, 4.0, 4.0, 0.0, 0.0] }
entry grad (dest: [4]f64) (is: [5]i64) (vs: [5]f64) (yb: [4]f64) = vjp (\(d, v) -> reduce_by_index (copy d) (+) 0 is v) (dest, vs) yb

-- ==
-- entry: squares
-- input { [1.0, -1.0, 0.5] [0i64, 0i64, 2i64, 3i64] [1.0, 2.0, 3.0, 4.0] }
-- output { [28.0, -8.0, 40.0] [28.0, 56.0, 120.0, 0.0] }
entry squares (dest: [3]f64) (is: [4]i64) (vs: [4]f64) = vjp (\(d, v) -> f64.sum (map (\x -> x * x) (reduce_by_index (map (* 2) d) (+) 0 is (map (\t -> t * t) v)))) (dest, vs) 1
