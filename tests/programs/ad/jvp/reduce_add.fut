-- reduce with (+): sums, row sums with a vector operator, integer sums, empty arrays.
-- ==
-- entry: sum_sq
-- input { [1.0, 2.0, 3.0] } output { 14.0 12.0 }
-- input { empty([0]f64) } output { 0.0 0.0 }

entry sum_sq (xs: []f64) = jvp2 (\v -> f64.sum (map (\e -> e * e) v)) xs (map (const 1) xs)

-- ==
-- entry: explicit
-- input { [1.0, 2.0, 3.0] [0.5, 0.25, 2.0] } output { 2.75 }

entry explicit (xs: []f64) (dxs: []f64) = jvp (reduce (+) 0) xs dxs

-- ==
-- entry: rows
-- input { [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]] [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]] }
-- output { [3.0, 3.0] }

entry rows [n] (m: [n][2]f64) (dm: [n][2]f64) = jvp (reduce (map2 (+)) (replicate 2 0)) m dm

-- ==
-- entry: ints
-- input { [1, 2, 3] [1, 1, 1] } output { 12 }
-- input { [65536, 1, 1] [65536, 0, 0] } output { 0 }

-- d sum(x^2) = sum(2 x dx) with wrap-around: 2 * 65536 * 65536 = 2^33 wraps to 0
entry ints (xs: []i32) (dxs: []i32) = jvp (\v -> i32.sum (map (\e -> e * e) v)) xs dxs

-- ==
-- entry: f32_sum
-- input { [1.0f32, 2.0f32] } output { 3.0f32 }

entry f32_sum (xs: []f32) = jvp (\v -> reduce_comm (+) 0 v) xs (map (const 1) xs) |> (\s -> s + 1)
