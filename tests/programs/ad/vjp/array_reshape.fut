-- flatten, unflatten and their 3-D forms route cotangents back unchanged.

-- ==
-- entry: flat
-- input { [[0.91, -0.58, 0.66], [-0.7, 0.03, -0.73]] }
-- output { [[-1.31, 1.57, -1.2799999999999998], [0.6900000000000001, -1.43, 0.9400000000000001]] }
entry flat (m: [2][3]f64) = vjp (\a -> let f = flatten a in f64.sum (map2 (*) f (rotate 1 f))) m 1

-- ==
-- entry: unflat
-- input { [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] [1.0, -1.0] }
-- output { [3.0, 1.0, 1.0, -6.0, -1.0, -4.0] }
entry unflat (xs: [6]f64) (yb: [2]f64) = vjp (\v -> let m = unflatten (v :> [2 * 3]f64) in map (\r -> r[0] * r[2] + r[1]) m) xs yb

-- ==
-- entry: three
-- input { [[[-0.74, -0.0], [0.2, -0.94]], [[-0.7, 0.86], [-0.86, -0.74]]] }
-- output { [[[1.6427999999999998, 0.0], [0.12000000000000002, 2.6508]], [[1.4699999999999998, 2.2188], [2.2188, 1.6427999999999998]]] }
entry three (a: [2][2][2]f64) = vjp (\t -> let f = flatten_3d t in f64.sum (map (\x -> x * x * x) f)) a 1

-- ==
-- entry: roundtrip
-- input { [1.0, 2.0, 3.0, 4.0] [[1.0, 2.0], [3.0, 4.0]] }
-- output { [2.0, 6.0, 4.0, 8.0] }
entry roundtrip (xs: [4]f64) (yb: [2][2]f64) = vjp (\v -> unflatten (v :> [2 * 2]f64) |> transpose |> map (map (* 2))) xs yb
