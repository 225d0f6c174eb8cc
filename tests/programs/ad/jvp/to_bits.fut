-- Bit reinterpretation: the tangent of to_bits x is to_bits dx, and the same for from_bits.
-- ==
-- entry: bits32
-- input { 3.0f32 1.0f32 } output { 1065353216u32 }
-- input { 3.0f32 -2.0f32 } output { 3221225472u32 }

entry bits32 (x: f32) (dx: f32) = jvp f32.to_bits x dx

-- ==
-- entry: bits64
-- input { 2.0 0.5 } output { 4602678819172646912u64 }

entry bits64 (x: f64) (dx: f64) = jvp f64.to_bits x dx

-- ==
-- entry: from32
-- input { 0u32 1065353216u32 } output { 1.0f32 }

entry from32 (x: u32) (dx: u32) = jvp f32.from_bits x dx

-- ==
-- entry: round_trip
-- input { 2.0f32 3.0f32 } output { 3.0f32 }

entry round_trip (x: f32) (dx: f32) = jvp (\t -> f32.from_bits (f32.to_bits t)) x dx
