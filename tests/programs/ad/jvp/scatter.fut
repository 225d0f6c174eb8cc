-- scatter: duplicates, last write wins; out-of-range writes are ignored.
-- ==
-- entry: primal
-- input { [0.0, 0.0, 0.0, 0.0] [1.0, 2.0, 3.0, 4.0, 5.0] } output { [0.0, 3.0, 0.0, 2.0] }

entry primal (dest: [4]f64) (vs: [5]f64) = scatter (copy dest) [1, 3, 1, 9, -1] vs

-- ==
-- entry: fwd
-- input { [0.0, 0.0, 0.0, 0.0] [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, 2.0, 3.0, 4.0] [10.0, 20.0, 30.0, 40.0, 50.0] }
-- output { [1.0, 30.0, 3.0, 20.0] }

entry fwd (dest: [4]f64) (vs: [5]f64) (ddest: [4]f64) (dvs: [5]f64) =
  jvp (\(d, v) -> scatter (copy d) [1, 3, 1, 9, -1] v) (dest, vs) (ddest, dvs)

-- ==
-- entry: squares
-- input { [1.0, 2.0, 3.0] [0i64, 2i64] [4.0, 5.0] } output { [8.0, 4.0, 10.0] }

entry squares [k] [n] (dest: [k]f64) (is: [n]i64) (vs: [n]f64) =
  jvp (\(d, v) -> scatter (map (\e -> e * e) d) is (map (\e -> e * e) v)) (dest, vs) (map (const 1) dest, map (const 1) vs)

-- ==
-- entry: ints
-- input { [7, 8] [1i64, 1i64, 0i64] [1, 2, 3] } output { [30, 20] }

entry ints [k] [n] (dest: [k]i32) (is: [n]i64) (vs: [n]i32) =
  jvp (\v -> scatter (copy dest) is v) vs (map (* 10) vs)
