-- map, map2 and map3.
-- ==
-- input { [1, 2, 3] [10, 20, 30] }
-- output { [2, 4, 6] [11, 22, 33] [[1, 10], [2, 20], [3, 30]] [12, 24, 36] }

entry main [n] (xs: [n]i32) (ys: [n]i32) =
  (map (* 2) xs, map2 (+) xs ys, map2 (\x y -> [x, y]) xs ys, map3 (\a b c -> a + b + c) xs ys xs)

-- ==
-- entry: mismatch
-- input { [1, 2] [1, 2, 3] } error: value of shape \[3\] cannot match shape of type

entry mismatch [n] [m] (xs: [n]i32) (ys: [m]i32) = map2 (+) xs (ys :> [n]i32)
