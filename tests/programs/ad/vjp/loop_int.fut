-- Integer loops in reverse mode: exact integer cotangents.

-- ==
-- entry: power
-- input { 2 }
-- output { 80 }
-- input { -3 }
-- output { 405 }
-- input { 200 }
-- output { -589934592 }
entry power (x: i32) = vjp (\t -> loop acc = 1 for _i < 5 do acc * t) x 1

-- ==
-- entry: mix
-- input { 2i64 3i64 }
-- output { 81i64 224i64 }
-- input { -1i64 5i64 }
-- output { 625i64 -488i64 }
entry mix (x: i64) (y: i64) = vjp (\(a, b) -> loop s = a for i < 4 do s * b + i) (x, y) 1
