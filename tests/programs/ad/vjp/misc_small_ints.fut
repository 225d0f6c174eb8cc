-- Reverse mode on i8, i16, u8 and u32 leaves: exact cotangents with wrap-around.

-- ==
-- entry: i8sq
-- input { 3i8 }
-- output { 27i8 }
-- input { -7i8 }
-- output { -109i8 }
-- input { 10i8 }
-- output { 44i8 }
entry i8sq (x: i8) = vjp (\t -> t * t * t) x 1

-- ==
-- entry: i16poly
-- input { 4i16 }
-- output { 117i16 }
-- input { -300i16 }
-- output { -9003i16 }
-- input { 2000i16 }
-- output { -5539i16 }
entry i16poly (x: i16) = vjp (\t -> 5 * t * t - t) x 3

-- ==
-- entry: u8prod
-- input { 3u8 5u8 }
-- output { 25u8 30u8 }
-- input { 200u8 100u8 }
-- output { 16u8 64u8 }
entry u8prod (x: u8) (y: u8) = vjp (\(a, b) -> a * b * b) (x, y) 1

-- ==
-- entry: u32sum
-- input { [1u32, 2u32, 3000000000u32] }
-- output { [2u32, 4u32, 1705032704u32] }
entry u32sum (xs: [3]u32) = vjp (\v -> u32.sum (map (\t -> t * t) v)) xs 1
