-- A polynomial evaluated by Horner's rule in a loop: gradient in the coefficients and the point.

def horner [n] (cs: [n]f64) (x: f64) : f64 = loop acc = 0 for i < n do acc * x + cs[n - 1 - i]

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] 2.0 }
-- output { [1.0, 2.0, 4.0] 14.0 }
-- input { [1.0, -1.0, 0.5, 0.0, 2.0] -1.5 }
-- output { [1.0, -1.5, 2.25, -3.375, 5.0625] -29.5 }
-- input { [5.0] 3.0 }
-- output { [1.0] 0.0 }
-- input { [1.0, 2.0, 3.0, 4.0] 0.0 }
-- output { [1.0, 0.0, 0.0, 0.0] 2.0 }
entry grad [n] (cs: [n]f64) (x: f64) = vjp (\(c, t) -> horner c t) (cs, x) 1
