-- Arrays whose sizes are computed inside a map's lambda (from the elements, not from the
-- mapped arrays' sizes): the native backends must keep those sizes in scope wherever the
-- lambda's arrays are built and indexed.
-- ==
-- entry: main
-- input { [2i64, 3i64] [3i64, 4i64] [1i64, 2i64] }
-- output { [1i64, 2i64] }
-- input { empty([0]i64) empty([0]i64) empty([0]i64) }
-- output { empty([0]i64) }
-- input { [1i64, 0i64] [1i64, 1i64] [5i64, 6i64] }
-- error: Index \[0\] out of bounds

entry main (ns: []i64) (ms: []i64) (xs: []i64) : []i64 =
  map3 (\n m x ->
          let a = replicate n (replicate m x)
          let b = map (\i -> a[i % n, i % m]) (iota n)
          in b[0]) ns ms xs

-- ==
-- entry: cube
-- input { [2i64, 1i64] [3i64, 2i64] }
-- output { [21i64, 10i64] }

entry cube (ns: []i64) (ms: []i64) : []i64 =
  map2 (\n m ->
          let a = tabulate_3d n m 2 (\i j k -> i + j + k + 1)
          let s = map (\row -> reduce (+) 0 (flatten row)) a
          in reduce (+) 0 s / n + m) ns ms

-- ==
-- entry: looped
-- input { [3i64, 2i64] 2i64 }
-- output { [6i64, 2i64] }

entry looped (ns: []i64) (k: i64) : []i64 =
  map (\n ->
         loop acc = 0i64 for r < k do
           let a = replicate n (iota n)
           let b = map (\i -> a[i, (i + r) % n]) (iota n)
           in acc + reduce (+) 0 b) ns
