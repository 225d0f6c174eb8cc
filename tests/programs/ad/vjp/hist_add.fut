-- hist with +: each value gets its bin's cotangent; out-of-range indices (negative or >= k) get 0.

-- ==
-- entry: grad
-- input { [0i64, 1i64, 1i64, 3i64, -1i64, 4i64] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [1.0, 2.0, 2.0, 4.0, 0.0, 0.0] }
-- input { [2i64, 2i64, 2i64, 2i64, 2i64, 9i64] [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [3.0, 3.0, 3.0, 3.0, 3.0, 0.0] }
entry grad (is: [6]i64) (vs: [6]f64) (yb: [4]f64) = vjp (\v -> hist (+) 0 4 is v) vs yb

-- ==
-- entry: of_map
-- input { [0i64, 2i64, 0i64, 5i64, 1i64] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [40.0, 32.0, 120.0, 0.0, 500.0] }
entry of_map (is: [5]i64) (vs: [5]f64) = vjp (\v -> let h = hist (+) 0 3 is (map (\t -> t * t) v) in f64.sum (map (\x -> x * x) h)) vs 1

-- ==
-- entry: free
-- input { [0i64, 1i64, 2i64, -5i64] [1.0, 2.0, 3.0, 4.0] 2.0 }
-- output { 3.0 }
entry free (is: [4]i64) (vs: [4]f64) (k: f64) = vjp (\c -> f64.sum (hist (+) 0 2 is (map (* c) vs))) k 1
