-- Integer arithmetic wraps around in two's complement.
-- ==
-- input { 2000000000 } output { -294967296 }

entry main (x: i32) = x * 2

-- ==
-- entry: small
-- input { 127i8 200u8 } output { -128i8 44u8 }

entry small (a: i8) (b: u8) = (a + 1, b + 100)

-- ==
-- entry: underflow
-- input { 0u32 } output { 4294967295u32 }

entry underflow (x: u32) = x - 1
