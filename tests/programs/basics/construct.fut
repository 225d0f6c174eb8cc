-- iota, replicate, tabulate, tabulate_2d; negative counts are range errors.
-- ==
-- input { 4i64 } output { [0i64, 1, 2, 3] [7, 7, 7, 7] [0i64, 1, 4, 9] [[0i64, 1, 2], [1, 2, 3]] }
-- input { 0i64 } output { empty([0]i64) empty([0]i32) empty([0]i64) [[0i64, 1, 2], [1, 2, 3]] }
-- input { -1i64 } error: Range .* is invalid

entry main (n: i64) =
  (iota n, replicate n 7i32, tabulate n (\i -> i * i), tabulate_2d 2 3 (\i j -> i + j))
