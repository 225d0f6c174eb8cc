-- Nested parallelism and sequential loops inside map; iterate.
-- ==
-- input { [[1, 2], [3, 4], [5, 6]] } output { [3, 7, 11] [2, 12, 30] 21 }

entry main (m: [][]i32) =
  (map (reduce (+) 0) m,
   map (\r -> loop p = 1 for x in r do p * x) m,
   reduce (+) 0 (map (reduce (+) 0) m))

-- ==
-- entry: iter
-- input { 3 } output { 24 }

entry iter (x: i32) = iterate 3 (* 2) x
