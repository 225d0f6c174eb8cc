-- A map whose body branches on its first index, and its gradient: the native backends run
-- iteration 0 apart from the others (a recurrence's boundary case).

-- ==
-- entry: shifted
-- input { [1.0, 2.0, 3.0, 4.0] [0.5, 1.5, 2.5, 3.5] }
-- output { [1.0, 1.0, 4.5, 10.0] }
-- input { [7.0] [1.0] }
-- output { [7.0] }
entry shifted [n] (x: [n]f64) (y: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1])

-- ==
-- entry: shifted_grad
-- input { [1.0, 2.0, 3.0, 4.0] [0.5, 1.5, 2.5, 3.5] }
-- output { [1.0, 0.5, 1.5, 2.5] [2.0, 3.0, 4.0, 0.0] }
-- input { [7.0] [1.0] }
-- output { [1.0] [0.0] }
entry shifted_grad [n] (x: [n]f64) (y: [n]f64) : ([n]f64, [n]f64) =
  vjp (\(x, y) -> tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1]))
      (x, y) (replicate n 1)
