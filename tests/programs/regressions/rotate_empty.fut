-- Rotating an array whose size is the constant 0: the generated C must not take the amount
-- modulo a constant zero (C compilers reject the division by zero even in unreachable code).
-- ==
-- entry: main
-- input { 3i64 }
-- output { empty([0]i64) }

entry main (r: i64) : []i64 =
  let s = 0i64
  in rotate r (replicate s r)
