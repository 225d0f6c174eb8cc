-- Entry points over several element types, ranks and result shapes.

entry row_sums [n] [m] (xss: [n][m]f32) : [n]f32 = map (\r -> f32.sum r) xss

entry stats [n] (xs: [n]f64) : (f64, f64, i64) = (f64.sum xs, f64.maximum xs, n)

entry positive (xs: []i32) : []bool = map (\x -> x > 0) xs

entry count (bs: []bool) : i64 = i64.sum (map (\b -> if b then 1 else 0) bs)

entry shift (xs: []u8) (k: u8) : []u8 = map (\x -> x + k) xs

entry pick (xs: []f64) (i: i64) : f64 = xs[i]

entry both (b: bool) (x: i32) (y: f32) : (bool, i32, f32) = (!b, x + 1, y * 2)

entry cube (n: i64) : [n][n][n]i64 = tabulate_3d n n n (\i j k -> i * 100 + j * 10 + k)

entry take (n: i64) (xs: []f64) : [n]f64 = xs[0:n]
