-- Integer tangents of every width, signed and unsigned, with wrap-around.
-- ==
-- entry: widths
-- input { 200i16 300u16 9223372036854775807i64 18446744073709551615u64 }
-- output { -25536i16 88u16 -2i64 18446744073709551614u64 }

-- i16: 0 + 2 * -12768 = -25536; u16: 2 * 300 - 512 = 88;
-- i64: 2 * (2^63 - 1) wraps to -2; u64: 2 * (2^64 - 1) wraps to 2^64 - 2
entry widths (a: i16) (b: u16) (c: i64) (d: u64) =
  ( jvp (\x -> x * x) a 0 + jvp (\x -> x * 2) a (-12768)
  , jvp (\x -> x * x) b 1 - 512
  , jvp (\x -> x + x) c c
  , jvp (\x -> x * 2) d d )

-- ==
-- entry: u8_poly
-- input { 16u8 } output { 0u8 }
-- input { 3u8 } output { 27u8 }

-- 3 x^2: 768 wraps to 0 at 16
entry u8_poly (x: u8) = jvp (\t -> t * t * t) x 1

-- ==
-- entry: i64_loop
-- input { 2i64 } output { 5120i64 }

-- d x^10 = 10 x^9
entry i64_loop (x: i64) = jvp (\t -> loop acc = 1 for _i < 10 do acc * t) x 1
