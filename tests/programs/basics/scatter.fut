-- scatter: out-of-range indices are ignored and the last duplicate write wins.
-- ==
-- input { } output { [0, 10, 0, 30] }

entry main = scatter (replicate 4 0i32) [1, 3, 9] [10, 30, 90]

-- ==
-- entry: dups
-- input { [0, 0, 0] [1i64, 1, -1, 2] [5, 6, 7, 8] } output { [0, 6, 8] }

entry dups [n] (dest: *[]i32) (is: [n]i64) (vs: [n]i32) = scatter dest is vs
