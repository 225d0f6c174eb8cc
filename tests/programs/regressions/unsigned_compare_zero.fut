-- Comparing an unsigned value with zero (`x >= 0u64` is always true): the generated C must
-- compile without warnings (-Wextra warns about comparisons always true for the type).
-- ==
-- entry: main
-- input { 5u64 3u8 }
-- output { true true false false }

entry main (x: u64) (y: u8) : (bool, bool, bool, bool) =
  let a = (loop (a, c) = (x, 0i64) while c < 2 do (a, c + 1)).0
  let b = (loop (b, c) = (y, 0i64) while c < 2 do (b, c + 1)).0
  in (a >= 0u64, 0u8 <= b, a < 0u64, 0u8 > b)
