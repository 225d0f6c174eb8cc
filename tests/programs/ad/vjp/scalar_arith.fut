-- Reverse mode of + - * / and negation on f64 scalars, with tuple arguments and a scaled seed.

def f (a: f64, b: f64) : f64 = a * b - a / b + 3 * a - b * b * b + -a

-- ==
-- entry: grad
-- input { 2.0 3.0 }
-- output { 4.666666666666667 -24.77777777777778 }
-- input { -1.5 0.5 }
-- output { 0.5 -8.25 }
-- input { 0.0 1.0 }
-- output { 2.0 -3.0 }
-- input { 1000.0 -0.02 }
-- output { 51.98 2500999.9988 }
entry grad (x: f64) (y: f64) = vjp f (x, y) 1

-- ==
-- entry: scaled
-- input { 2.0 3.0 2.5 }
-- output { 11.666666666666668 -61.94444444444444 }
-- input { 1.0 1.0 0.0 }
-- output { 0.0 0.0 }
-- input { -3.0 4.0 -1.0 }
-- output { -5.75 51.1875 }
entry scaled (x: f64) (y: f64) (yb: f64) = vjp f (x, y) yb

-- ==
-- entry: value_and_grad
-- input { 2.0 3.0 }
-- output { -17.666666666666668 4.666666666666667 -24.77777777777778 }
-- input { 0.25 -4.0 }
-- output { 63.5625 -1.75 -47.734375 }
entry value_and_grad (x: f64) (y: f64) =
  let (v, (dx, dy)) = vjp2 f (x, y) 1
  in (v, dx, dy)
