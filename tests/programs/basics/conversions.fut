-- Conversions: float to integer truncates towards zero, NaN and infinities give 0, values
-- out of range saturate; bool converts to 1 or 0.
-- ==
-- input { 3.9 -3.9 } output { 3 -3 3.0f32 }

entry main (x: f64) (y: f64) = (i32.f64 x, i32.f64 y, f32.f64 (f64.floor x))

-- ==
-- entry: special
-- input { } output { 0i64 0 127i8 1 0.0 true }

entry special : (i64, i32, i8, i32, f64, bool) =
  (i64.f64 f64.nan, i32.f64 f64.inf, i8.f64 1000.0, i32.bool true, f64.bool false, bool.i32 5)

-- ==
-- entry: ints
-- input { -1i32 300i32 } output { -1i64 255u8 44i8 4294967295u32 }

entry ints (x: i32) (y: i32) = (i64.i32 x, u8.i32 (-1), i8.i32 y, u32.i32 x)
