-- reduce_by_index with max and min: on a tie with the destination the destination gets the
-- cotangent; among values the earliest.

-- ==
-- entry: rmax
-- input { [1.0, 5.0, 3.0] [0i64, 1i64, 1i64, 2i64, 7i64] [2.0, 5.0, 6.0, 3.0, 9.0] [1.0, 2.0, 3.0] }
-- output { [0.0, 0.0, 3.0] [1.0, 0.0, 2.0, 0.0, 0.0] }
-- input { [4.0, 0.0, 0.0] [0i64, 0i64, 2i64, 2i64, 2i64] [4.0, 4.0, 1.0, 1.0, -1.0] [1.0, 2.0, 3.0] }
-- output { [1.0, 2.0, 0.0] [0.0, 0.0, 3.0, 0.0, 0.0] }
-- input { [2.0, 2.0, 2.0] [-1i64, 1i64, 1i64, 1i64, 1i64] [7.0, 1.0, 3.0, 3.0, 2.0] [1.0, 1.0, 1.0] }
-- output { [1.0, 0.0, 1.0] [0.0, 0.0, 1.0, 0.0, 0.0] }
entry rmax (dest: [3]f64) (is: [5]i64) (vs: [5]f64) (yb: [3]f64) = vjp (\(d, v) -> reduce_by_index (copy d) f64.max (-f64.inf) is v) (dest, vs) yb

-- ==
-- entry: rmin
-- input { [1.0, 5.0, 3.0] [0i64, 1i64, 1i64, 2i64, 7i64] [2.0, 5.0, 6.0, 3.0, 9.0] [1.0, 2.0, 3.0] }
-- output { [1.0, 2.0, 3.0] [0.0, 0.0, 0.0, 0.0, 0.0] }
-- input { [4.0, 0.0, 0.0] [0i64, 0i64, 2i64, 2i64, 2i64] [4.0, 4.0, 1.0, 1.0, -1.0] [1.0, 2.0, 3.0] }
-- output { [1.0, 2.0, 0.0] [0.0, 0.0, 0.0, 0.0, 3.0] }
-- input { [2.0, 2.0, 2.0] [-1i64, 1i64, 1i64, 1i64, 1i64] [7.0, 1.0, 3.0, 3.0, 2.0] [1.0, 1.0, 1.0] }
-- output { [1.0, 0.0, 1.0] [0.0, 1.0, 0.0, 0.0, 0.0] }
entry rmin (dest: [3]f64) (is: [5]i64) (vs: [5]f64) (yb: [3]f64) = vjp (\(d, v) -> reduce_by_index (copy d) f64.min f64.inf is v) (dest, vs) yb
