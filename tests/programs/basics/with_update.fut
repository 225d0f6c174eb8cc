-- In-place updates with `with` and `let a[i] = ...`.
-- ==
-- input { [1, 2, 3, 4] 2i64 } output { [1, 2, 10, 4] }
-- input { [1, 2, 3, 4] 4i64 } error: Index \[4\] out of bounds

entry main (xs: *[]i32) (i: i64) = xs with [i] = 10

-- ==
-- entry: row
-- input { [[1, 2], [3, 4]] } output { [[1, 2], [0, 9]] }

entry row (m: *[][]i32) = m with [1] = [0, 9]

-- ==
-- entry: letupd
-- input { 3i64 } output { [0, 5, 0] }
-- input { 1i64 } error: out of bounds

entry letupd (n: i64) =
  let a = replicate n 0i32
  let a[1] = 5
  in a
