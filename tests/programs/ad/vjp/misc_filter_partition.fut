-- filter and partition: the selection is not differentiated; cotangents flow to the selected
-- elements and the others get 0.

-- ==
-- entry: flt
-- input { [1.0, -2.0, 3.0, 0.0, -1.0, 0.5] }
-- output { [2.0, 0.0, 6.0, 0.0, 0.0, 1.0] }
-- input { [-1.0, -1.0, -1.0, -1.0, -1.0, -1.0] }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0, 0.0] }
entry flt (xs: [6]f64) = vjp (\v -> f64.sum (map (\t -> t * t) (filter (> 0) v))) xs 1

-- ==
-- entry: part
-- input { [0.5, 2.0, 3.0, -1.0, 4.0] }
-- output { [2.0, 12.0, 8.0, 2.0, 6.0] }
-- input { [0.0, 0.0, 0.0, 0.0, 0.0] }
-- output { [2.0, 2.0, 2.0, 2.0, 2.0] }
-- input { [1.0, 2.0, 0.5, 1.0, 3.0] }
-- output { [6.0, 3.0, 2.0, 6.0, 2.0] }
entry part (xs: [5]f64) = vjp (\v -> let (a, b) = partition (\t -> t < 1) v in f64.sum a * 2 + f64.product b) xs 1
