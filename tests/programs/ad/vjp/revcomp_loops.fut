-- Loops differentiated by reverse computing (no checkpoints): a symplectic Euler integrator
-- (x' = x + h·v, then v' = v - h·sin x', recovered v first, from x', then x) and a pair whose
-- term reads the other parameter before the iteration (p' = i/2 - p is recovered first, then
-- q from q' = q + 0.01·cos(p + 0.01 i)). Expected values: JAX (jax.grad over lax.scan).

-- ==
-- entry: euler
-- input { 1.0 0.3 0.01 }
-- output { 0.5704774111673224 -1.857953298835944 521.134168752668 }
-- input { -0.5 2.0 0.003 }
-- output { 0.9977020017167204 2.7528109410320885 991.0294542842908 }
entry euler (x0: f64) (v0: f64) (h: f64) =
  vjp (\(x0, v0, h) ->
         let (x, v) = loop (x, v) = (x0, v0) for _i < 300 do
           let x' = x + h * v in (x', v - h * f64.sin x')
         in x * x + v)
      (x0, v0, h) 1

-- ==
-- entry: drift
-- input { 0.7 1.1 }
-- output { -0.43895627740643706 50.7 }
-- input { -2.0 0.5 }
-- output { 2.593653620169023 48.0 }
entry drift (a: f64) (b: f64) =
  vjp (\(a, b) ->
         let (p, q) = loop (p, q) = (a, b) for i < 200 do
           (0.5 * f64.i64 i - p, q + f64.cos (p + 0.01 * f64.i64 i) * 0.01)
         in p * q)
      (a, b) 1
