-- erf, erfc, lgamma, gamma, fma, mad, lerp and recip in reverse mode.

-- ==
-- entry: grad
-- input { 0.0 }
-- output { 0.455122732547353 }
-- input { 0.7 }
-- output { 1.0894781816279453 }
-- input { 1.5 }
-- output { 2.4247245308705967 }
entry grad (x: f64) = vjp (\t -> f64.erf t + 2 * f64.erfc (t / 2) + f64.lgamma (t + 2) + f64.gamma (t + 1.5)) x 1

-- ==
-- entry: three
-- input { 1.0 2.0 0.5 }
-- output { 4.75 3.75 4.918367346938775 }
-- input { -1.5 0.5 2.0 }
-- output { 2.0 -0.25 3.46 }
entry three (a: f64) (b: f64) (c: f64) = vjp (\(x, y, z) -> f64.fma x y z * f64.lerp x y z + f64.recip (z + 3) + f64.mad z x y) (a, b, c) 1
