-- `for x in xs` loops: each element is read once; an accumulator mixing state and element.

-- ==
-- entry: sumsq
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [2.0, 4.0, 6.0, 8.0, 10.0] }
entry sumsq (xs: [5]f64) = vjp (\v -> loop s = 0 for e in v do s + e * e) xs 1

-- ==
-- entry: horner_like
-- input { [1.0, 2.0, 3.0, 4.0] 2.0 }
-- output { [8.0, 4.0, 2.0, 1.0] 23.0 }
-- input { [0.5, 0.0, -1.0, 3.0] -1.5 }
-- output { [-3.375, 2.25, -1.5, 1.0] 2.375 }
entry horner_like (xs: [4]f64) (x: f64) = vjp (\(v, t) -> loop s = 0 for e in v do s * t + e) (xs, x) 1

-- ==
-- entry: maxrun
-- input { [1.0, -1.0, 2.0, 0.5, 3.0] }
-- output { [0.25, 0.0, 0.5, 0.0, 1.0] }
-- input { [-1.0, -2.0, -3.0, -4.0, -5.0] }
-- output { [0.0, 0.0, 0.0, 0.0, 0.0] }
-- input { [2.0, 1.0, 0.0, 2.0, 0.0] }
-- output { [0.5, 0.0, 0.0, 1.0, 0.0] }
entry maxrun (xs: [5]f64) = vjp (\v -> loop s = 0 for e in v do f64.max s (s * 0.5 + e)) xs 1
