-- Integer leaves have integer cotangents computed exactly with wrap-around (10.3).

-- ==
-- entry: cube
-- input { 3 }
-- output { 27 }
-- input { -2 }
-- output { 12 }
-- input { 0 }
-- output { 0 }
-- input { 100000 }
-- output { -64771072 }
entry cube (x: i32) = vjp (\t -> t * t * t) x 1

-- ==
-- entry: times
-- input { 5 7 }
-- output { 14 }
-- input { 1 1073741829 }
-- output { -2147483638 }
entry times (x: i32) (y: i32) = vjp (\t -> t * y) x 2

-- ==
-- entry: poly64
-- input { 2i64 }
-- output { 15i64 }
-- input { -5i64 }
-- output { -111i64 }
-- input { 1000000000000000000i64 }
-- output { -446744073709551637i64 }
entry poly64 (x: i64) = vjp (\t -> 3 * t * t - 7 * t + 11) x 3

-- ==
-- entry: div_mod
-- input { 7 2 }
-- output { 1 -1 }
-- input { 7 1 }
-- output { 2 -7 }
-- input { -9 2 }
-- output { 1 2 }
-- input { 20 -3 }
-- output { 1 -2 }
entry div_mod (x: i32) (y: i32) = vjp (\(a, b) -> a / b + a % b) (x, y) 1

-- ==
-- entry: ipow
-- input { 2 }
-- output { 32 }
-- input { -3 }
-- output { -108 }
-- input { 0 }
-- output { 0 }
-- input { 1000 }
-- output { -294967296 }
entry ipow (x: i32) = vjp (\t -> t ** 4) x 1
