-- for loops carrying tuples: a Fibonacci-like recurrence and a two-variable nonlinear map.

-- ==
-- entry: fib
-- input { 1.0 1.0 }
-- output { 1429.0 2311.0 }
-- input { 0.5 -2.0 }
-- output { -1493.0 -2414.5 }
entry fib (x: f64) (y: f64) = vjp (\(a0, b0) -> let (a, b) = loop (a, b) = (a0, b0) for _i < 8 do (b, a + b) in a * b) (x, y) 1

-- ==
-- entry: henon
-- input { 0.1 0.2 1.0 0.0 }
-- output { 0.056656658827414975 -0.13261600701648696 }
-- input { 0.1 0.2 0.0 1.0 }
-- output { -0.01765518185936088 0.05419238947166213 }
entry henon (x: f64) (y: f64) (ab: f64) (bb: f64) =
  vjp (\(a0, b0) -> loop (a, b) = (a0, b0) for _i < 6 do (1 - 1.4 * a * a * 0.1 + b, 0.3 * a)) (x, y) (ab, bb)
