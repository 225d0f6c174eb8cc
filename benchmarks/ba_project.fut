-- The dF~ bundle-adjustment `project` benchmark (benchmarks/README.md §BA project): one camera
-- projecting N points, and the dense 2N × 11 Jacobian with respect to the camera, by forward
-- mode (11 directions in one jmp) and by reverse mode (two vjps per point).
--
-- Inputs: cam [11] (as in ba.fut), points x [N][3] (constant).

-- The projection of ba.fut (copied: `import` is not supported yet).

def dot3 (a: [3]f64) (b: [3]f64) : f64 = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]

def cross (a: [3]f64) (b: [3]f64) : [3]f64 =
  [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]

-- Rodrigues' rotation of y by the angle-axis vector r.
def rotate (r: [3]f64) (y: [3]f64) : [3]f64 =
  let sqtheta = dot3 r r
  in if sqtheta != 0 then
       let theta = f64.sqrt sqtheta
       let cos_t = f64.cos theta
       let sin_t = f64.sin theta
       let e = map (/ theta) r
       let exy = cross e y
       let ey = dot3 e y
       in map3 (\yi ci ei -> yi * cos_t + ci * sin_t + ei * ey * (1 - cos_t)) y exy e
     else map2 (+) y (cross r y)

-- Projection of point xp by camera cam.
def project (cam: [11]f64) (xp: [3]f64) : [2]f64 =
  let y = [xp[0] - cam[3], xp[1] - cam[4], xp[2] - cam[5]]
  let z = rotate [cam[0], cam[1], cam[2]] y
  let a0 = z[0] / z[2]
  let a1 = z[1] / z[2]
  let rho = a0 * a0 + a1 * a1
  let dist = 1 + cam[9] * rho + cam[10] * rho * rho
  in [cam[6] * a0 * dist + cam[7], cam[6] * a1 * dist + cam[8]]

def project_all [n] (x: [n][3]f64) (cam: [11]f64) : [n * 2]f64 =
  flatten (map (project cam) x)

-- ==
-- entry: objective_sum
-- input @ data/project_10.in
-- output { 1.114322152e+04 }

entry objective [n] (cam: [11]f64) (x: [n][3]f64) : [n * 2]f64 = project_all x cam

entry objective_sum [n] (cam: [11]f64) (x: [n][3]f64) : f64 = f64.sum (project_all x cam)

def cam_seeds : [11][11]f64 = tabulate_2d 11 11 (\i j -> f64.bool (i == j))

-- Row 2i + a is coordinate a of point i's projection, column t camera parameter t.
-- (The differentiated function returns [n][2] rather than the flattened [n * 2]: with the
-- flattening inside, using the size of jmp's result afterwards fails with "variable mul_...
-- is not bound here".)
entry jacobian_fwd [n] (cam: [11]f64) (x: [n][3]f64) : [n * 2][11]f64 =
  flatten (map transpose (transpose (jmp (\c -> map (project c) x) cam cam_seeds)))

entry jacobian_rev [n] (cam: [11]f64) (x: [n][3]f64) : [n * 2][11]f64 =
  flatten (map (\xp -> mjp (\c -> project c xp) cam [[1, 0], [0, 1]]) x)

-- ==
-- entry: jacobian_summary_fwd jacobian_summary_rev
-- input @ data/project_10.in
-- output { [-1.122546546e+03, 4.273885127e+02, -5.670210613e+01, -7.441922400e+00,
--           1.565774704e+01, -8.167575856e+00, 6.295399046e-01, 1.0, 0.0,
--           5.906671897e+02, 1.681994398e+03]
--          [-1.999806003e+03, -7.798022932e+02, 1.486878841e+03, -3.771165235e+01,
--           1.549120716e+01, 7.837460310e+00, 2.052559895e+00, 0.0, 1.0,
--           1.925818803e+03, 5.483995883e+03]
--          [-1.767685273e+03, -7.170781901e+02, 1.312955882e+03, -3.270393340e+01,
--           1.376169822e+01, 7.602133807e+00, 1.914118559e+00, 0.0, 1.0,
--           1.661924509e+03, 4.284038791e+03]
--          7.458661775e+04 1.533423796e+05 }

-- Rows 0, 1 and the last row of the Jacobian, the sum of its entries and of their magnitudes
-- (the values the reference gives).
def summary [r] (j: [r][11]f64) : ([11]f64, [11]f64, [11]f64, f64, f64) =
  let all = flatten j
  in (j[0], j[1], j[r - 1], f64.sum all, f64.sum (map f64.abs all))

entry jacobian_summary_fwd [n] (cam: [11]f64) (x: [n][3]f64) =
  summary (jacobian_fwd cam x)

entry jacobian_summary_rev [n] (cam: [11]f64) (x: [n][3]f64) =
  summary (jacobian_rev cam x)
