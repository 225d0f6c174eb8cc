-- while loops: the iteration count is not differentiated.
-- ==
-- entry: doubling
-- input { 3.0 } output { 64.0 }
-- input { 50.0 } output { 2.0 }
-- input { 200.0 } output { 1.0 }

entry doubling (x: f64) = jvp (\t -> loop y = t while y < 100 do y * 2) x 1

-- ==
-- entry: counted
-- input { 1.5 } output { 25.62890625 136.6875 }

-- t^8 and 8 t^7
entry counted (x: f64) = jvp2 (\t -> (loop (y, i) = (t, 0) while i < 3 do (y * y, i + 1)).0) x 1

-- ==
-- entry: halving
-- input { 10.0 } output { 0.0625 }

-- 10 -> 5 -> 2.5 -> 1.25 -> 0.625: four halvings
entry halving (x: f64) = jvp (\t -> loop y = t while y > 1 do y / 2) x 1
