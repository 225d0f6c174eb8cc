-- reduce_by_index: the destination is the first contributor of each bin.
-- ==
-- entry: add
-- input { [1.0, 2.0] [0i64, 1i64, 0i64, 7i64] [1.0, 2.0, 3.0, 4.0] [1.0, 1.0] [10.0, 20.0, 30.0, 40.0] }
-- output { [41.0, 21.0] }

entry add [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) (ddest: [k]f64) (dvs: [n]f64) =
  jvp (\(d, v) -> reduce_by_index (copy d) (+) 0 is v) (dest, vs) (ddest, dvs)

-- ==
-- entry: maxi
-- input { [5.0, 0.0] [0i64, 0i64, 1i64] [5.0, 3.0, 4.0] [1.0, 2.0] [10.0, 20.0, 30.0] }
-- output { [1.0, 30.0] }

entry maxi [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) (ddest: [k]f64) (dvs: [n]f64) =
  jvp (\(d, v) -> reduce_by_index (copy d) f64.max f64.lowest is v) (dest, vs) (ddest, dvs)

-- ==
-- entry: mini
-- input { [5.0, 0.0] [0i64, 0i64, 1i64] [5.0, 3.0, 4.0] [1.0, 2.0] [10.0, 20.0, 30.0] }
-- output { [20.0, 2.0] }
-- input { [3.0, 0.0] [0i64, 0i64, 1i64] [5.0, 3.0, 0.0] [1.0, 2.0] [10.0, 20.0, 30.0] }
-- output { [1.0, 2.0] }

entry mini [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) (ddest: [k]f64) (dvs: [n]f64) =
  jvp (\(d, v) -> reduce_by_index (copy d) f64.min f64.highest is v) (dest, vs) (ddest, dvs)

-- ==
-- entry: mul
-- input { [0.0, 2.0] [0i64, 1i64, 1i64] [3.0, 0.0, 5.0] [1.0, 1.0] [1.0, 1.0, 1.0] }
-- output { [3.0, 10.0] }

entry mul [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) (ddest: [k]f64) (dvs: [n]f64) =
  jvp (\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (dest, vs) (ddest, dvs)
