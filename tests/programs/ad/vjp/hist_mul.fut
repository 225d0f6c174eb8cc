-- hist with *: exact gradients with zeros in a bin; out-of-range values get 0.

-- ==
-- entry: grad
-- input { [0i64, 0i64, 1i64, 1i64, 2i64, 3i64] [2.0, 3.0, 4.0, 5.0, 6.0, 7.0] [1.0, 1.0, 1.0] }
-- output { [3.0, 2.0, 5.0, 4.0, 1.0, 0.0] }
-- input { [0i64, 0i64, 1i64, 1i64, 1i64, 0i64] [0.0, 3.0, 0.0, 5.0, 2.0, 4.0] [1.0, 2.0, 3.0] }
-- output { [12.0, 0.0, 20.0, 0.0, 0.0, 0.0] }
-- input { [1i64, 1i64, 1i64, -1i64, 2i64, 2i64] [2.0, 0.0, 5.0, 0.0, 0.0, 0.0] [1.0, 1.0, 1.0] }
-- output { [0.0, 10.0, 0.0, 0.0, 0.0, 0.0] }
entry grad (is: [6]i64) (vs: [6]f64) (yb: [3]f64) = vjp (\v -> hist (*) 1 3 is v) vs yb
