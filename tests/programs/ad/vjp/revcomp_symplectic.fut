-- Reverse computing of triangular chains of invertible updates, inverted in reverse order:
-- symplectic Euler for a pendulum (x' = x + h v, v' = v - h sin x': v is recovered first from
-- x', then x from v) over 1000 steps and zero steps, and a chain of three carried values
-- (t, then v, then x). Expected values: gen/gen_revcomp.py.

-- ==
-- entry: pendulum
-- input { 1.0 0.0 0.002 1000i64 }
-- output { 0.8411325973055342 0.0016703196368130439 -0.834017255174275 }
-- input { -0.5 1.5 0.001 1000i64 }
-- output { -0.4786435489393812 1.4992067110528446 -0.9661186139622876 }
-- input { 0.3 0.2 0.1 0i64 }
-- output { 0.29552020666133955 0.2 0.0 }
entry pendulum (x: f64) (v: f64) (h: f64) (n: i64) =
  vjp (\(x0, v0, h) ->
         let (x, v) = loop (x, v) = (x0, v0) for _i < n do
           let x' = x + h * v in (x', v - h * f64.sin x')
         in 0.5 * v * v - f64.cos x) (x, v, h) 1

-- ==
-- entry: chain
-- input { 1.0 0.5 0.002 300i64 }
-- output { -0.18413413697546155 1.1998880215416103 13.390624939647232 }
-- input { -0.2 1.0 0.001 400i64 }
-- output { 1.2223930977948005 0.7117328142233554 580.2023204356345 }
entry chain (x: f64) (v: f64) (h: f64) (n: i64) =
  vjp (\(x0, v0, h) ->
         let (x, v, t) = loop (x, v, t) = (x0, v0, 0.0) for _i < n do
           let t' = t + h
           let x' = x + h * v * f64.cos t'
           let v' = v - h * x' * f64.cos t
           in (x', v', t')
         in x * v + t * x) (x, v, h) 1
