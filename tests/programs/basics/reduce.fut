-- reduce with several operators, on empty arrays, and on tuples (arg-max).
-- ==
-- input { [3, 1, 4, 1, 5] } output { 14 5 1 60 }
-- input { empty([0]i32) } output { 0 -2147483648 2147483647 1 }

entry main (xs: []i32) =
  (reduce (+) 0 xs, reduce i32.max i32.lowest xs, reduce i32.min i32.highest xs, reduce (*) 1 xs)

-- ==
-- entry: argmax
-- input { [3.0, 7.0, 2.0, 7.0] } output { 1i64 7.0 }

entry argmax (xs: []f64) =
  reduce (\(i1, v1) (i2, v2) -> if v2 > v1 then (i2, v2) else (i1, v1))
         (-1, -f64.inf)
         (zip (indices xs) xs)

-- ==
-- entry: sums
-- input { [0.5, 0.25, 0.125] } output { 0.875 0.875 }

entry sums (xs: []f64) = (f64.sum xs, foldl (+) 0 xs)
