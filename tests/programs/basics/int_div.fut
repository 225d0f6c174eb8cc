-- Integer division and remainder on negative operands (docs/language.md §Integer arithmetic):
-- `/` floors, `%` takes the sign of the divisor, `//` truncates, `%%` takes the sign of the
-- dividend.
-- ==
-- input { -7 2 } output { -4 1 -3 -1 }
-- input { 7 -2 } output { -4 -1 -3 1 }
-- input { 7 2 } output { 3 1 3 1 }
-- input { -7 -2 } output { 3 -1 3 -1 }
-- input { 1 0 } error: division by zero

entry main (x: i32) (y: i32) = (x / y, x % y, x // y, x %% y)

-- ==
-- entry: div64
-- input { -9i64 4i64 } output { -3i64 3i64 -2i64 -1i64 }

entry div64 (x: i64) (y: i64) = (x / y, x % y, x // y, x %% y)

-- ==
-- entry: lowest_div
-- input { } output { -2147483648 0 }

entry lowest_div : (i32, i32) = (i32.lowest / -1, i32.lowest % -1)
