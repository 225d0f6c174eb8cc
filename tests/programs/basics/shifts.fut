-- Shifts: `>>` is arithmetic on signed types and logical on unsigned types; `u32.>>` is
-- arithmetic even for u32; amounts of at least the bit width give 0 (or copies of the sign).
-- ==
-- input { -16 2 } output { -4 -64 }
-- input { 1 32 } output { 0 0 }

entry main (x: i32) (k: i32) = (x >> k, x << k)

-- ==
-- entry: ushift
-- input { 0x80000000u32 } output { 1073741824u32 3221225472u32 }

entry ushift (x: u32) = (x >> 1, x u32.>> 1)

-- ==
-- entry: bits
-- input { 12 10 } output { 8 14 6 -13 }

entry bits (a: i32) (b: i32) = (a & b, a | b, a ^ b, !a)
