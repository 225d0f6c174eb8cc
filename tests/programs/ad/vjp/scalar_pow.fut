-- Float power `**` and `f64.pow`-style uses: both partials, including the kinks of table 10.4
-- (x = 0 with y < 1 gives 0 for x; x <= 0 gives 0 for y).

-- ==
-- entry: grad
-- input { 2.0 3.0 }
-- output { 12.0 5.545177444479562 }
-- input { 0.0 2.0 }
-- output { 0.0 0.0 }
-- input { 0.0 0.5 }
-- output { 0.0 0.0 }
-- input { -2.0 3.0 }
-- output { 12.0 0.0 }
-- input { 4.0 0.5 }
-- output { 0.25 2.772588722239781 }
-- input { 1.0 -1.0 }
-- output { -1.0 0.0 }
-- input { 0.0 1.0 }
-- output { 1.0 0.0 }
entry grad (x: f64) (y: f64) = vjp (\(a, b) -> a ** b) (x, y) 1

-- ==
-- entry: square_root_pow
-- input { 4.0 }
-- output { 19.340354888959126 }
-- input { 0.25 }
-- output { 2.3242955588659626 }
-- input { 9.0 }
-- output { 373.0580231133587 }
entry square_root_pow (x: f64) = vjp (\t -> t ** 0.5 + t ** 2 + 2 ** t) x 1
