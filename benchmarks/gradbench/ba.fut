-- GradBench `ba`: ADBench's bundle adjustment. `objective` gives the reprojection residuals
-- [p][2] and the weight residuals [p]; `jacobian` the sparse 3p × (11n + 3m + p) Jacobian in
-- CSR form: row offsets [3p+1], column indices and values [31p] (reprojection rows first,
-- 15 entries each, then the weight rows, one entry each).
--
-- Inputs: cams [n][11] (angle-axis rotation, centre, focal length, principal point, two
-- radial distortion coefficients), points x [m][3], weights w [p], observations obs [p][2]
-- (camera, point) and features feat [p][2].

-- Points and vectors are tuples rather than small arrays: the compiler keeps them in
-- registers, where arrays [3] would be allocated in every iteration of the maps below.
type v3 = (f64, f64, f64)

def dot3 (a: v3) (b: v3) : f64 = a.0 * b.0 + a.1 * b.1 + a.2 * b.2

def cross (a: v3) (b: v3) : v3 =
  (a.1 * b.2 - a.2 * b.1, a.2 * b.0 - a.0 * b.2, a.0 * b.1 - a.1 * b.0)

-- Rodrigues' rotation of y by the angle-axis vector r.
def rotate (r: v3) (y: v3) : v3 =
  let sqtheta = dot3 r r
  in if sqtheta != 0 then
       let theta = f64.sqrt sqtheta
       let cos_t = f64.cos theta
       let sin_t = f64.sin theta
       let e = (r.0 / theta, r.1 / theta, r.2 / theta)
       let c = cross e y
       let t = dot3 e y * (1 - cos_t)
       in (y.0 * cos_t + c.0 * sin_t + e.0 * t,
           y.1 * cos_t + c.1 * sin_t + e.1 * t,
           y.2 * cos_t + c.2 * sin_t + e.2 * t)
     else let c = cross r y in (y.0 + c.0, y.1 + c.1, y.2 + c.2)

-- The weighted reprojection error of point xp seen by camera cam, against feature f.
def reproj_error (cam: [11]f64) (xp: [3]f64) (w: f64) (f: [2]f64) : (f64, f64) =
  let y = (xp[0] - cam[3], xp[1] - cam[4], xp[2] - cam[5])
  let z = rotate (cam[0], cam[1], cam[2]) y
  let a0 = z.0 / z.2
  let a1 = z.1 / z.2
  let rho = a0 * a0 + a1 * a1
  let dist = 1 + cam[9] * rho + cam[10] * rho * rho
  in (w * (cam[6] * a0 * dist + cam[7] - f[0]), w * (cam[6] * a1 * dist + cam[8] - f[1]))

def zach_error (w: f64) : f64 = 1 - w * w

entry objective [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                            (feat: [p][2]f64) : ([p][2]f64, [p]f64) =
  let reproj = map3 (\o wi fi -> let (e0, e1) = reproj_error cams[o[0]] x[o[1]] wi fi
                                 in [e0, e1])
                    obs w feat
  in (reproj, map zach_error w)

-- Per observation the 2×15 block of its two reprojection rows (columns: 11 camera
-- parameters, 3 point coordinates, the weight), one vjp per row.
def blocks_rev [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                           (feat: [p][2]f64) : [p][2][15]f64 =
  map3 (\o wi fi ->
          let row (seed: (f64, f64)) =
            let (dc, dx, dw) = vjp (\(c, xp, wv) -> reproj_error c xp wv fi)
                                   (cams[o[0]], x[o[1]], wi) seed
            in dc ++ dx ++ [dw] :> [15]f64
          in [row (1, 0), row (0, 1)])
       obs w feat

-- The same blocks by 15 jvps (one jmp).
def blocks_fwd [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                           (feat: [p][2]f64) : [p][2][15]f64 =
  let seeds = tabulate 15 (\j -> (tabulate 11 (\t -> f64.bool (t == j)),
                                  tabulate 3 (\t -> f64.bool (t + 11 == j)),
                                  f64.bool (j == 14)))
  in map3 (\o wi fi ->
             let cols = jmp (\(c, xp, wv) -> reproj_error c xp wv fi) (cams[o[0]], x[o[1]], wi) seeds
             in [map (.0) cols, map (.1) cols])
          obs w feat

def csr [p] (n: i64) (m: i64) (obs: [p][2]i64) (blocks: [p][2][15]f64) (wrows: [p]f64)
            : ([]i32, []i32, []f64) =
  let rows = tabulate (3 * p + 1) (\r -> i32.i64 (if r <= 2 * p then 15 * r else 30 * p + (r - 2 * p)))
  let block_cols =
    map2 (\o i ->
            let cs = tabulate 15 (\t -> i32.i64 (if t < 11 then 11 * o[0] + t
                                                 else if t < 14 then 11 * n + 3 * o[1] + (t - 11)
                                                 else 11 * n + 3 * m + i))
            in [cs, cs])
         obs (iota p)
  let cols = flatten_3d block_cols ++ map (\i -> i32.i64 (11 * n + 3 * m + i)) (iota p)
  let vals = flatten_3d blocks ++ wrows
  in (rows, cols, vals)

entry jacobian [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                           (feat: [p][2]f64) : ([]i32, []i32, []f64) =
  csr n m obs (blocks_rev cams x w obs feat) (map (\wi -> vjp zach_error wi 1) w)

entry jacobian_fwd [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                               (feat: [p][2]f64) : ([]i32, []i32, []f64) =
  csr n m obs (blocks_fwd cams x w obs feat) (map (\wi -> jvp zach_error wi 1) w)

