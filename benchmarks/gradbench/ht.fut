-- GradBench `ht`: ADBench's hand tracking. The residuals between c observed points and a
-- hand model posed by θ [26] and skinned (linear blend skinning): `objective_simple` /
-- `objective_complicated` (each point corresponds to a vertex / to a point of a triangle
-- given by barycentric coordinates us), residuals point-major (entry 3i + t is coordinate t
-- of point i); their dense Jacobians by forward mode, all columns in one jmp: [3c][26]
-- (`jacobian_simple`) and [3c][28] (`jacobian_complicated`, whose columns 0 and 1 are the
-- derivatives along us[i][0] and us[i][1] of each point's own rows, then θ).
--
-- Model (b bones, v vertices): parents [b] (-1 for the root; parents precede children),
-- base_relatives and inverse_base_absolutes [b][4][4], base_positions [v][4] (homogeneous),
-- weights [v][b], triangles [t][3], is_mirrored.

type mat4 = [4][4]f64
type mat3 = [3][3]f64

def matmul4 (a: mat4) (b: mat4) : mat4 =
  tabulate_2d 4 4 (\i j -> a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j] + a[i, 3] * b[3, j])

def matmul3 (a: mat3) (b: mat3) : mat3 =
  tabulate_2d 3 3 (\i j -> a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j])

-- The pose table: row 0 global rotation, row 1 global scale, row 2 global translation, row
-- 3 + k the Euler angles of bone k (bones 1 to 20 are the fingers' four bones each; the
-- first three bones of a finger get one, one and two angles from θ).
def pose_params (nbones: i64) (theta: [26]f64) : [][3]f64 =
  tabulate (nbones + 3) (\r -> tabulate 3 (\c ->
    if r == 0 then theta[c]
    else if r == 1 then 1
    else if r == 2 then theta[3 + c]
    else let k = r - 3
         let f = (k - 1) / 4
         let j = (k - 1) % 4
         in if k < 1 || k > 20 then 0
            else if j == 1 && c < 2 then theta[6 + 4 * f + c]
            else if j == 2 && c == 0 then theta[8 + 4 * f]
            else if j == 3 && c == 0 then theta[9 + 4 * f]
            else 0))

-- Rz(a1) · Ry(a2) · Rx(a0)
def euler (a: [3]f64) : mat3 =
  let (c0, s0) = (f64.cos a[0], f64.sin a[0])
  let (c1, s1) = (f64.cos a[1], f64.sin a[1])
  let (c2, s2) = (f64.cos a[2], f64.sin a[2])
  let rx = [[1, 0, 0], [0, c0, -s0], [0, s0, c0]]
  let ry = [[c2, 0, s2], [0, 1, 0], [-s2, 0, c2]]
  let rz = [[c1, -s1, 0], [s1, c1, 0], [0, 0, 1]]
  in matmul3 rz (matmul3 ry rx)

def homogeneous (r: mat3) : mat4 =
  tabulate_2d 4 4 (\i j -> if i < 3 && j < 3 then r[i, j] else f64.bool (i == 3 && j == 3))

