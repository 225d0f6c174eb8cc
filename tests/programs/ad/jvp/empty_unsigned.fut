-- jmp and jmp2 with no directions; unsigned division; an empty array inside the point.
-- ==
-- entry: jmp_none
-- input { [1.0, 2.0] empty([0][2]f64) } output { empty([0][2]f64) }

entry jmp_none [n] (xs: [n]f64) (dxs: [][n]f64) = jmp (map (\t -> t * t)) xs dxs

-- ==
-- entry: jmp2_none
-- input { [1.0, 2.0] empty([0][2]f64) } output { 3.0 empty([0]f64) }

entry jmp2_none [n] (xs: [n]f64) (dxs: [][n]f64) = jmp2 f64.sum xs dxs

-- ==
-- entry: udiv
-- input { 7u32 2u32 } output { 0u32 4294967295u32 }
-- input { 4000000000u32 1u32 } output { 1u32 294967296u32 }

-- partials 1 // y and -(x // (y*y)), wrapping in u32
entry udiv (x: u32) (y: u32) = (jvp (\a -> a / y) x 1, jvp (\b -> x / b) y 1)

-- ==
-- entry: mixed_empty
-- input { 2.0 empty([0]f64) } output { 1.0 }
-- input { 2.0 [1.0, 2.0] } output { 10.0 }

-- d(t * sum v + t) with tangents (1, v) = sum v + t * sum v + 1
entry mixed_empty (x: f64) (xs: []f64) = jvp (\(t, v) -> t * f64.sum v + t) (x, xs) (1, xs)
