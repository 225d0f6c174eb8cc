-- unflatten_3d and unflatten_4d (sizes from the argument's size expression) under jvp.
-- ==
-- entry: u3
-- input { [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0] }
-- output { [[[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]], [[12.0, 14.0], [16.0, 18.0], [20.0, 22.0]]] }

entry u3 (v: [12]f64) = jvp (\w -> unflatten_3d (w :> [2 * 3 * 2]f64)) v (map (* 2) v)

-- ==
-- entry: u4
-- input { [1, 2, 3, 4, 5, 6, 7, 8] }
-- output { [[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]] }

entry u4 (v: [8]i32) = jvp (\w -> unflatten_4d (w :> [1 * 2 * 2 * 2]i32)) v v
