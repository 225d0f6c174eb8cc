-- sin, cos, tan, asin, acos, atan, atan2 and hypot in reverse mode.

-- ==
-- entry: grad
-- input { 0.0 }
-- output { 1.3333333333333333 }
-- input { 1.0 }
-- output { -1.3818427243185138 }
-- input { -2.5 }
-- output { 1.657762456924518 }
-- input { 3.14159 }
-- output { 0.333329247920784 }
entry grad (x: f64) = vjp (\t -> f64.sin t * f64.cos (2 * t) + f64.tan (t / 3)) x 1

-- ==
-- entry: inverse
-- input { 0.0 }
-- output { 3.0 }
-- input { 0.5 }
-- output { 1.0449819024675304 }
-- input { -0.9 }
-- output { 1.5362541020773834 }
entry inverse (x: f64) = vjp (\t -> f64.asin t + 2 * f64.acos (t / 2) + f64.atan (3 * t)) x 1

-- ==
-- entry: two_args
-- input { 1.0 1.0 }
-- output { 1.2071067811865475 0.20710678118654757 }
-- input { -2.0 0.5 }
-- output { -0.8524954413218024 0.7131238603304506 }
-- input { 3.0 -4.0 }
-- output { 0.44000000000000006 -0.9199999999999999 }
entry two_args (y: f64) (x: f64) = vjp (\(a, b) -> f64.atan2 a b + f64.hypot a b) (y, x) 1
