-- Reverse computing of 2x2 linear updates, inverted by Cramer's rule: a rotation by an angle
-- that changes per iteration and is differentiated (`rot`; `rot_ck` is the same loop with
-- `#[checkpoint]`, which turns reverse computing off), explicit Euler for the harmonic
-- oscillator (matrix [[1, h], [-h, 1]], a cycle no triangular order solves), and a singular
-- matrix (determinant 0 at run time: the return sweep falls back to checkpoints).
-- Expected values: gen/gen_revcomp.py.

-- ==
-- entry: rot
-- input { 1.0 0.0 0.001 1000i64 }
-- output { -3.263653867973205 -1.0543049611990944 -1054.3049611990955 }
-- input { 0.5 -2.0 0.01 1000i64 }
-- output { -0.8131869345270488 6.676902969337753 1712.0776156147688 }
-- input { 0.3 0.4 1.0 1i64 }
-- output { 2.4616817738314034 1.7749612598998503 -0.4521843315626064 }
entry rot (x: f64) (y: f64) (th: f64) (n: i64) =
  vjp (\(a0, b0, t) ->
         let (a, b) = loop (a, b) = (a0, b0) for i < n do
           let c = f64.cos (t + 0.001 * f64.i64 i)
           let s = f64.sin (t + 0.001 * f64.i64 i)
           in (c * a - s * b, s * a + c * b)
         in a * a * b + 3 * b) (x, y, th) 1

-- ==
-- entry: rot_ck
-- input { 1.0 0.0 0.001 1000i64 }
-- output { -3.263653867973205 -1.0543049611990944 -1054.3049611990955 }
-- input { 0.5 -2.0 0.01 1000i64 }
-- output { -0.8131869345270488 6.676902969337753 1712.0776156147688 }
-- input { 0.3 0.4 1.0 1i64 }
-- output { 2.4616817738314034 1.7749612598998503 -0.4521843315626064 }
entry rot_ck (x: f64) (y: f64) (th: f64) (n: i64) =
  vjp (\(a0, b0, t) ->
         let (a, b) = #[checkpoint] loop (a, b) = (a0, b0) for i < n do
           let c = f64.cos (t + 0.001 * f64.i64 i)
           let s = f64.sin (t + 0.001 * f64.i64 i)
           in (c * a - s * b, s * a + c * b)
         in a * a * b + 3 * b) (x, y, th) 1

-- ==
-- entry: euler
-- input { 1.0 0.0 0.001 1000i64 }
-- output { -0.3696346512407416 0.4253290605867667 -425.69826953973694 }
-- input { -0.5 0.8 0.01 300i64 }
-- output { -0.3575182418596416 -0.5818211446006535 -173.92025109555442 }
entry euler (x: f64) (y: f64) (h: f64) (n: i64) =
  vjp (\(a0, b0, h) -> let (a, b) = loop (a, b) = (a0, b0) for _i < n do (a + h * b, b - h * a) in a * b + a) (x, y, h) 1

-- ==
-- entry: singular
-- input { 1.0 2.0 10i64 }
-- output { 1.1 1.1 }
-- input { -1.0 0.5 1i64 }
-- output { -0.65 -0.65 }
entry singular (x: f64) (y: f64) (n: i64) =
  vjp (\(a0, b0) -> let (a, b) = loop (a, b) = (a0, b0) for _i < n do (0.5 * a + 0.5 * b + 0.1, 0.5 * a + 0.5 * b - 0.1)
                    in a * a - b) (x, y) 1
