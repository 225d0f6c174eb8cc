-- Boolean leaves: cotangent `false` unless passed through `!`; an integer size's cotangent
-- through iota is the sum of the result's cotangents (10.3).

-- ==
-- entry: bool_arg
-- input { 2.0 true }
-- output { 3.0 false }
-- input { 2.0 false }
-- output { 4.0 false }
entry bool_arg (x: f64) (b: bool) = vjp (\(t, c) -> if c then t * 3 else t * t) (x, b) 1

-- ==
-- entry: negate
-- input { true }
-- output { true }
-- input { false }
-- output { true }
entry negate (b: bool) = vjp (\c -> !c) b true

-- ==
-- entry: compare
-- input { 1.0 }
-- output { 0.0 }
-- input { 3.0 }
-- output { 0.0 }
entry compare (x: f64) = vjp (\t -> t < 2) x true

-- ==
-- entry: iota_count
-- input { 5i64 }
-- output { 5i64 }
-- input { 0i64 }
-- output { 0i64 }
-- input { 1i64 }
-- output { 1i64 }
entry iota_count (n: i64) = vjp (\k -> i64.sum (iota k)) n 1

-- ==
-- entry: iota_scaled
-- input { 4i64 }
-- output { 24i64 }
-- input { 1i64 }
-- output { 6i64 }
entry iota_scaled (n: i64) = vjp (\k -> map (* 2) (iota k)) n (replicate n 3)
