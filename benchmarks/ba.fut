-- ADBench BA: bundle-adjustment residuals (benchmarks/README.md §BA) and their sparse
-- Jacobian, by forward and by reverse mode.
--
-- Inputs: cams [n][11] (angle-axis rotation, centre, focal length, principal point, two
-- radial distortion coefficients), points x [m][3], weights w [p], observations obs [p][2]
-- (camera, point) and measured features feat [p][2].
--
-- Each reprojection residual depends on 15 inputs only (its camera, its point, its weight),
-- so the Jacobian is computed block by block: per observation a 2×15 block from 15 jvps
-- (one jmp) or from 2 vjps (one mjp), all observations in one map.

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

def reproj_error (cam: [11]f64) (xp: [3]f64) (wi: f64) (fi: [2]f64) : [2]f64 =
  let p = project cam xp
  in [wi * (p[0] - fi[0]), wi * (p[1] - fi[1])]

def zach_error (wi: f64) : f64 = 1 - wi * wi

-- ==
-- entry: objective
-- input @ data/ba_test.in
-- output @ data/ba_test.objective.out

entry objective [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                            (feat: [p][2]f64) : ([p][2]f64, [p]f64) =
  let reproj = map3 (\o wi fi -> reproj_error cams[o[0]] x[o[1]] wi fi) obs w feat
  in (reproj, map zach_error w)

-- The 15 one-hot directions of an observation's inputs (camera, point, weight).
def seeds : [15]([11]f64, [3]f64, f64) =
  tabulate 15 (\j -> (tabulate 11 (\t -> f64.bool (t == j)),
                      tabulate 3 (\t -> f64.bool (t + 11 == j)),
                      f64.bool (j == 14)))

-- ==
-- entry: jacobian_blocks jacobian_blocks_rev
-- input @ data/ba_test.in
-- output @ data/ba_test.blocks.out

-- Per observation the 2×15 block of the reprojection rows (columns: 11 camera parameters,
-- 3 point coordinates, the weight), and per observation the weight row's entry ∂zach/∂w.
-- Forward mode: 15 directions pushed through each observation at once.
entry jacobian_blocks [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64)
                                  (obs: [p][2]i64) (feat: [p][2]f64) : ([p][2][15]f64, [p]f64) =
  let blocks =
    map3 (\o wi fi ->
            transpose (jmp (\(c, xp, wv) -> reproj_error c xp wv fi)
                           (cams[o[0]], x[o[1]], wi) seeds))
         obs w feat
  in (blocks, map (\wi -> jvp zach_error wi 1) w)

-- Reverse mode: the two rows of each block by two vjps (one mjp).
entry jacobian_blocks_rev [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64)
                                      (obs: [p][2]i64) (feat: [p][2]f64)
                                      : ([p][2][15]f64, [p]f64) =
  let blocks =
    map3 (\o wi fi ->
            let (dc, dx, dw) = unzip3 (mjp (\(c, xp, wv) -> reproj_error c xp wv fi)
                                           (cams[o[0]], x[o[1]], wi) [[1, 0], [0, 1]])
            in map3 (\rc rx rw -> rc ++ rx ++ [rw] :> [15]f64) dc dx dw)
         obs w feat
  in (blocks, map (\wi -> vjp zach_error wi 1) w)

-- The Jacobian in ADBench's CSR layout: row offsets [3p+1], column indices [31p] and values
-- [31p]; reprojection rows first (15 entries each), then the weight rows (one entry each).
def csr [p] (n: i64) (m: i64) (obs: [p][2]i64) (blocks: [p][2][15]f64) (wrows: [p]f64)
                    : ([]i64, []i64, []f64) =
  let rows = tabulate (3 * p + 1) (\r -> if r <= 2 * p then 15 * r else 30 * p + (r - 2 * p))
  let block_cols =
    map2 (\o i ->
            let cs = tabulate 15 (\t -> if t < 11 then 11 * o[0] + t
                                        else if t < 14 then 11 * n + 3 * o[1] + (t - 11)
                                        else 11 * n + 3 * m + i)
            in [cs, cs])
         obs (iota p)
  let cols = flatten_3d block_cols ++ map (\i -> 11 * n + 3 * m + i) (iota p)
  let vals = flatten_3d blocks ++ wrows
  in (rows, cols, vals)

-- ==
-- entry: jacobian jacobian_rev
-- input @ data/ba_test.in
-- output @ data/ba_test.jacobian.out

entry jacobian [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                           (feat: [p][2]f64) : ([]i64, []i64, []f64) =
  let (blocks, wrows) = jacobian_blocks cams x w obs feat
  in csr n m obs blocks wrows

entry jacobian_rev [n] [m] [p] (cams: [n][11]f64) (x: [m][3]f64) (w: [p]f64) (obs: [p][2]i64)
                               (feat: [p][2]f64) : ([]i64, []i64, []f64) =
  let (blocks, wrows) = jacobian_blocks_rev cams x w obs feat
  in csr n m obs blocks wrows
