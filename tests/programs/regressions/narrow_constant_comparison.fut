-- A comparison whose result the range of a narrow type decides (`32767i16 >= x`): the
-- unoptimised C compared a constant with a variable, and C compilers warned that the
-- comparison is always true (found by gradus-fuzz, seed 12000010, unoptimised).
-- ==
-- entry: always_true
-- input { empty([0]f64) 0i64 }
-- output { empty([0]bool) }
-- input { [1.0, 2.0] 3i64 }
-- output { [true, true, true] }

entry always_true [m] (p0: [m]f64) (k: i64) =
  map (\_ -> (32767i16 >= (-4i16)) && (-32768i16 <= (-4i16))) (replicate k (-1i32))
