-- `with` on two-dimensional arrays: elements, rows, columns.
-- ==
-- entry: elem2
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { [[1.0, 1.0], [1.0, 8.0]] }

entry elem2 (m: [][]f64) =
  jvp (\a -> let b = copy a in b with [1, 1] = a[1, 1] * a[1, 1]) m (map (map (const 1)) m)

-- ==
-- entry: column
-- input { [[1.0, 2.0], [3.0, 4.0]] 5.0 } output { [[1.0, 2.0], [1.0, 2.0]] }

entry column [n] (m: [n][2]f64) (x: f64) =
  jvp (\(a, s) -> let b = copy a in b with [:, 1] = replicate n (s * 2)) (m, x) (map (map (const 1)) m, 1)

-- ==
-- entry: scatter_rows
-- input { [[1.0, 2.0], [3.0, 4.0]] [5.0, 6.0] } output { [[0.0, 0.0], [1.0, 1.0]] }

entry scatter_rows (m: [][2]f64) (r: [2]f64) =
  jvp (\v -> scatter (copy m) [1] [v]) r [1, 1]
