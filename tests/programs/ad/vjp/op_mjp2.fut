-- mjp2: the value and a batch of cotangents; on a tuple-valued function with tuple seeds.

-- ==
-- entry: pair
-- input { 2.0 3.0 }
-- output { 6.0 11.0 [3.0, 1.0, 4.0] [2.0, 6.0, 8.0] }
-- input { -1.0 0.5 }
-- output { -0.5 -0.75 [0.5, 1.0, 1.5] [-1.0, 1.0, 0.0] }
entry pair (x: f64) (y: f64) =
  let (v, gs) = mjp2 (\(a, b) -> (a * b, a + b * b)) (x, y) [(1, 0), (0, 1), (1, 1)]
  in (v.0, v.1, map (.0) gs, map (.1) gs)

-- ==
-- entry: arr
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 6.0] [[2.0, 1.0, 0.0], [0.0, 3.0, 2.0]] }
entry arr (xs: [3]f64) =
  let (v, j) = mjp2 (\v -> [v[0] * v[1], v[1] * v[2]]) xs [[1, 0], [0, 1]]
  in (v, j)
