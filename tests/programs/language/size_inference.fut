-- Sizes that appear only in a result type come from each use; sizes are read off a product
-- in a coerced argument's type.
-- ==
-- input { 3i64 } output { [0i64, 1i64, 2i64, 3i64, 4i64, 5i64] [7, 7, 7, 7, 7, 7] }

def indices [n] : [n]i64 = iota n

entry main (x: i64) = unzip (zip indices (replicate (2 * x) 7i32))

-- ==
-- entry: halves
-- input { [1i64, 2i64, 3i64, 4i64] } output { [[1i64, 2i64], [3i64, 4i64]] }
-- input { [1i64, 2i64, 3i64, 4i64, 5i64] } error: cannot match shape

entry halves [n] (a: [n]i64) : [][]i64 = unflatten (a :> [2 * (n / 2)]i64)

-- A sized constant at two different sizes, and at a size given by an implicit size
-- parameter (`[][]f64`).
-- ==
-- entry: zeros_twice
-- input { [1.0, 2.0] [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] }
-- output { [1.0, 2.0] [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] }

def zeros [n] : [n]f64 = replicate n 0

def add_zeros (rows: [][]f64) = map (map2 (+) zeros) rows

entry zeros_twice [n] (xs: [n]f64) (ys: [][]f64) = (map2 (+) xs zeros, add_zeros ys)

-- The derivative through a sized constant.
-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] } output { [2.0, 4.0, 6.0] }

def ones [n] : [n]f64 = replicate n 1

entry grad [n] (xs: [n]f64) = vjp (\v -> f64.sum (map2 (*) ones (map (\x -> x * x) v))) xs 1.0

-- A sized constant at the implicit size of an entry point's `[]` parameter.
-- ==
-- entry: implicit
-- input { [1.0, 2.0] } output { [1.0, 2.0] }

entry implicit (xs: []f64) = map2 (+) xs zeros
