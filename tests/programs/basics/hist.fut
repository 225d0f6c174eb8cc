-- hist: out-of-range indices are ignored.
-- ==
-- input { [0i64, 2, 2, 5] [1.0, 2.0, 3.0, 4.0] } output { [1.0, 0.0, 5.0] }

entry main [n] (is: [n]i64) (vs: [n]f64) = hist (+) 0 3 is vs

-- ==
-- entry: hmax
-- input { [1i64, 1, 0, -1, 7] [5, 9, 2, 100, 100] } output { [2, 9] }

entry hmax [n] (is: [n]i64) (vs: [n]i32) = hist i32.max i32.lowest 2 is vs
