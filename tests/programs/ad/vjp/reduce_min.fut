-- reduce with min: the whole cotangent goes to the first element equal to the minimum.

-- ==
-- entry: minimum
-- input { [3.0, 1.0, 2.0, 1.0, 5.0] }
-- output { [0.0, 1.0, 0.0, 0.0, 0.0] }
-- input { [1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [1.0, 0.0, 0.0, 0.0, 0.0] }
-- input { [5.0, 4.0, 3.0, 2.0, 1.0] }
-- output { [0.0, 0.0, 0.0, 0.0, 1.0] }
-- input { [-1.0, 2.0, -1.0, -3.0, -3.0] }
-- output { [0.0, 0.0, 0.0, 1.0, 0.0] }
entry minimum (xs: [5]f64) = vjp f64.minimum xs 1

-- ==
-- entry: reduce_min
-- input { [2.0, 2.0, 3.0, 4.0] 2.0 }
-- output { [2.0, 0.0, 0.0, 0.0] }
-- input { [4.0, 3.0, 2.0, 2.0] -1.0 }
-- output { [-0.0, -0.0, -1.0, -0.0] }
entry reduce_min (xs: [4]f64) (k: f64) = vjp (\v -> reduce f64.min f64.inf v) xs k

-- ==
-- entry: of_map
-- input { [2.0, -1.0, 1.0, 3.0] }
-- output { [0.0, -2.0, 0.0, 0.0] }
-- input { [3.0, 0.5, -0.5, 2.0] }
-- output { [0.0, 1.0, -0.0, 0.0] }
entry of_map (xs: [4]f64) = vjp (\v -> f64.minimum (map (\t -> t * t) v)) xs 1
