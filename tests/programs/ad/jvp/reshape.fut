-- flatten and unflatten.
-- ==
-- entry: flat
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { [2.0, 8.0, 18.0, 32.0] }

entry flat (m: [][]f64) = jvp (\a -> flatten a |> map (\t -> t * t)) m m

-- ==
-- entry: unflat
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] [1.0, 1.0, 1.0, 1.0, 1.0, 1.0] }
-- output { [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]] [5.0, 7.0, 9.0] }

entry unflat (xs: []f64) (dxs: []f64) =
  jvp (\v -> let m = unflatten (v :> [2 * 3]f64) in (m, map2 (*) m[0] m[1])) xs dxs

-- ==
-- entry: flat3
-- input { [[[1, 2], [3, 4]], [[5, 6], [7, 8]]] } output { [3, 6, 9, 12, 15, 18, 21, 24] }

entry flat3 (a: [][][]i32) = jvp flatten_3d a (map (map (map (* 3))) a)
