-- Integer conversions between every pair of integer types: truncation, or extension that is
-- a sign extension only when both types are signed (a signed value widened to an unsigned
-- type is zero-extended, as in Futhark: `u16.i8 (-128i8)` is `128u16`).
-- ==
-- entry: from_i8
-- input { -128i8 }
-- output { -128i8 -128i16 -128i32 -128i64 128u8 128u16 128u32 128u64 }
-- input { -1i8 }
-- output { -1i8 -1i16 -1i32 -1i64 255u8 255u16 255u32 255u64 }
-- input { 5i8 }
-- output { 5i8 5i16 5i32 5i64 5u8 5u16 5u32 5u64 }

entry from_i8 (x: i8) =
  (i8.i8 x, i16.i8 x, i32.i8 x, i64.i8 x, u8.i8 x, u16.i8 x, u32.i8 x, u64.i8 x)

-- ==
-- entry: from_i16
-- input { -32768i16 }
-- output { 0i8 -32768i16 -32768i32 -32768i64 0u8 32768u16 32768u32 32768u64 }
-- input { -2i16 }
-- output { -2i8 -2i16 -2i32 -2i64 254u8 65534u16 65534u32 65534u64 }
-- input { 300i16 }
-- output { 44i8 300i16 300i32 300i64 44u8 300u16 300u32 300u64 }

entry from_i16 (x: i16) =
  (i8.i16 x, i16.i16 x, i32.i16 x, i64.i16 x, u8.i16 x, u16.i16 x, u32.i16 x, u64.i16 x)

-- ==
-- entry: from_i32
-- input { -2147483648i32 }
-- output { 0i8 0i16 -2147483648i32 -2147483648i64 0u8 0u16 2147483648u32 2147483648u64 }
-- input { -3i32 }
-- output { -3i8 -3i16 -3i32 -3i64 253u8 65533u16 4294967293u32 4294967293u64 }
-- input { 70000i32 }
-- output { 112i8 4464i16 70000i32 70000i64 112u8 4464u16 70000u32 70000u64 }

entry from_i32 (x: i32) =
  (i8.i32 x, i16.i32 x, i32.i32 x, i64.i32 x, u8.i32 x, u16.i32 x, u32.i32 x, u64.i32 x)

-- ==
-- entry: from_i64
-- input { -9223372036854775808i64 }
-- output { 0i8 0i16 0i32 -9223372036854775808i64 0u8 0u16 0u32 9223372036854775808u64 }
-- input { -5i64 }
-- output { -5i8 -5i16 -5i32 -5i64 251u8 65531u16 4294967291u32 18446744073709551611u64 }
-- input { 4294967303i64 }
-- output { 7i8 7i16 7i32 4294967303i64 7u8 7u16 7u32 4294967303u64 }

entry from_i64 (x: i64) =
  (i8.i64 x, i16.i64 x, i32.i64 x, i64.i64 x, u8.i64 x, u16.i64 x, u32.i64 x, u64.i64 x)

-- ==
-- entry: from_u8
-- input { 255u8 }
-- output { -1i8 255i16 255i32 255i64 255u8 255u16 255u32 255u64 }
-- input { 128u8 }
-- output { -128i8 128i16 128i32 128i64 128u8 128u16 128u32 128u64 }
-- input { 1u8 }
-- output { 1i8 1i16 1i32 1i64 1u8 1u16 1u32 1u64 }

entry from_u8 (x: u8) =
  (i8.u8 x, i16.u8 x, i32.u8 x, i64.u8 x, u8.u8 x, u16.u8 x, u32.u8 x, u64.u8 x)

-- ==
-- entry: from_u16
-- input { 65535u16 }
-- output { -1i8 -1i16 65535i32 65535i64 255u8 65535u16 65535u32 65535u64 }
-- input { 32768u16 }
-- output { 0i8 -32768i16 32768i32 32768i64 0u8 32768u16 32768u32 32768u64 }
-- input { 2u16 }
-- output { 2i8 2i16 2i32 2i64 2u8 2u16 2u32 2u64 }

entry from_u16 (x: u16) =
  (i8.u16 x, i16.u16 x, i32.u16 x, i64.u16 x, u8.u16 x, u16.u16 x, u32.u16 x, u64.u16 x)

-- ==
-- entry: from_u32
-- input { 4294967295u32 }
-- output { -1i8 -1i16 -1i32 4294967295i64 255u8 65535u16 4294967295u32 4294967295u64 }
-- input { 2147483648u32 }
-- output { 0i8 0i16 -2147483648i32 2147483648i64 0u8 0u16 2147483648u32 2147483648u64 }
-- input { 3u32 }
-- output { 3i8 3i16 3i32 3i64 3u8 3u16 3u32 3u64 }

entry from_u32 (x: u32) =
  (i8.u32 x, i16.u32 x, i32.u32 x, i64.u32 x, u8.u32 x, u16.u32 x, u32.u32 x, u64.u32 x)

-- ==
-- entry: from_u64
-- input { 18446744073709551615u64 }
-- output { -1i8 -1i16 -1i32 -1i64 255u8 65535u16 4294967295u32 18446744073709551615u64 }
-- input { 9223372036854775808u64 }
-- output { 0i8 0i16 0i32 -9223372036854775808i64 0u8 0u16 0u32 9223372036854775808u64 }
-- input { 4u64 }
-- output { 4i8 4i16 4i32 4i64 4u8 4u16 4u32 4u64 }

entry from_u64 (x: u64) =
  (i8.u64 x, i16.u64 x, i32.u64 x, i64.u64 x, u8.u64 x, u16.u64 x, u32.u64 x, u64.u64 x)
