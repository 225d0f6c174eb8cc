-- foldl, foldr, iterate and iterate_while (prelude loops) in reverse mode.

-- ==
-- entry: fl
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [0.25, 1.0, 3.0, 8.0] }
-- input { [-1.0, 0.5, 0.0, 2.0] }
-- output { [-0.25, 0.25, 0.0, 4.0] }
entry fl (xs: [4]f64) = vjp (\v -> foldl (\acc x -> acc * 0.5 + x * x) 1 v) xs 1

-- ==
-- entry: fr
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [9.0, 4.0, 2.0, 0.0] }
-- input { [0.5, -1.0, 0.0, 2.0] }
-- output { [0.0, 0.5, -0.5, 0.0] }
entry fr (xs: [4]f64) = vjp (\v -> foldr (\x acc -> acc * x + 1) 0 v) xs 1

-- ==
-- entry: it
-- input { 0.5 }
-- output { 0.005345291746051549 }
-- input { 1.0 }
-- output { 0.050877496870725736 }
-- input { -0.3 }
-- output { -0.002230162616103244 }
entry it (x: f64) = vjp (\t -> iterate 5 (\y -> y * y * 0.5 + 0.25) t) x 1

-- ==
-- entry: itw
-- input { 1.0 }
-- output { 5.0625 }
-- input { 12.0 }
-- output { 1.0 }
-- input { 9.5 }
-- output { 1.5 }
entry itw (x: f64) = vjp (\t -> iterate_while (\y -> y < 10) (\y -> y * 1.5 + 1) t) x 1
