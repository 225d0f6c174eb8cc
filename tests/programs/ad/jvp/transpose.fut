-- transpose is linear; combined with multiplication.
-- ==
-- entry: tr
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] [[1.0, 0.0, 0.0], [0.0, 0.0, 2.0]] }
-- output { [[1.0, 0.0], [0.0, 0.0], [0.0, 2.0]] }

entry tr (m: [][]f64) (dm: [][]f64) = jvp transpose m dm

-- ==
-- entry: gram
-- input { [[1.0, 2.0], [3.0, 4.0]] [[1.0, 0.0], [0.0, 0.0]] }
-- output { [[2.0, 2.0], [2.0, 0.0]] }

-- d(A^T A) = dA^T A + A^T dA
entry gram [n] (a: [n][n]f64) (da: [n][n]f64) =
  jvp (\m -> map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose m)) (transpose m)) a da
