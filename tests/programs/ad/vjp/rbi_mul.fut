-- reduce_by_index with *: exact gradients with zeros in the destination and in the values.

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] [0i64, 1i64, 1i64, 2i64, 3i64] [2.0, 3.0, 4.0, 5.0, 6.0] [1.0, 1.0, 1.0] }
-- output { [2.0, 12.0, 5.0] [1.0, 8.0, 6.0, 3.0, 0.0] }
-- input { [0.0, 2.0, 3.0] [0i64, 1i64, 1i64, 2i64, 2i64] [2.0, 0.0, 4.0, 0.0, 0.0] [1.0, 2.0, 3.0] }
-- output { [2.0, 0.0, 0.0] [0.0, 16.0, 0.0, 0.0, 0.0] }
-- input { [2.0, 0.0, 1.0] [1i64, 1i64, -1i64, 0i64, 0i64] [3.0, 5.0, 0.0, 0.0, 7.0] [1.0, 1.0, 1.0] }
-- output { [0.0, 15.0, 1.0] [0.0, 0.0, 0.0, 14.0, 0.0] }
entry grad (dest: [3]f64) (is: [5]i64) (vs: [5]f64) (yb: [3]f64) = vjp (\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (dest, vs) yb
