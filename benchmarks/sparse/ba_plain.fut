-- ADBench's bundle adjustment written as one residual function of all its parameters, with
-- no hand compression: the parameters are the cameras (11 each), then the points (3 each),
-- then the weights (one per observation), flattened; the residuals are the two reprojection
-- errors of every observation, then the weight errors. Its sparse Jacobian
-- (`Program::sparse`, `sparse-time`) is compared with `benchmarks/ba.fut`'s hand-compressed
-- `jacobian` in benchmarks/README.md §Sparse Jacobians and Hessians.

import "../ba"

entry residual [p] (n: i64) (m: i64) (params: []f64) (obs: [p][2]i64) (feat: [p][2]f64)
                   : []f64 =
  let cam (c: i64) = params[11 * c : 11 * c + 11] :> [11]f64
  let pt (q: i64) = params[11 * n + 3 * q : 11 * n + 3 * q + 3] :> [3]f64
  let weight (i: i64) = params[11 * n + 3 * m + i]
  let reproj = map3 (\o fi i -> reproj_error (cam o[0]) (pt o[1]) (weight i) fi) obs feat (iota p)
  in flatten reproj ++ tabulate p (\i -> zach_error (weight i))

-- The parameters flattened from ADBench's input, for the comparison.
entry params [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) : []f64 =
  flatten cams ++ flatten x ++ w
