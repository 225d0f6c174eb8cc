-- reduce with max: the whole cotangent goes to the first element equal to the maximum, also for
-- integers and for a max of a map.

-- ==
-- entry: maximum
-- input { [3.0, 5.0, 2.0, 5.0, 1.0] }
-- output { [0.0, 1.0, 0.0, 0.0, 0.0] }
-- input { [2.0, 2.0, 2.0, 2.0, 2.0] }
-- output { [1.0, 0.0, 0.0, 0.0, 0.0] }
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [0.0, 0.0, 0.0, 0.0, 1.0] }
-- input { [-5.0, -1.0, -1.0, -2.0, -3.0] }
-- output { [0.0, 1.0, 0.0, 0.0, 0.0] }
entry maximum (xs: [5]f64) = vjp f64.maximum xs 1

-- ==
-- entry: reduce_max
-- input { [1.0, 4.0, 4.0, 0.0] }
-- output { [0.0, 2.0, 0.0, 0.0] }
-- input { [7.0, 1.0, 2.0, 3.0] }
-- output { [2.0, 0.0, 0.0, 0.0] }
entry reduce_max (xs: [4]f64) = vjp (\v -> reduce f64.max (-f64.inf) v * 2) xs 1

-- ==
-- entry: ints
-- input { [1, 9, 9, 2] }
-- output { [0, 5, 0, 0] }
-- input { [-3, -4, -5, -3] }
-- output { [5, 0, 0, 0] }
entry ints (xs: [4]i32) = vjp i32.maximum xs 5

-- ==
-- entry: softmax_stable
-- input { [1.0, 2.0, 3.0, 3.0] }
-- output { [0.05406459218899647, 0.14696279851039795, 0.39948630465030277, 0.39948630465030277] }
-- input { [0.0, 0.0, 0.0, 0.0] }
-- output { [0.25, 0.25, 0.25, 0.25] }
-- input { [-1.0, 5.0, 2.0, 0.5] }
-- output { [0.002331023959610484, 0.9404021836283157, 0.0468198678095915, 0.010446924602482465] }
entry softmax_stable (xs: [4]f64) = vjp (\v -> let m = f64.maximum v in m + f64.log (f64.sum (map (\t -> f64.exp (t - m)) v))) xs 1

-- ==
-- entry: max_plus_map
-- input { [1.0, 4.0, 4.0, 0.0] }
-- output { [3.0, 4.0, 3.0, 3.0] }
-- input { [2.0, 2.0, 2.0, 2.0] }
-- output { [4.0, 3.0, 3.0, 3.0] }
-- input { [-7.0, -8.0, -1.5, -9.0] }
-- output { [3.0, 3.0, 4.0, 3.0] }
entry max_plus_map (xs: [4]f64) = vjp (\v -> f64.maximum v + f64.sum (map (\t -> 3 * t) v)) xs 1
