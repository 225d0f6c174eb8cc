-- exscan (exclusive prefix sums and products) in reverse mode.

-- ==
-- entry: add
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 1.0, 1.0, 1.0] }
-- output { [3.0, 2.0, 1.0, 0.0] }
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [9.0, 7.0, 4.0, 0.0] }
entry add (xs: [4]f64) (yb: [4]f64) = vjp (exscan (+) 0) xs yb

-- ==
-- entry: mul
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [9.0, 4.0, 2.0, 0.0] }
-- input { [2.0, 0.0, 3.0, 4.0] }
-- output { [1.0, 8.0, 0.0, 0.0] }
entry mul (xs: [4]f64) = vjp (\v -> f64.sum (exscan (*) 1 v)) xs 1
