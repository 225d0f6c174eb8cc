-- NNMF: the exponential-distribution negative log-likelihood D(A | W H)
-- (benchmarks/README.md §NNMF) and its gradient with respect to H, by reverse mode, by
-- forward mode (one jvp per entry of H) and by the closed form Wᵀ (1/X - A/X²).
--
-- Inputs: a [m][n] positive data (constant), w [m][r], h [r][n].

def matmul [m] [r] [n] (w: [m][r]f64) (h: [r][n]f64) : [m][n]f64 =
  map (\wr -> map (\hc -> f64.sum (map2 (*) wr hc)) (transpose h)) w

def nll [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) : f64 =
  let x = matmul w h
  in f64.sum (map2 (\xr ar -> f64.sum (map2 (\xv av -> f64.log xv + av / xv) xr ar)) x a)

-- ==
-- entry: objective
-- input @ data/nnmf_4_5_2.in
-- output { 2.553335768e+01 }
-- input @ data/nnmf_10_10_1.in
-- output { 1.141301327e+02 }

entry objective [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) : f64 = nll a w h

-- ==
-- entry: gradient gradient_fwd gradient_closed_form
-- input @ data/nnmf_4_5_2.in
-- output { [[1.073890059e+00, 1.079785342e+00, 6.756885788e-01, 6.263669816e-01, 7.497922532e-01],
--           [1.356152321e+00, 1.356219148e+00, 8.638293703e-01, 9.355888596e-01, 9.756269907e-01]] }
-- input @ data/nnmf_10_10_1.in
-- output { [[1.367051145e+00, -3.286768030e+00, -8.711839612e-01, -6.190267956e+00,
--            1.178080795e+00, -5.478120812e+00, 1.162092900e+00, -4.608078700e+00,
--            -7.543030635e+00, 4.199505074e-01]] }

-- Reverse mode: one vjp.
entry gradient [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) : [r][n]f64 =
  vjp (nll a w) h 1

-- Forward mode: one jvp per entry of H (the dF~ formulation, quadratic unless optimised).
entry gradient_fwd [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64) : [r][n]f64 =
  let zero = replicate r (replicate n 0f64)
  in tabulate_2d r n (\q j -> jvp (nll a w) h (copy zero with [q, j] = 1))

-- The known closed form, as a baseline.
entry gradient_closed_form [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64)
                                       : [r][n]f64 =
  let x = matmul w h
  let g = map2 (\xr ar -> map2 (\xv av -> 1 / xv - av / (xv * xv)) xr ar) x a
  in matmul (transpose w) g

-- Both gradients (W and H) by one vjp.
entry gradient_wh [m] [n] [r] (a: [m][n]f64) (w: [m][r]f64) (h: [r][n]f64)
                              : ([m][r]f64, [r][n]f64) =
  vjp (\(w', h') -> nll a w' h') (w, h) 1
