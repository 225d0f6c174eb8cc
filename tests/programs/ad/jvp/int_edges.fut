-- More integer edge points: abs and sgn, negative divisors, mul_hi/set_bit, wrap in division.
-- ==
-- entry: abs_sgn
-- input { 5 } output { 1 0 -1 }
-- input { -5 } output { -1 0 -1 }
-- input { 0 } output { 0 0 -1 }

entry abs_sgn (x: i32) = (jvp i32.abs x 1, jvp i32.sgn x 1, jvp i32.neg x 1)

-- ==
-- entry: neg_divisor
-- input { -7 -2 } output { 1 0 }
-- input { 9 -2 } output { -2 0 }
-- input { 9 -1 } output { -9 -1 }

-- partials of x / y: (1 // y, -(x // (y*y)))
entry neg_divisor (x: i32) (y: i32) = (jvp (\b -> x / b) y 1, jvp (\a -> a // y) x 1)

-- ==
-- entry: lowest
-- input { -2147483648 } output { -2147483648 -1 }

-- d(x / -1) = 1 // -1 = -1 per unit of tangent; with tangent lowest, -lowest wraps to lowest
entry lowest (x: i32) = (jvp (\a -> a / -1) x x, jvp (\a -> a / -1) x 1)

-- ==
-- entry: bit_functions
-- input { 12 } output { 0 0 0 }

entry bit_functions (x: i32) =
  (jvp (\t -> i32.mul_hi t t) x 1, jvp (\t -> i32.set_bit 0 t 1) x 1, jvp (\t -> i32.mad_hi t t 5) x 1)

-- ==
-- entry: unsigned_sub
-- input { 1u32 } output { 4294967295u32 }

entry unsigned_sub (x: u32) = jvp (\t -> 5 - t) x 1
