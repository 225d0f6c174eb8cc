-- foldl, foldr, iterate and head/last/tail/init/take/drop inside jvp.
-- ==
-- entry: folds
-- input { [1.0, 2.0, 3.0] } output { 22.0 12.0 }

-- foldl gives 4 e0^2 + 2 e1^2 + e2^2 (as in for_loop.fut); foldr gives e0 + 2 e1 + 4 e2
entry folds (xs: []f64) =
  ( jvp (\v -> foldl (\s e -> s * 2 + e * e) 0 v) xs (map (const 1) xs)
  , jvp (\v -> foldr (\e s -> e + s * 2) 0 v) xs [2, 1, 2] )

-- ==
-- entry: iterates
-- input { 1.5 } output { 16.0 }

-- four doublings
entry iterates (x: f64) = jvp (iterate 4 (* 2)) x 1

-- ==
-- entry: ends
-- input { [1.0, 2.0, 3.0, 4.0] } output { 1.0 4.0 [2.0, 3.0, 4.0] [1.0, 2.0, 3.0] [1.0, 2.0] [3.0, 4.0] }

entry ends (xs: []f64) =
  let r = jvp (\v -> (head v, last v, tail v, init v, take 2 v, drop 2 v)) xs (map (const 1) xs |> map2 (*) xs)
  in r
