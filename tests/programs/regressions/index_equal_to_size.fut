-- An index that is the very size it is checked against (`u[m, m]` in a `[n][m]` array)
-- always fails; its bounds check must still be C that compiles without warnings (a
-- self-comparison `m < m` is one under -Wall).
-- ==
-- entry: update
-- input { [[1.0, 2.0], [3.0, 4.0]] 5.0 }
-- error: Index \[2, 2\] out of bounds
-- input { empty([2][0]f64) 5.0 }
-- error: Index \[0, 0\] out of bounds

entry update [n] [m] (c: [n][m]f64) (s: f64) : [n][m]f64 =
  let u = copy c
  let u[m, m] = s
  in u

-- ==
-- entry: grad
-- input { [[1.0, 2.0], [3.0, 4.0]] 5.0 }
-- error: Index \[2, 2\] out of bounds

entry grad [n] [m] (c: [n][m]f64) (s: f64) : f64 =
  vjp (\s -> let u = copy c
             let u[m, m] = s
             in f64.sum (flatten u)) s 1
