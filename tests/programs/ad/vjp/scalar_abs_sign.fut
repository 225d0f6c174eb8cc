-- abs (derivative sgn x, 0 at 0), sgn, floor, ceil, round and trunc (derivative 0).

-- ==
-- entry: grad
-- input { 2.0 }
-- output { 7.0 }
-- input { -0.5 }
-- output { -2.0 }
-- input { 0.0 }
-- output { 0.0 }
-- input { 1.0 }
-- output { 3.0 }
-- input { -1.0 }
-- output { -3.0 }
entry grad (x: f64) = vjp (\t -> f64.abs t * 3 + f64.abs (t * t - 1)) x 1

-- ==
-- entry: flat
-- input { 1.3 }
-- output { 1.0 }
-- input { -2.5 }
-- output { 1.0 }
-- input { 0.0 }
-- output { 1.0 }
entry flat (x: f64) = vjp (\t -> f64.floor t + f64.ceil (2 * t) + f64.round t + f64.trunc t + f64.sgn t + t) x 1

-- ==
-- entry: int_abs
-- input { 7 }
-- output { 5 }
-- input { -3 }
-- output { -5 }
-- input { 0 }
-- output { 0 }
entry int_abs (x: i32) = vjp (\t -> i32.abs t * 5) x 1
