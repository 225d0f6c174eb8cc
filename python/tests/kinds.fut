-- Entry points over the element types, ranks and result shapes the Python tests call.

entry scale (a: f64) (xs: []f64) : []f64 = map (\x -> a * x) xs

entry row_sums [n] [m] (xss: [n][m]f32) : [n]f32 = map (\r -> f32.sum r) xss

entry stats [n] (xs: [n]f64) : (f64, f64, i64) = (f64.sum xs, f64.maximum xs, n)

entry positive (xs: []i32) : []bool = map (\x -> x > 0) xs

entry count (bs: []bool) : i64 = i64.sum (map (\b -> if b then 1 else 0) bs)

entry shift (xs: []u8) (k: u8) : []u8 = map (\x -> x + k) xs

entry pick (xs: []f64) (i: i64) : f64 = xs[i]

entry both (b: bool) (x: i32) (y: f32) : (bool, i32, f32) = (!b, x + 1, y * 2)

entry outer [n] [m] (xs: [n]f64) (ys: [m]f64) : [n][m]f64 =
  map (\x -> map (\y -> x * y) ys) xs

entry cube_sum (xsss: [][][]i64) : i64 = i64.sum (map (\xss -> i64.sum (map i64.sum xss)) xsss)

-- sum of sin(x) * x over the elements, and its gradient by reverse mode
def f [n] (xs: [n]f64) : f64 = f64.sum (map (\x -> f64.sin x * x) xs)

entry value [n] (xs: [n]f64) : f64 = f xs

entry gradient [n] (xs: [n]f64) : [n]f64 = vjp f xs 1
