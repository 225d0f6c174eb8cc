-- The reverse sweep of a loop that updates a history buffer in place restores the buffer
-- in place each iteration, and reads the restored rows for the adjoint of the weights. The
-- restored buffer itself is read by nobody after the sweep, so `loop-last-skips` moved the
-- work only it needs into an `if` on the last iteration whose else branch passed on the
-- buffer the restoring update had already consumed ("variable ... was consumed" on the
-- optimised interpreter).
-- ==
-- entry: weights
-- input { [[0f32, 1f32, 0.5f32], [0.2f32, 0f32, -0.3f32], [1f32, 0.1f32, 0f32]] [1f32, 2f32] }
-- output { [[[-0.014781525f32, -0.019475123f32, -0.0158829f32], [-0.02023907f32, -0.026118074f32, -0.021618605f32], [-0.019976657f32, -0.025094707f32, -0.02117763f32]], [[-0.011081595f32, -0.023771185f32, -0.01376497f32], [-0.028316863f32, -0.050105363f32, -0.032924317f32], [-0.029516574f32, -0.04596002f32, -0.032993753f32]]] }

def f (gain: f32) (x: f32) = 1f32 / (1f32 + f32.exp (-(gain * x)))

def run [m] (steps: i64) (w: [m][m]f32) (k: f32) : f32 =
  let d = 4i64
  let (e, i, _, acc) =
    loop (e, i, hist, acc) = (replicate m 0.1f32, replicate m 0f32, replicate d (replicate m 0f32), 0f32)
    for t < steps do
      let del = hist[(t + 1) % d]
      let inp = map (\row -> f32.sum (map2 (*) row del)) w
      let e' = map3 (\ei ii xi -> ei + (-ei + f 1f32 (k * xi - ii)) / 2f32) e i inp
      let i' = map2 (\ii ei -> ii + (-ii + f 2f32 ei) / 3f32) i e'
      let hist[t % d] = map (\x -> -x) e'
      in (e', i', hist, acc + f32.sum (map (\x -> -x * x) i'))
  in acc + f32.sum e + f32.sum i

entry weights [m] [k] (w: [m][m]f32) (ks: [k]f32) =
  map (\kk -> vjp (\w -> run 7 w kk) w 1f32) ks

-- The same as a `while` loop, whose return sweep runs as a `for` loop over the counted
-- iterations.
-- ==
-- entry: weights_while
-- input { [[0f32, 1f32, 0.5f32], [0.2f32, 0f32, -0.3f32], [1f32, 0.1f32, 0f32]] [1f32, 2f32] }
-- output { [[[-0.014781525f32, -0.019475123f32, -0.0158829f32], [-0.02023907f32, -0.026118074f32, -0.021618605f32], [-0.019976657f32, -0.025094707f32, -0.02117763f32]], [[-0.011081595f32, -0.023771185f32, -0.01376497f32], [-0.028316863f32, -0.050105363f32, -0.032924317f32], [-0.029516574f32, -0.04596002f32, -0.032993753f32]]] }

def run_while [m] (steps: i64) (w: [m][m]f32) (k: f32) : f32 =
  let d = 4i64
  let (e, i, _, acc, _) =
    loop (e, i, hist, acc, t) = (replicate m 0.1f32, replicate m 0f32, replicate d (replicate m 0f32), 0f32, 0i64)
    while t < steps do
      let del = hist[(t + 1) % d]
      let inp = map (\row -> f32.sum (map2 (*) row del)) w
      let e' = map3 (\ei ii xi -> ei + (-ei + f 1f32 (k * xi - ii)) / 2f32) e i inp
      let i' = map2 (\ii ei -> ii + (-ii + f 2f32 ei) / 3f32) i e'
      let hist[t % d] = map (\x -> -x) e'
      in (e', i', hist, acc + f32.sum (map (\x -> -x * x) i'), t + 1)
  in acc + f32.sum e + f32.sum i

entry weights_while [m] [k] (w: [m][m]f32) (ks: [k]f32) =
  map (\kk -> vjp (\w -> run_while 7 w kk) w 1f32) ks
