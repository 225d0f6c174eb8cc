-- while loops: the iteration count depends on the data but is not differentiated.

-- ==
-- entry: doubling
-- input { 1.0 }
-- output { 127.0 }
-- input { 30.0 }
-- output { 7.0 }
-- input { 150.0 }
-- output { 1.0 }
-- input { 7.0 }
-- output { 15.0 }
entry doubling (x: f64) = vjp (\t -> loop y = t while y < 100 do y * 2 + t) x 1

-- ==
-- entry: counted
-- input { 0.5 3i64 }
-- output { 0.01409765625 }
-- input { 1.2 0i64 }
-- output { 1.0 }
-- input { -0.3 5i64 }
-- output { -5.387993439996329e-05 }
entry counted (x: f64) (n: i64) = vjp (\t -> let (y, _) = loop (y, i) = (t, 0) while i < n do (y * y * 0.5 + 0.1, i + 1) in y) x 1

-- ==
-- entry: newton
-- input { 2.0 }
-- output { 0.35355339059327373 }
-- input { 9.0 }
-- output { 0.16666666666666669 }
-- input { 0.5 }
-- output { 0.7071067811865475 }
entry newton (a: f64) = vjp (\c -> let (y, _) = loop (y, k) = (c, 0i32) while k < 6 do (0.5 * (y + c / y), k + 1) in y) a 1

-- ==
-- entry: never
-- input { 1.0 }
-- output { 3.0 }
entry never (x: f64) = vjp (\t -> loop y = t * 3 while y > 1000 do y / 2) x 1
