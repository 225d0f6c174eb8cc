-- Random inputs; the entry points check properties themselves.
-- ==
-- entry: rev_rev
-- random input { [100]i32 } output { true }
-- random input { [0]i32 } output { true }

entry rev_rev [n] (xs: [n]i32) = and (map2 (==) (reverse (reverse xs)) xs)

-- ==
-- entry: sum_reversed
-- random input { [1000]i64 } output { true }

entry sum_reversed (xs: []i64) = reduce (+) 0 xs == reduce (+) 0 (reverse xs)

-- ==
-- entry: unit_interval
-- "floats" random input { [500]f32 } output { true }

entry unit_interval (xs: []f32) = all (\x -> x >= 0 && x <= 1) xs

-- ==
-- entry: with_constants
-- random input { [10][3]f64 2.5f64 7i64 } output { true }
-- compiled random input { [20][3]f64 2.5f64 7i64 } output { false }

entry with_constants [n] [m] (xs: [n][m]f64) (c: f64) (k: i64) = n == 10 && m == 3 && c == 2.5 && k == 7

-- ==
-- entry: any_bool
-- random input { [64]u8 }

entry any_bool (xs: []u8) = map (\x -> x + 1) xs
