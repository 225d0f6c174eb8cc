-- Explicit Euler, 100 steps, for a damped nonlinear oscillator x'' = -k sin x - c x': gradient of
-- the final position in the initial state and the parameters.

def simulate (x0: f64, v0: f64, k: f64, c: f64) : f64 =
  let h = 0.05
  let (x, _) = loop (x, v) = (x0, v0) for _i < 100 do (x + h * v, v + h * (-k * f64.sin x - c * v))
  in x

-- ==
-- entry: final
-- input { 1.0 0.0 2.0 0.1 }
-- output { 0.9220642020841787 }
-- input { -0.5 1.5 1.0 0.5 }
-- output { -0.4572924514454432 }
entry final (x0: f64) (v0: f64) (k: f64) (c: f64) = simulate (x0, v0, k, c)

-- ==
-- entry: grad
-- input { 1.0 0.0 2.0 0.1 }
-- output { 1.119084864554731 0.2663800161804853 -0.37863049968560586 -2.570054408189812 }
-- input { -0.5 1.5 1.0 0.5 }
-- output { -0.09905414599159733 -0.288664071985314 -0.308982923106947 1.1989382945420302 }
entry grad (x0: f64) (v0: f64) (k: f64) (c: f64) = vjp simulate (x0, v0, k, c) 1
