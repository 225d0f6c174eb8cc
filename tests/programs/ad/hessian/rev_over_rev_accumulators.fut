-- Reverse over reverse through the accumulators that reverse mode produces for arrays read by
-- index inside a map (gathers, captured matrices, branches): full Hessians by vjp of vjp,
-- Hessian-vector products with array and matrix cotangents.

def rosen [n] (x: [n]f64) : f64 =
  f64.sum (tabulate (n - 1) (\i -> 100 * (x[i + 1] - x[i] * x[i]) ** 2 + (1 - x[i]) ** 2))

-- ==
-- entry: rosen_hessian
-- input { [0.5, -1.2, 2.0] }
-- output { [[782.0, -200.0, 0.0], [-200.0, 1130.0, 480.0], [0.0, 480.0, 200.0]] }
-- input { [1.0, 1.0, 1.0, 1.0] }
-- output { [[802.0, -400.0, 0.0, 0.0], [-400.0, 1002.0, -400.0, 0.0], [0.0, -400.0, 1002.0, -400.0], [0.0, 0.0, -400.0, 200.0]] }
-- input { [-0.3, 0.7, 0.1, 1.9, -1.1] }
-- output { [[-170.0, 120.0, 0.0, 0.0, 0.0], [120.0, 750.0, -280.0, 0.0, 0.0], [0.0, -280.0, -546.0, -40.0, 0.0], [0.0, 0.0, -40.0, 4974.0, -760.0], [0.0, 0.0, 0.0, -760.0, 200.0]] }
entry rosen_hessian [n] (x: [n]f64) : [n][n]f64 =
  tabulate n (\i -> vjp (\y -> vjp rosen y 1) x (tabulate n (\j -> f64.bool (i == j))))

def quad [m] [n] (a: [m][n]f64) (x: [n]f64) : f64 =
  f64.sum (map (\r -> let s = f64.sum (map2 (*) r x) in s * s) a)

-- ==
-- entry: quad_hvp
-- input { [[1.0, 2.0, -1.0], [0.5, -0.25, 3.0]] [0.3, -0.7, 1.1] [1.0, -2.0, 0.5] }
-- output { [-4.5, -15.25, 22.0] }
entry quad_hvp [m] [n] (a: [m][n]f64) (x: [n]f64) (u: [n]f64) : [n]f64 =
  vjp (\y -> vjp (quad a) y 1) x u

def layer [m] [n] (xs: [n]f64) (w: [m][n]f64) : f64 =
  f64.sum (map (\r -> f64.tanh (f64.sum (map2 (*) r xs))) w)

-- ==
-- entry: layer_hvp
-- input { [0.4, -1.3, 0.8] [[0.2, -0.5, 0.9], [1.1, 0.3, -0.4]] [[1.0, 0.0, -1.0], [0.5, 2.0, 0.25]] }
-- output { [[0.056674938144238345, -0.1841935489687746, 0.11334987628847669], [-0.43173402351735746, 1.4031355764314117, -0.8634680470347149]] }
entry layer_hvp [m] [n] (xs: [n]f64) (w: [m][n]f64) (u: [m][n]f64) : [m][n]f64 =
  vjp (\v -> vjp (layer xs) v 1) w u

def branchy [n] (x: [n]f64) : f64 =
  f64.sum (tabulate n (\i -> if i % 2 == 0 then x[i] * x[(i + 1) % n] else x[i] * x[i] * x[i]))

-- ==
-- entry: branchy_hessian
-- input { [0.5, -1.0, 2.0, 0.3] }
-- output { [[0.0, 1.0, 0.0, 0.0], [1.0, -6.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.7999999999999998]] }
-- input { [1.5, -0.2, 0.7] }
-- output { [[0.0, 1.0, 1.0], [1.0, -1.2000000000000002, 0.0], [1.0, 0.0, 0.0]] }
entry branchy_hessian [n] (x: [n]f64) : [n][n]f64 =
  tabulate n (\i -> vjp (\y -> vjp branchy y 1) x (tabulate n (\j -> f64.bool (i == j))))

def neighbours [n] (x: [n]f64) : f64 =
  f64.sum (tabulate n (\i -> f64.sin (x[i]) * x[(i + 2) % n]))

-- ==
-- entry: neighbours_gnorm
-- input { [0.1, 0.9, -0.4, 1.3] }
-- output { [0.6726485749529361, -1.7872035373899824, -3.002547134075435, 1.3742192233126982] }
-- input { [2.0, -1.0, 0.5, 0.25, -0.75] }
-- output { [1.8797808997936785, 0.5856099639824287, -0.2949151757593029, -1.5993721387978197, -0.015183066493181907] }
entry neighbours_gnorm [n] (x: [n]f64) : [n]f64 =
  vjp (\y -> let g = vjp neighbours y 1 in f64.sum (map (\t -> t * t) g)) x 1

-- A loop inside the map reads the captured coefficients, so the inner vjp's loop passes an
-- accumulator on from iteration to iteration.
def horner [n] (cs: [n]f64) (xs: []f64) : f64 =
  f64.sum (map (\x -> loop acc = 0 for i < n do acc * x + f64.sin cs[i] * cs[i]) xs)

-- ==
-- entry: horner_hessian
-- input { [0.4, -1.1, 0.7] [0.5, -1.0, 1.5] }
-- output { [[5.902241278788084, 0.0, 0.0], [0.0, -0.07313585321642452, 0.0], [0.0, 0.0, 3.23619598050778]] }
-- input { [1.2, 0.3] [2.0] }
-- output { [[-0.7874627884146483, 0.0], [0.0, 1.8220169162528101]] }
entry horner_hessian [n] (cs: [n]f64) (xs: []f64) : [n][n]f64 =
  tabulate n (\i -> vjp (\c -> vjp (\d -> horner d xs) c 1) cs (tabulate n (\j -> f64.bool (i == j))))
