-- The memory bandwidth the gpu backend reaches on a map and on a reduction.
-- `stream`: `rounds` passes over an array of `n` f64, each reading and writing every element
-- (16 bytes per element and pass). `sums`: `rounds` reductions of a map of the same array,
-- each reading every element (8 bytes per element and pass). Timing two round counts and
-- dividing the bytes of the extra rounds by the extra time leaves out the set-up and the
-- final sum (benchmarks/gpu/run.sh).
-- ==
-- entry: stream
-- input { 1000i64 3i64 }
-- output { 1937.5f64 }

-- ==
-- entry: sums
-- input { 1000i64 3i64 }
-- output { 4500.0f64 }

entry stream (n: i64) (rounds: i64) : f64 =
  let xs = map (\i -> f64.i64 (i % 4)) (iota n)
  let ys = loop xs for _r < rounds do map (\x -> x * 0.5 + 1.0) xs
  in reduce (+) 0 ys

entry sums (n: i64) (rounds: i64) : f64 =
  let xs = map (\i -> f64.i64 (i % 4)) (iota n)
  in loop acc = 0 for r < rounds do acc + f64.sum (map (\x -> x * f64.i64 r) xs)
