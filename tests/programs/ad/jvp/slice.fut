-- Slicing, including negative strides and slices of rows.
-- ==
-- entry: reversed
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [10.0, 20.0, 30.0, 40.0, 50.0] }
-- output { [50.0, 40.0, 30.0, 20.0, 10.0] [50.0, 30.0] [20.0, 30.0, 40.0] [10.0, 30.0, 50.0] }

entry reversed (xs: []f64) (dxs: []f64) =
  jvp (\v -> (v[::-1], v[4:0:-2], v[1:4], v[::2])) xs dxs

-- ==
-- entry: products
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 1.0, 1.0, 1.0] } output { [4.0, 6.0] }
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 0.0, 0.0, 0.0] } output { [3.0, 0.0] }

entry products (xs: [4]f64) (dxs: [4]f64) = jvp (\v -> map2 (*) v[0:2] v[2:4]) xs dxs

-- ==
-- entry: columns
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] }
-- output { [3.0, 6.0] [[6.0, 5.0]] }

entry columns (m: [][]f64) =
  jvp (\a -> (a[:, 2], a[1:, ::-1][:, :2])) m (map (map (* 1)) m)

-- ==
-- entry: neg_stride_square
-- input { [1.0, 2.0, 3.0] } output { [6.0, 4.0, 2.0] }

entry neg_stride_square (xs: []f64) = jvp (\v -> map (\t -> t * t) v[::-1]) xs (map (const 1) xs)
