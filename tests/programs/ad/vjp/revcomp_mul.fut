-- Reverse computing of `x * e` and `x / e`: the return sweep divides (multiplies) by e. A zero
-- factor makes the update non-invertible; the forward sweep notices (a flag over all
-- iterations) and the return sweep then re-runs the loop with checkpoints instead, so the
-- gradient stays exact: `prod` and `zero_at` have zero factors at the start, middle and end
-- and not at all (z = -1). In `scaled`, s is recovered after y (its term reads y before the
-- iteration). Expected values: gen/gen_revcomp.py.

-- ==
-- entry: prod
-- input { 2.0 [1.5, 2.0, 0.5, -1.0] }
-- output { 7.5 [10.0, 7.5, 30.0, -15.0] }
-- input { 2.0 [1.5, 0.0, 0.5, -1.0] }
-- output { 0.0 [0.0, -1.5, 0.0, 0.0] }
-- input { 2.0 [0.0, 2.0, 0.0, 3.0] }
-- output { 0.0 [0.0, 0.0, 0.0, 0.0] }
-- input { 0.0 [1.0, 2.0, 3.0] }
-- output { 6.0 [0.0, 0.0, 0.0] }
-- input { 1.25 empty([0]f64) }
-- output { 3.5 empty([0]f64) }
entry prod [n] (x: f64) (es: [n]f64) = vjp (\(t, v) -> let y = loop y = t for i < n do y * v[i] in y * y + y) (x, es) 1

-- ==
-- entry: scaled
-- input { 1.5 0.001 1000i64 }
-- output { 15.00645597324788 5.717978837044665 }
-- input { -1.0 0.0005 1000i64 }
-- output { -89.93095621681087 33.314311143295186 }
-- input { 0.5 0.01 3i64 }
-- output { 1.011999128541743 0.5613604225010883 }
entry scaled (x: f64) (c: f64) (n: i64) =
  vjp (\(t, k) -> let (y, s) = loop (y, s) = (t, 0.0) for i < n do (y * (1 + k * f64.cos (f64.i64 i)), s + f64.sin y * 0.01)
                  in y + s * s) (x, c) 1

-- ==
-- entry: divided
-- input { 1.0 0.2 500i64 }
-- output { 23.235769800635936 26502.414779454262 }
-- input { -3.0 0.05 100i64 }
-- output { 3.0408014378157 349.0444829468174 }
entry divided (x: f64) (c: f64) (n: i64) =
  vjp (\(t, k) -> let y = loop y = t for i < n do (y + k) / (1 + 0.001 * f64.i64 (i % 7)) - f64.sin k * 0.01 in y * y) (x, c) 1

-- ==
-- entry: zero_at
-- input { 1.0 0.5 200i64 100i64 }
-- output { 0.26554401562876506 1.2435671016624226 }
-- input { 1.0 0.5 200i64 199i64 }
-- output { 0.6625686084341751 0.8360337546439971 }
-- input { 1.0 0.5 200i64 0i64 }
-- output { 0.002 2.505250753394639 }
-- input { 1.0 0.5 200i64 -1i64 }
-- output { 1.767711906788298 3.256133960919937 }
entry zero_at (x: f64) (c: f64) (n: i64) (z: i64) =
  vjp (\(t, k) -> let (y, s) = loop (y, s) = (t, 0.0) for i < n do
                     let f = if i == z then 0.0 else 1 + k * 0.001
                     in (y * f + k * 0.01, s + y * y * 0.001)
                  in y + s) (x, c) 1
