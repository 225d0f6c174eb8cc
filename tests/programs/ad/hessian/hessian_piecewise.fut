-- Second derivatives through if, max and abs: the branch taken is fixed, so only the active
-- piece's curvature remains.

def f (x: f64) : f64 = if x > 1 then x * x * x else f64.max (x * x) (2 * x) + f64.abs x * x

-- ==
-- entry: d2
-- input { 2.0 }
-- output { 12.0 }
-- input { 0.5 }
-- output { 2.0 }
-- input { -1.0 }
-- output { 0.0 }
-- input { 0.0 }
-- output { 2.0 }
-- input { 1.0 }
-- output { 2.0 }
entry d2 (x: f64) = jvp (\y -> vjp f y 1) x 1

-- ==
-- entry: d2_rr
-- input { 2.0 }
-- output { 12.0 }
-- input { 0.5 }
-- output { 2.0 }
-- input { -1.0 }
-- output { 0.0 }
-- input { 0.0 }
-- output { 2.0 }
-- input { 1.0 }
-- output { 2.0 }
entry d2_rr (x: f64) = vjp (\y -> vjp f y 1) x 1