def angle_axis (r: [3]f64) : mat3 =
  let s = f64.sqrt (r[0] * r[0] + r[1] * r[1] + r[2] * r[2])
  in if s < 1e-4 then [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
     else let (x, y, z) = (r[0] / s, r[1] / s, r[2] / s)
          let (c, sn) = (f64.cos s, f64.sin s)
          in [[x * x + (1 - x * x) * c, x * y * (1 - c) - z * sn, x * z * (1 - c) + y * sn],
              [x * y * (1 - c) + z * sn, y * y + (1 - y * y) * c, y * z * (1 - c) - x * sn],
              [x * z * (1 - c) - y * sn, z * y * (1 - c) + x * sn, z * z + (1 - z * z) * c]]

-- Every vertex of the posed mesh, [v][3].
def posed_vertices [b] [v] (parents: [b]i64) (base_relatives: [b]mat4)
                           (inverse_base_absolutes: [b]mat4) (base_positions: [v][4]f64)
                           (weights: [v][b]f64) (is_mirrored: bool) (theta: [26]f64)
                           : [v][3]f64 =
  let pose = pose_params b theta
  let rel = map2 (\br k -> matmul4 br (homogeneous (euler pose[3 + k]))) base_relatives (iota b)
  let absolute =
    loop acc = replicate b (replicate 4 (replicate 4 0f64)) for k < b do
      let m = if parents[k] == -1 then rel[k] else matmul4 acc[parents[k]] rel[k]
      in acc with [k] = m
  let transforms = map2 matmul4 absolute inverse_base_absolutes
  let mirror = if is_mirrored then -1 else 1
  let g = angle_axis pose[0]
  let scale = pose[1]
  let shift = pose[2]
  in map2 (\p ws ->
             let q = tabulate 3 (\r ->
                       f64.sum (map2 (\t wb -> wb * (t[r, 0] * p[0] + t[r, 1] * p[1]
                                                     + t[r, 2] * p[2] + t[r, 3] * p[3]))
                                     transforms ws))
             let q = [mirror * q[0], q[1], q[2]]
             in tabulate 3 (\r -> g[r, 0] * scale[0] * q[0] + g[r, 1] * scale[1] * q[1]
                                  + g[r, 2] * scale[2] * q[2] + shift[r]))
          base_positions weights

def simple_residuals [b] [v] [c] (parents: [b]i64) (base_relatives: [b]mat4)
                                 (inverse_base_absolutes: [b]mat4) (base_positions: [v][4]f64)
                                 (weights: [v][b]f64) (is_mirrored: bool)
                                 (correspondences: [c]i64) (points: [c][3]f64)
                                 (theta: [26]f64) : [c * 3]f64 =
  let verts = posed_vertices parents base_relatives inverse_base_absolutes base_positions
                             weights is_mirrored theta
  in flatten (map2 (\k p -> map2 (-) p verts[k]) correspondences points)

def complicated_residuals [b] [v] [t] [c] (parents: [b]i64) (base_relatives: [b]mat4)
                                          (inverse_base_absolutes: [b]mat4)
                                          (base_positions: [v][4]f64) (weights: [v][b]f64)
                                          (is_mirrored: bool) (triangles: [t][3]i64)
                                          (correspondences: [c]i64) (points: [c][3]f64)
                                          (us: [c][2]f64) (theta: [26]f64) : [c * 3]f64 =
  let verts = posed_vertices parents base_relatives inverse_base_absolutes base_positions
                             weights is_mirrored theta
  in flatten (map3 (\k p u ->
                      let tr = triangles[k]
                      let (va, vb, vc) = (verts[tr[0]], verts[tr[1]], verts[tr[2]])
                      in tabulate 3 (\r -> p[r] - (u[0] * va[r] + u[1] * vb[r]
                                                   + (1 - u[0] - u[1]) * vc[r])))
                   correspondences points us)

entry objective_simple [b] [v] [c] (parents: [b]i64) (base_relatives: [b][4][4]f64)
                                   (inverse_base_absolutes: [b][4][4]f64)
                                   (base_positions: [v][4]f64) (weights: [v][b]f64)
                                   (is_mirrored: bool) (correspondences: [c]i64)
                                   (points: [c][3]f64) (theta: [26]f64) : [c * 3]f64 =
  simple_residuals parents base_relatives inverse_base_absolutes base_positions weights
                   is_mirrored correspondences points theta

entry jacobian_simple [b] [v] [c] (parents: [b]i64) (base_relatives: [b][4][4]f64)
                                  (inverse_base_absolutes: [b][4][4]f64)
                                  (base_positions: [v][4]f64) (weights: [v][b]f64)
                                  (is_mirrored: bool) (correspondences: [c]i64)
                                  (points: [c][3]f64) (theta: [26]f64) : [c * 3][26]f64 =
  let seeds = tabulate_2d 26 26 (\i j -> f64.bool (i == j))
  in transpose (jmp (simple_residuals parents base_relatives inverse_base_absolutes
                                      base_positions weights is_mirrored correspondences points)
                    theta seeds)

entry objective_complicated [b] [v] [t] [c] (parents: [b]i64) (base_relatives: [b][4][4]f64)
                                            (inverse_base_absolutes: [b][4][4]f64)
                                            (base_positions: [v][4]f64) (weights: [v][b]f64)
                                            (is_mirrored: bool) (triangles: [t][3]i64)
                                            (correspondences: [c]i64) (points: [c][3]f64)
                                            (us: [c][2]f64) (theta: [26]f64) : [c * 3]f64 =
  complicated_residuals parents base_relatives inverse_base_absolutes base_positions weights
                        is_mirrored triangles correspondences points us theta

entry jacobian_complicated [b] [v] [t] [c] (parents: [b]i64) (base_relatives: [b][4][4]f64)
                                           (inverse_base_absolutes: [b][4][4]f64)
                                           (base_positions: [v][4]f64) (weights: [v][b]f64)
                                           (is_mirrored: bool) (triangles: [t][3]i64)
                                           (correspondences: [c]i64) (points: [c][3]f64)
                                           (us: [c][2]f64) (theta: [26]f64) : [c * 3][28]f64 =
  let seeds = tabulate 28 (\j -> (replicate c [f64.bool (j == 0), f64.bool (j == 1)],
                                  tabulate 26 (\i -> f64.bool (i + 2 == j))))
  in transpose (jmp (\(u, th) -> complicated_residuals parents base_relatives
                                                       inverse_base_absolutes base_positions
                                                       weights is_mirrored triangles
                                                       correspondences points u th)
                    (us, theta) seeds)
