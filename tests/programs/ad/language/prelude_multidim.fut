-- Derivatives through the multi-dimensional scatter and histogram functions, `partition2`
-- and `flatmap` of the prelude, which are written in terms of `scatter`, `reduce_by_index`,
-- `scan` and `map`.

def weights_2d (w: [2][3]f64) (vs: [4]f64) : [2][3]f64 =
  let d = map (map (* 2)) w
  in reduce_by_index_2d d (+) 0 [(0, 1), (1, 2), (0, 1), (7, 0)] (map (\v -> v * v) vs)

-- ==
-- entry: rbi_2d
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] [1.0, 2.0, 3.0, 4.0] }
-- output { [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]] [2.0, 4.0, 6.0, 0.0] }
entry rbi_2d (w: [2][3]f64) (vs: [4]f64) =
  vjp (\(a, b) -> weights_2d a b) (w, vs) (replicate 2 (replicate 3 1))

-- ==
-- entry: scatter_2d_jvp
-- input { [[1.0, 2.0], [3.0, 4.0]] [5.0, 6.0] }
-- output { [[0.5, 1.0], [1.0, 2.0]] }
entry scatter_2d_jvp (m: [2][2]f64) (vs: [2]f64) =
  jvp (\(a, b) -> scatter_2d (copy a) [(0, 1), (1, 0)] b)
      (m, vs)
      ([[0.5, 0.25], [0.125, 2.0]], [1.0, 1.0])

-- ==
-- entry: scatter_3d_grad
-- input { [1.0, 2.0] }
-- output { [3.0, 0.0] }
entry scatter_3d_grad (vs: [2]f64) =
  vjp (\v -> let c = scatter_3d (replicate 2 (replicate 2 (replicate 2 0))) [(1, 0, 1), (2, 0, 0)] v
             in f64.sum (flatten_3d c) * 3)
      vs 1

-- ==
-- entry: hist_2d_grad
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 4.0, 6.0] }
entry hist_2d_grad (vs: [3]f64) =
  vjp (\v -> f64.sum (flatten (hist_2d (+) 0 2 2 [(0, 0), (1, 1), (0, 0)] (map (\x -> x * x) v))))
      vs 1

-- ==
-- entry: rbi_3d_grad
-- input { [2.0, 3.0] }
-- output { [3.0, 2.0] }
entry rbi_3d_grad (vs: [2]f64) =
  vjp (\v -> let h = reduce_by_index_3d (replicate 1 (replicate 2 (replicate 1 1))) (*) 1
                                          [(0, 1, 0), (0, 1, 0)] v
             in h[0, 1, 0])
      vs 1

-- ==
-- entry: partition2_grad
-- input { [1.0, 5.0, 7.0, 2.0, 4.0] }
-- output { [1.0, 2.0, 3.0, 1.0, 2.0] }
entry partition2_grad (xs: [5]f64) =
  vjp (\v -> let (a, b, c) = partition2 (< 3) (< 6) v
             in f64.sum a + 2 * f64.sum b + 3 * f64.sum c)
      xs 1

-- ==
-- entry: flatmap_grad
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 5.0, 0.0] }
entry flatmap_grad (xs: [3]f64) =
  vjp (\v -> let (_, _, _, data, fixed) =
               flatmap (\x -> (replicate (if x < 2.5 then 2 else 0) (x * x), x)) v
             in f64.sum data / 2 + fixed[1])
      xs 1
