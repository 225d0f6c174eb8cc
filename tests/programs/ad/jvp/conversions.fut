-- Conversions between numeric types are identities on tangents (docs/language.md §Integer and
-- boolean leaves). ==
-- entry: to_int
-- input { 1.5 } output { 1i32 2i32 0i32 }
-- input { -7.25 } output { 1i32 2i32 0i32 }

entry to_int (x: f64) = (jvp i32.f64 x 1, jvp i32.f64 x 2.7, jvp (\t -> i32.f64 (f64.ceil t)) x 1)

-- ==
-- entry: floats
-- input { 3.0f32 } output { 1.0f32 6.0f64 2.0f64 }

entry floats (x: f32) =
  (jvp f32.f64 (f64.f32 x) 1, jvp (\t -> f64.f32 t * f64.f32 t) x 1, jvp f64.f32 x 2)

-- ==
-- entry: ints
-- input { 4i64 5u64 300 } output { 5.0f64 7i64 44i8 }

entry ints (a: i64) (b: u64) (c: i32) =
  (jvp (\t -> f64.i64 t * 2.5) a 2, jvp i64.u64 b 7, jvp i8.i32 c 300)

-- ==
-- entry: bool_to_num
-- input { 2.0 } output { 0.0 0i32 }

entry bool_to_num (x: f64) = (jvp (\t -> f64.bool (t > 0)) x 1, jvp (\t -> i32.bool (t > 0)) x 1)
