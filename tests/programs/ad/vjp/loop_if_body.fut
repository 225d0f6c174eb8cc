-- An if inside the loop body: the branch taken may differ between iterations.

-- ==
-- entry: collatz_like
-- input { 0.5 }
-- output { 0.6290933837890624 }
-- input { 3.0 }
-- output { 0.9324392846362027 }
-- input { 1.2 }
-- output { 0.030692755138652328 }
entry collatz_like (x: f64) = vjp (\t -> loop y = t for i < 12 do if i % 3 == 0 then y * 0.5 else if y > 1 then y - 0.3 * y * y else y + t) x 1

-- ==
-- entry: clip
-- input { [0.1, 0.9, 2.0, -1.0] }
-- output { [3.375, 0.015000000000000003, 0.0010000000000000002, 3.375] }
entry clip (xs: [4]f64) = vjp (\v -> f64.sum (loop a = v for _i < 3 do map (\e -> if e > 1 then 1 + (e - 1) * 0.1 else e * 1.5) a)) xs 1
