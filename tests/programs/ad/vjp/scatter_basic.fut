-- scatter: the winning (last) write to a position gets its cotangent; overwritten and
-- out-of-range writes get 0; the destination gets the cotangent with written positions zeroed.

-- ==
-- entry: grad
-- input { [0.0, 0.0, 0.0, 0.0] [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 0.0, 3.0, 0.0] [0.0, 4.0, 2.0, 0.0, 0.0] }
-- input { [1.0, 1.0, 1.0, 1.0] [1.0, 1.0, 1.0, 1.0, 1.0] [10.0, 20.0, 30.0, 40.0] }
-- output { [10.0, 0.0, 30.0, 0.0] [0.0, 40.0, 20.0, 0.0, 0.0] }
entry grad (dest: [4]f64) (vs: [5]f64) (yb: [4]f64) = vjp (\(d, v) -> scatter (copy d) [1, 3, 1, 9, -1] v) (dest, vs) yb

-- ==
-- entry: indices
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [4i64, 4i64, 4i64, 0i64] [1.0, 2.0, 3.0, 4.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [0.0, 2.0, 3.0, 4.0, 0.0] [0.0, 0.0, 5.0, 1.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [5i64, -1i64, 100i64, 2i64] [1.0, 2.0, 3.0, 4.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [1.0, 2.0, 0.0, 4.0, 5.0] [0.0, 0.0, 0.0, 3.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [0i64, 1i64, 2i64, 3i64] [1.0, 2.0, 3.0, 4.0] [1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [0.0, 0.0, 0.0, 0.0, 1.0] [1.0, 1.0, 1.0, 1.0] }
entry indices (dest: [5]f64) (is: [4]i64) (vs: [4]f64) (yb: [5]f64) = vjp (\(d, v) -> scatter (copy d) is v) (dest, vs) yb
