-- `loop ... for i < n`.
-- ==
-- input { 10i64 } output { 45i64 3628800i64 }
-- input { 0i64 } output { 0i64 1i64 }

entry main (n: i64) =
  (loop acc = 0 for i < n do acc + i, loop p = 1 for i < n do p * (i + 1))

-- ==
-- entry: fib
-- input { 10 } output { 55 }
-- input { 1 } output { 1 }

entry fib (n: i32) =
  let (a, _) = loop (a, b) = (0, 1) for _i < n do (b, a + b)
  in a
