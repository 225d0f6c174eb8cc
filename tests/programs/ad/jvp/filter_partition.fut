-- filter: the selection is not differentiated; tangents flow through the selected elements.
-- ==
-- entry: filtered
-- input { [1.0, -2.0, 3.0, -4.0] [10.0, 20.0, 30.0, 40.0] } output { [10.0, 30.0] }

entry filtered (xs: []f64) (dxs: []f64) = jvp (\v -> filter (> 0) v) xs dxs

-- ==
-- entry: filtered_sum
-- input { [1.0, -2.0, 3.0] } output { 8.0 }

entry filtered_sum (xs: []f64) = jvp (\v -> f64.sum (map (\e -> e * e) (filter (> 0) v))) xs (map (const 1) xs)
