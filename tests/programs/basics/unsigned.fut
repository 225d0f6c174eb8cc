-- Unsigned division and comparison.
-- ==
-- input { 4294967295u32 2u32 } output { 2147483647u32 1u32 true }
-- input { 5u32 4000000000u32 } output { 0u32 5u32 false }

entry main (x: u32) (y: u32) = (x / y, x % y, x > y)
