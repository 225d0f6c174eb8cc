-- head, last, tail, init, take, drop, null, indices and split.
-- ==
-- input { [1, 2, 3, 4, 5] }
-- output { 1 5 [2, 3, 4, 5] [1, 2, 3, 4] [1, 2] [3, 4, 5] false [0i64, 1, 2, 3, 4] }

entry main (xs: []i32) = (head xs, last xs, tail xs, init xs, take 2 xs, drop 2 xs, null xs, indices xs)

-- ==
-- entry: splits
-- input { [1, 2, 3, 4, 5] } output { [1, 2] [3, 4, 5] }

entry splits (xs: [5]i32) = split (xs :> [2 + 3]i32)
