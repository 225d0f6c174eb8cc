-- When several iterations of a parallel map fail, every backend reports the error of the
-- sequentially first failing iteration, as the interpreter does, whichever thread failed
-- first. Iteration 0 computes for a while before it fails and every other iteration fails at
-- once, so on several threads a later iteration fails first in time.
-- ==
-- entry: main
-- input { 100000i64 3000000i64 }
-- error: Index \[100000\] out of bounds
-- input { 100000i64 0i64 }
-- error: Index \[100000\] out of bounds

entry main (n: i64) (k: i64) : []i64 =
  let xs = iota n
  in map (\i ->
            let s = loop acc = 0i64 for j < (if i == 0 then k else 0) do (acc * 31 + j) % 1000003
            in xs[i + n + (if s < 0 then 1 else 0)]) (iota n)
