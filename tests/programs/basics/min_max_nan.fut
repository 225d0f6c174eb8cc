-- Minimum and maximum ignore a NaN operand (as C's fmin and fmax), in either position, as
-- scalars and as reductions, in f64 and f32; both NaN gives NaN.

-- ==
-- entry: pairs64
-- input { 2.0 }
-- output { [2.0, 2.0, 2.0, 2.0] false }
-- input { -3.5 }
-- output { [-3.5, -3.5, -3.5, -3.5] false }
entry pairs64 (x: f64) : ([4]f64, bool) =
  ([f64.min f64.nan x, f64.min x f64.nan, f64.max f64.nan x, f64.max x f64.nan],
   !(f64.isnan (f64.min f64.nan f64.nan) && f64.isnan (f64.max f64.nan f64.nan)))

-- ==
-- entry: pairs32
-- input { 2.0f32 }
-- output { [2.0f32, 2.0f32, 2.0f32, 2.0f32] false }
entry pairs32 (x: f32) : ([4]f32, bool) =
  ([f32.min f32.nan x, f32.min x f32.nan, f32.max f32.nan x, f32.max x f32.nan],
   !(f32.isnan (f32.min f32.nan f32.nan) && f32.isnan (f32.max f32.nan f32.nan)))

-- The positions of the NaNs are given by the flags: a NaN first, in the middle, last.
-- ==
-- entry: reductions
-- input { [3.0, -1.0, 4.0, 1.5, -5.0, 9.0] [true, false, false, false, false, false] }
-- output { -5.0 9.0 }
-- input { [3.0, -1.0, 4.0, 1.5, -5.0, 9.0] [false, false, true, false, false, true] }
-- output { -5.0 3.0 }
-- input { [3.0, -1.0, 4.0] [true, true, true] }
-- output { f64.inf -f64.inf }
entry reductions [n] (xs: [n]f64) (nan: [n]bool) : (f64, f64) =
  let ys = map2 (\x b -> if b then f64.nan else x) xs nan
  in (f64.minimum ys, f64.maximum ys)

-- The minimum distance of each point to a set of centres, as k-means computes it.
-- ==
-- entry: nearest
-- input { [[0.0, 0.0], [1.0, 1.0], [5.0, 5.0]] [[1.0, 0.0], [4.0, 4.0]] }
-- output { [1.0, 1.0, 2.0] }
entry nearest [n] [k] [d] (ps: [n][d]f64) (cs: [k][d]f64) : [n]f64 =
  map (\p -> f64.minimum (map (\c -> f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)) cs)) ps
