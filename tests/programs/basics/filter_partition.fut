-- filter and partition keep the original order.
-- ==
-- input { [5, -2, 0, 7, -9, 4] } output { [5, 7, 4] [-2, 0, 4] [5, 7, -9] }
-- input { [-1, -3] } output { empty([0]i32) empty([0]i32) [-1, -3] }

entry main (xs: []i32) =
  let (evens, odds) = partition (\x -> x % 2 == 0) xs
  in (filter (> 0) xs, evens, odds)
