-- A tangent whose shape differs from the point's is a run-time size error (docs/language.md
-- §Differentiation operators).
-- ==
-- entry: vec
-- input { [1.0, 2.0, 3.0] [1.0, 1.0] } error: cannot match shape
-- input { [1.0, 2.0] [1.0, 1.0, 1.0] } error: cannot match shape
-- input { [1.0, 2.0] [1.0, 1.0] } output { [2.0, 4.0] }

entry vec (xs: []f64) (dxs: []f64) = jvp (map (\t -> t * t)) xs dxs

-- ==
-- entry: inner
-- input { [[1.0, 2.0], [3.0, 4.0]] [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] } error: cannot match shape

entry inner (m: [][]f64) (dm: [][]f64) = jvp (map f64.sum) m dm

-- ==
-- entry: in_tuple
-- input { 1.0 [1.0, 2.0] [1.0] } error: cannot match shape

entry in_tuple (x: f64) (ys: []f64) (dys: []f64) = jvp (\(a, v) -> a + f64.sum v) (x, ys) (1, dys)

-- ==
-- entry: jmp_rows
-- input { [1.0, 2.0] [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] } error:

entry jmp_rows [n] (xs: [n]f64) (dxs: [][]f64) = jmp (map (\t -> t * t)) xs dxs
