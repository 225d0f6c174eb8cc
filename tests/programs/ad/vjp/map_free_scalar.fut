-- map with free scalar variables: the free scalar's cotangent is summed over all elements.

-- ==
-- entry: scale
-- input { [1.0, 2.0, 3.0, 4.0] 2.0 [1.0, 1.0, 1.0, 1.0] }
-- output { [4.0, 8.0, 12.0, 16.0] 46.0 }
-- input { [0.61, 0.62, 0.03, -0.43] -0.5 [0.08, -0.31, -0.26, -0.25] }
-- output { [-0.0488, 0.1922, 0.0078, -0.1075] 0.6041449999999999 }
entry scale (xs: [4]f64) (k: f64) (yb: [4]f64) = vjp (\(a, c) -> map (\t -> c * t * t + c * c) a) (xs, k) yb

-- ==
-- entry: only_free
-- input { [1.0, 2.0, 3.0] 0.5 }
-- output { 2.170398778629761 }
entry only_free (xs: [3]f64) (k: f64) = vjp (\c -> f64.sum (map (\t -> f64.sin (c * t)) xs)) k 1

-- ==
-- entry: two_free
-- input { [1.0, 2.0, 3.0] 2.0 -1.0 }
-- output { 3.0 6.8 }
entry two_free (xs: [3]f64) (a: f64) (b: f64) = vjp (\(p, q) -> f64.sum (map (\t -> p * t + q / (1 + t * t) + p * q) xs)) (a, b) 1
