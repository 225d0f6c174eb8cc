-- A jmp through a loop that carries an array: each step reads the previous step's value
-- (an `if` on the counter) and scales it by exp(theta[k]). Forward mode carries the primal
-- and 20 tangents through the same loop; the optimiser runs the primal loop once, before the
-- map over the seeds, writing the values the tangents read into arrays. Expected values from
-- the closed form: acc[k] = theta[0] * prod(w[1..k]) * exp(theta[0] + .. + theta[k]), so
-- d acc[k] / d theta[0] = acc[k] / theta[0] + acc[k], d acc[k] / d theta[i] = acc[k] for
-- 0 < i <= k, and 0 for i > k.

-- ==
-- entry: jac
-- input { [1.0, 0.5, 2.0, 1.5] [0.3, 0.25, 0.19999999999999998, 0.14999999999999997, 0.09999999999999998, 0.04999999999999999, -5.551115123125783e-17, -0.050000000000000044, -0.10000000000000003, -0.15000000000000002, -0.2, -0.25000000000000006, -0.3000000000000001, -0.35000000000000003, -0.4000000000000001, -0.45, -0.5, -0.55, -0.6000000000000001, -0.6500000000000001] }
-- output { [[1.7548164498488041, 1.126614461613807, 2.752100021596477, 4.796226066756052], [0.0, 0.25998795268010927, 0.6351000049838024, 1.1068214000206273], [0.0, 0.0, 0.6351000049838024, 1.1068214000206273], [0.0, 0.0, 0.0, 1.1068214000206273], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]] }

def chain [n] (w: [n]f64) (theta: [20]f64) : [n]f64 =
  loop acc = replicate n 0f64 for k < n do
    let m = if k == 0 then theta[0] else acc[k - 1] * w[k]
    in acc with [k] = m * f64.exp theta[k]

entry jac [n] (w: [n]f64) (theta: [20]f64) : [20][n]f64 =
  jmp (chain w) theta (tabulate_2d 20 20 (\i j -> f64.bool (i == j)))
