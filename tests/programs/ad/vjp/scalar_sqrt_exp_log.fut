-- sqrt, exp, log, log1p, log2, log10, rsqrt, cbrt in reverse mode.

def f (x: f64) : f64 = f64.sqrt x * f64.exp (-x) + f64.log x * x

-- ==
-- entry: grad
-- input { 1.0 }
-- output { 0.8160602794142788 }
-- input { 0.01 }
-- output { 1.246073999382833 }
-- input { 4.0 }
-- output { 2.3542419930646057 }
-- input { 25.0 }
-- output { 4.2188758248001506 }
entry grad (x: f64) = vjp f x 1

def g (x: f64) : f64 = f64.log1p x + f64.log2 x - f64.log10 (x * x) + f64.rsqrt x + f64.cbrt x

-- ==
-- entry: grad_g
-- input { 1.0 }
-- output { 0.907439410415793 }
-- input { 0.5 }
-- output { 0.9297989424478909 }
-- input { 8.0 }
-- output { 0.2441106171676723 }
-- input { 100.0 }
-- output { 0.030614013648543763 }
entry grad_g (x: f64) = vjp g x 1

-- ==
-- entry: chain
-- input { 1.0 }
-- output { 1.3808011730474816 }
-- input { -2.0 }
-- output { -1.1212038920656657 }
-- input { 0.3 }
-- output { 1.2574449166676147 }
entry chain (x: f64) = vjp (\t -> f64.exp (f64.sqrt (f64.log (t * t + 1)))) x 1
