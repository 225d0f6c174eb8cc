-- A bundle-adjustment-like residual written as a plain function of all parameters: each
-- observation reads the camera and the point named by index arrays (data, not program
-- structure). The sparse Jacobian against the dense one.

import "check"

-- Parameters: c cameras of 4 numbers, then p points of 3; observation o reads camera
-- cams[o] and point pts[o] and gives 2 residuals.
def residual [n] [o] (c: i64) (cams: [o]i64) (pts: [o]i64) (meas: [o]f64) (x: [n]f64)
    : [2 * o]f64 =
  let r =
    map3 (\ci pi z ->
            let cam = x[4 * ci:4 * ci + 4]
            let pt = x[4 * c + 3 * pi:4 * c + 3 * pi + 3]
            let depth = cam[3] + pt[2] * pt[2] + 1
            let u = (cam[0] * pt[0] + cam[1] * pt[1]) / depth
            let v = cam[2] * f64.sin pt[1] + pt[0] * pt[2]
            in [u - z, v + z])
         cams pts meas
  in sized (2 * o) (flatten r)

def problem (n: i64) : (i64, []i64, []i64, []f64) =
  let c = n / 10
  let p = (n - 4 * c) / 3
  let o = 3 * p
  in (c, map (\k -> (k * 7 + k / 3) % c) (iota o), map (\k -> k % p) (iota o),
      map (\k -> f64.i64 (k % 5) / 5) (iota o))

-- ==
-- entry: check
-- random input { [20]f64 } output { true }
-- random input { [50]f64 } output { true }
entry check [n] (x: [n]f64) : bool =
  let (c, cams, pts, meas) = problem n
  in check_jacobian (residual c cams pts meas) x
