-- reduce with *: exact gradients with no, one and several zero elements (no division).

-- ==
-- entry: product
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [24.0, 12.0, 8.0, 6.0] }
-- input { [0.0, 2.0, 0.0, 4.0] }
-- output { [0.0, 0.0, 0.0, 0.0] }
-- input { [1.0, 0.0, 3.0, 5.0] }
-- output { [0.0, 15.0, 0.0, 0.0] }
-- input { [0.0, 0.0, 0.0, 0.0] }
-- output { [0.0, 0.0, 0.0, 0.0] }
-- input { [-1.0, 0.5, 2.0, -3.0] }
-- output { [-3.0, 6.0, 1.5, -1.0] }
entry product (xs: [4]f64) = vjp f64.product xs 1

-- ==
-- entry: reduce_times
-- input { [1.0, 0.0, 3.0, 2.0, 1.0] 2.0 }
-- output { [0.0, 12.0, 0.0, 0.0, 0.0] }
-- input { [1.0, 2.0, 3.0, 2.0, 1.0] -1.0 }
-- output { [-12.0, -6.0, -4.0, -6.0, -12.0] }
-- input { [0.0, 2.0, 3.0, 2.0, 0.0] 1.0 }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0] }
entry reduce_times (xs: [5]f64) (k: f64) = vjp (\v -> reduce (*) 1 v) xs k

-- ==
-- entry: of_map
-- input { [2.0, 3.0, 4.0] }
-- output { [6.0, 3.0, 2.0] }
-- input { [1.0, 3.0, 4.0] }
-- output { [6.0, 0.0, 0.0] }
-- input { [1.0, 1.0, 5.0] }
-- output { [0.0, 0.0, 0.0] }
entry of_map (xs: [3]f64) = vjp (\v -> f64.product (map (\t -> t - 1) v)) xs 1

-- ==
-- entry: ints
-- input { [1, 2, 3, 4] }
-- output { [24, 12, 8, 6] }
-- input { [0, 2, 0, 4] }
-- output { [0, 0, 0, 0] }
-- input { [5, 0, 3, 7] }
-- output { [0, 105, 0, 0] }
entry ints (xs: [4]i32) = vjp i32.product xs 1
