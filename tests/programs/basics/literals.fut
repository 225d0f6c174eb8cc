-- Numeric literals: suffixes, underscores, hexadecimal and binary, and defaulting of
-- unsuffixed literals to i32 and f64.
-- ==
-- input { } output { 1000000i64 255u8 10 7 2.0f32 0.0025 -128i8 3.0 }

entry main : (i64, u8, i32, i32, f32, f64, i8, f64) =
  (1_000_000i64, 0xffu8, 0b1010, 5 + 2, 2f32, 2.5e-3, -128i8, 1.5 * 2)

-- ==
-- entry: inferred
-- input { 41i64 } output { 42i64 }

entry inferred (x: i64) = x + 1

-- ==
-- entry: f32_array
-- input { [1.0f32, 2, 3] } output { 6.0f32 }

entry f32_array (xs: []f32) = reduce (+) 0 xs
