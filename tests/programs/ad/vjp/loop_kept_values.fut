-- Loops whose bodies compute `exp`, `tanh` or `cbrt`, at their top level or in the lambdas
-- of maps there: the forward sweep keeps those values per iteration, and the return sweep
-- reads them instead of computing them again (a recurrent cell's gates). `layered` keeps
-- them in an inner loop whose checkpoints the outer loop stacks, `scalar` at the top level
-- of a loop of scalars. `hessian_fwd` and `hessian_rev` differentiate `recurrent`'s gradient
-- again, in forward and in reverse mode. Expected values: gen/gen_loop_kept_values.py
-- (forward-mode dual numbers, nested for the Hessian-vector products).

entry recurrent [n][b] (xs: [n][b]f64) (w: [b]f64) (h0: [b]f64) : ([b]f64, [b]f64) =
  vjp (\(w, h0) ->
         let h = loop h = h0 for i < n do
                   let g = map3 (\x wi hi -> 1 / (1 + f64.exp (-(x * wi + hi)))) xs[i] w h
                   in map2 (\gi hi -> f64.tanh (gi * hi + 0.5) * gi) g h
         in f64.sum h)
      (w, h0) 1

entry layered [n][l][b] (xs: [n][b]f64) (w: [l][b]f64) (s0: [l][b]f64)
                        : ([l][b]f64, [l][b]f64) =
  vjp (\(w, s0) ->
         let (_, total) =
           loop (s, total) = (copy s0, 0) for t < n do
             let (s, y) =
               loop (s, y) = (s, xs[t]) for i < l do
                 let h = map3 (\yi wi si -> f64.tanh (yi * wi + si)) y w[i] s[i]
                 in (s with [i] = h, h)
             in (s, total + f64.exp (f64.sum y * 0.1))
         in total)
      (w, s0) 1

entry scalar (x: f64) (c: f64) (n: i64) : (f64, f64) =
  vjp (\(x, c) -> loop x for _i < n do f64.exp (-x * x) + f64.cbrt (x + 2) * c) (x, c) 1

def recurrent_loss [n][b] (xs: [n][b]f64) (w: [b]f64) : f64 =
  let h = loop h = replicate b 0.1 for i < n do
            let g = map3 (\x wi hi -> 1 / (1 + f64.exp (-(x * wi + hi)))) xs[i] w h
            in map2 (\gi hi -> f64.tanh (gi * hi + 0.5) * gi) g h
  in f64.sum h

entry hessian_fwd [n][b] (xs: [n][b]f64) (w: [b]f64) (v: [b]f64) : [b]f64 =
  jvp (\w -> vjp (\w -> recurrent_loss xs w) w 1) w v

entry hessian_rev [n][b] (xs: [n][b]f64) (w: [b]f64) (v: [b]f64) : [b]f64 =
  vjp (\w -> f64.sum (map2 (*) (vjp (\w -> recurrent_loss xs w) w 1) v)) w 1

-- ==
-- entry: recurrent
-- input { [[0.5, -0.25, 0.75], [1.0, 0.5, -0.5], [0.2, -0.1, 0.3]] [0.3, -0.6, 0.9] [0.1, 0.2, -0.3] }
-- output { [0.11507347954737299, 0.011931467186588964, 0.020012641943190905] [0.0650819152752603, 0.05319740351017541, 0.04137784815039837] }
-- input { [[0.4], [-0.3]] [1.5] [0.25] }
-- output { [-0.03521302799184372] [0.15722784924078426] }

-- ==
-- entry: layered
-- input { [[0.5, 1.0, -0.5], [0.25, -0.75, 1.0], [1.0, 0.5, 0.25]] [[0.5, -0.25, 0.75], [1.0, 0.5, -0.5]] [[0.1, 0.2, -0.3], [0.0, 0.5, 0.25]] }
-- output { [[0.14574728799769268, 0.16580837592852235, -0.06990724826394124], [0.1155738503388602, 0.012314197099743868, -0.06756663108291977]] [[0.22723317463128728, 0.2370455040056209, -0.167822960537521], [0.17725386279236036, 0.22280447206495113, 0.23024959764694966]] }
-- input { [[1.0, -1.0], [0.5, 0.5]] [[0.9, 0.1]] [[0.2, -0.4]] }
-- output { [[0.0623578597717006, -0.10677176573695331]] [[0.047692229638257644, 0.15114331384227203]] }

-- ==
-- entry: scalar
-- input { 0.3 0.5 4i64 }
-- output { 0.032193002545061425 1.2396056527242012 }
-- input { -1.2 0.25 1i64 }
-- output { 0.6653263882040251 0.9283177667225558 }
-- input { 0.7 -0.4 0i64 }
-- output { 1.0 0.0 }

-- ==
-- entry: hessian_fwd
-- input { [[0.5, -0.25, 0.75], [1.0, 0.5, -0.5], [0.2, -0.1, 0.3]] [0.3, -0.6, 0.9] [1.0, 0.5, -0.25] }
-- output { [0.009664250396467384, -0.0007476214524467395, 0.003061579708018008] }
-- input { [[0.4], [-0.3]] [1.5] [2.0] }
-- output { [-0.0067075006340529255] }

-- ==
-- entry: hessian_rev
-- input { [[0.5, -0.25, 0.75], [1.0, 0.5, -0.5], [0.2, -0.1, 0.3]] [0.3, -0.6, 0.9] [1.0, 0.5, -0.25] }
-- output { [0.009664250396467384, -0.0007476214524467395, 0.003061579708018008] }
-- input { [[0.4], [-0.3]] [1.5] [2.0] }
-- output { [-0.0067075006340529255] }

