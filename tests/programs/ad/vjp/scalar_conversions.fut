-- Conversions are identities for AD (10.3): the cotangent is converted back with the opposite
-- conversion; rounding before a conversion still gives 0.

-- ==
-- entry: f32_roundtrip
-- input { 1.5f32 }
-- output { 6.0f32 }
-- input { -2.0f32 }
-- output { -8.0f32 }
-- input { 0.0f32 }
-- output { 0.0f32 }
entry f32_roundtrip (x: f32) = vjp (\t -> f32.f64 (f64.f32 t * 2) * t) x 1

-- ==
-- entry: to_int
-- input { 1.5 }
-- output { 2.0 }
-- input { -7.25 }
-- output { 2.0 }
entry to_int (x: f64) = vjp i32.f64 x 2

-- ==
-- entry: via_int
-- input { 1.7 }
-- output { 3.0 }
-- input { -0.2 }
-- output { 3.0 }
entry via_int (x: f64) = vjp (\t -> f64.i32 (i32.f64 t) * 3) x 1

-- ==
-- entry: floor_int
-- input { 2.5 }
-- output { 0.0 }
-- input { -1.5 }
-- output { 0.0 }
entry floor_int (x: f64) = vjp (\t -> f64.i64 (i64.f64 (f64.floor t))) x 1

-- ==
-- entry: from_int
-- input { 3 }
-- output { 5 }
-- input { -4 }
-- output { 5 }
entry from_int (n: i32) = vjp (\k -> f64.i32 k * 2.5) n 2
