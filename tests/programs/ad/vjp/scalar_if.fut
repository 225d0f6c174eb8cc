-- `if`: the branch taken is differentiated; the condition is not. Branches that return different
-- variables, nested ifs, and an if inside a tuple-valued function.

def f (x: f64) (y: f64) : f64 =
  if x > y then x * x * y else if x < 0 then y - x else f64.sin x * y

-- ==
-- entry: grad
-- input { 3.0 2.0 }
-- output { 12.0 9.0 }
-- input { -3.0 2.0 }
-- output { -1.0 1.0 }
-- input { 0.5 2.0 }
-- output { 1.7551651237807455 0.479425538604203 }
-- input { 2.0 2.0 }
-- output { -0.8322936730942848 0.9092974268256817 }
entry grad (x: f64) (y: f64) = vjp (\(a, b) -> f a b) (x, y) 1

-- ==
-- entry: select
-- input { 1.0 5.0 true }
-- output { 2.0 3.0 }
-- input { 1.0 5.0 false }
-- output { 3.0 2.0 }
entry select (x: f64) (y: f64) (c: bool) = vjp (\(a, b) -> let (p, q) = if c then (a, b) else (b, a) in p * 2 + q * 3) (x, y) 1

-- ==
-- entry: piecewise
-- input { 0.5 }
-- output { 1.0 }
-- input { 1.0 }
-- output { 2.0 }
-- input { 3.0 }
-- output { 2.0 }
-- input { -2.0 }
-- output { -4.0 }
entry piecewise (x: f64) = vjp (\t -> if t < 1 then t * t else 2 * t - 1) x 1
