-- f32 reductions: sum, product with a zero, and max with a tie.

-- ==
-- entry: grad
-- input { [1.0f32, 2.0f32, 3.0f32, 4.0f32] }
-- output { [26.0f32, 16.0f32, 14.0f32, 15.0f32] }
-- input { [1.0f32, 0.0f32, 3.0f32, 3.0f32] }
-- output { [2.0f32, 9.0f32, 7.0f32, 6.0f32] }
-- input { [-1.0f32, -2.0f32, -1.0f32, 0.5f32] }
-- output { [-1.0f32, -3.5f32, -1.0f32, 0.0f32] }
entry grad (xs: [4]f32) = vjp (\v -> f32.sum (map (\t -> t * t) v) + f32.product v + f32.maximum v) xs 1
