-- ADBench HAND: hand tracking by linear blend skinning (benchmarks/README.md §HAND), simple and
-- complicated variants, with their dense Jacobians by forward mode (one jvp per column, all
-- columns in one jmp).
--
-- Model: parent [B] (-1 for the root; parents precede children), base_rel and inv_base_abs
-- [B][4][4], base_pos [V][3], weight [B][V], tri [T][3]. Data: corr [N] (a vertex per point,
-- or a triangle in the complicated variant), pts [N][3], us [N][2] (complicated), θ [26].
-- Residuals are point-major: entry 3i + t is coordinate t of point i.

type mat4 = [4][4]f64
type mat3 = [3][3]f64

def matmul4 (a: mat4) (b: mat4) : mat4 =
  tabulate_2d 4 4 (\i j -> a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j] + a[i, 3] * b[3, j])

def matmul3 (a: mat3) (b: mat3) : mat3 =
  tabulate_2d 3 3 (\i j -> a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j])

-- The pose table: row 0 global rotation, row 1 global scale, row 2 global translation, row
-- 3 + b the Euler angles of bone b.
def pose_params (nbones: i64) (theta: [26]f64) : [][3]f64 =
  tabulate (nbones + 3) (\r -> tabulate 3 (\c ->
    if r == 0 then theta[c]
    else if r == 1 then 1
    else if r == 2 then theta[3 + c]
    else let b = r - 3
         let f = (b - 1) / 4
         let j = (b - 1) % 4
         in if b < 1 || b > 20 then 0
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

-- Every vertex of the posed mesh, [V][3].
def posed_vertices [b] [v] (parent: [b]i64) (base_rel: [b]mat4) (inv_base_abs: [b]mat4)
                           (base_pos: [v][3]f64) (weight: [b][v]f64) (theta: [26]f64)
                           : [v][3]f64 =
  let pose = pose_params b theta
  let rel = map2 (\br k -> matmul4 br (homogeneous (euler pose[3 + k]))) base_rel (iota b)
  let absolute =
    loop acc = replicate b (replicate 4 (replicate 4 0f64)) for k < b do
      let m = if parent[k] == -1 then rel[k] else matmul4 acc[parent[k]] rel[k]
      in acc with [k] = m
  let transforms = map2 matmul4 absolute inv_base_abs
  let skinned =
    map2 (\p j ->
            tabulate 3 (\c ->
              f64.sum (map2 (\t wb -> wb[j] * (t[c, 0] * p[0] + t[c, 1] * p[1]
                                               + t[c, 2] * p[2] + t[c, 3]))
                            transforms weight)))
         base_pos (iota v)
  let g = angle_axis pose[0]
  let scale = pose[1]
  let shift = pose[2]
  in map (\q -> tabulate 3 (\r -> g[r, 0] * scale[0] * q[0] + g[r, 1] * scale[1] * q[1]
                                  + g[r, 2] * scale[2] * q[2] + shift[r]))
         skinned

def simple_residuals [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b]mat4)
                                     (inv_base_abs: [b]mat4) (base_pos: [v][3]f64)
                                     (weight: [b][v]f64) (_tri: [t][3]i64) (corr: [n]i64)
                                     (pts: [n][3]f64) (theta: [26]f64) : [n * 3]f64 =
  let verts = posed_vertices parent base_rel inv_base_abs base_pos weight theta
  in flatten (map2 (\c p -> map2 (-) p verts[c]) corr pts)

def complicated_residuals [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b]mat4)
                                          (inv_base_abs: [b]mat4) (base_pos: [v][3]f64)
                                          (weight: [b][v]f64) (tri: [t][3]i64) (corr: [n]i64)
                                          (pts: [n][3]f64) (us: [n][2]f64) (theta: [26]f64)
                                          : [n * 3]f64 =
  let verts = posed_vertices parent base_rel inv_base_abs base_pos weight theta
  in flatten (map3 (\c p u ->
                      let tr = tri[c]
                      let (va, vb, vc) = (verts[tr[0]], verts[tr[1]], verts[tr[2]])
                      in tabulate 3 (\r -> p[r] - (u[0] * va[r] + u[1] * vb[r]
                                                   + (1 - u[0] - u[1]) * vc[r])))
                   corr pts us)

def theta_seeds : [26][26]f64 = tabulate_2d 26 26 (\i j -> f64.bool (i == j))

-- ==
-- entry: objective_simple
-- input @ data/hand_test.in
-- output { [1.651931479e-01, -1.745427693e-01, 1.547511616e-01, -1.256517497e-01,
--           -4.251029354e-02, -1.306657811e-01] }

entry objective_simple [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b][4][4]f64)
                                       (inv_base_abs: [b][4][4]f64) (base_pos: [v][3]f64)
                                       (weight: [b][v]f64) (tri: [t][3]i64) (corr: [n]i64)
                                       (pts: [n][3]f64) (theta: [26]f64) : [n * 3]f64 =
  simple_residuals parent base_rel inv_base_abs base_pos weight tri corr pts theta

-- ==
-- entry: jacobian_simple
-- input @ data/hand_test.in
-- output @ data/hand_test.jacobian.out

-- The 3N × 26 Jacobian, column t being the derivative along θ[t].
entry jacobian_simple [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b][4][4]f64)
                                      (inv_base_abs: [b][4][4]f64) (base_pos: [v][3]f64)
                                      (weight: [b][v]f64) (tri: [t][3]i64) (corr: [n]i64)
                                      (pts: [n][3]f64) (theta: [26]f64) : [n * 3][26]f64 =
  transpose (jmp (simple_residuals parent base_rel inv_base_abs base_pos weight tri corr pts)
                 theta theta_seeds)

-- One reverse-mode product ybar ↦ ybar · J (used to check the transposition identity).
entry vjp_simple [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b][4][4]f64)
                                 (inv_base_abs: [b][4][4]f64) (base_pos: [v][3]f64)
                                 (weight: [b][v]f64) (tri: [t][3]i64) (corr: [n]i64)
                                 (pts: [n][3]f64) (theta: [26]f64) (ybar: [n * 3]f64)
                                 : [26]f64 =
  vjp (simple_residuals parent base_rel inv_base_abs base_pos weight tri corr pts) theta ybar

-- ==
-- entry: objective_complicated
-- input @ data/hand_complicated.in
-- output { [1.561876617e-01, -1.493005260e-01, 1.722380898e-01, -9.887704518e-02,
--           -1.612380355e-02, -1.975867685e-01] }

entry objective_complicated [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b][4][4]f64)
                                            (inv_base_abs: [b][4][4]f64)
                                            (base_pos: [v][3]f64) (weight: [b][v]f64)
                                            (tri: [t][3]i64) (corr: [n]i64) (pts: [n][3]f64)
                                            (us: [n][2]f64) (theta: [26]f64) : [n * 3]f64 =
  complicated_residuals parent base_rel inv_base_abs base_pos weight tri corr pts us theta

-- ==
-- entry: jacobian_complicated
-- input @ data/hand_complicated.in
-- output @ data/hand_complicated.jacobian.out

-- The compressed 3N × 28 Jacobian: columns 0 and 1 are the derivatives along us[i][0]
-- (resp. us[i][1]) for every i at once (the us part of the Jacobian is block diagonal),
-- columns 2..27 those along θ.
entry jacobian_complicated [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b][4][4]f64)
                                           (inv_base_abs: [b][4][4]f64)
                                           (base_pos: [v][3]f64) (weight: [b][v]f64)
                                           (tri: [t][3]i64) (corr: [n]i64) (pts: [n][3]f64)
                                           (us: [n][2]f64) (theta: [26]f64)
                                           : [n * 3][28]f64 =
  let seeds = tabulate 28 (\j -> (replicate n [f64.bool (j == 0), f64.bool (j == 1)],
                                  tabulate 26 (\i -> f64.bool (i + 2 == j))))
  in transpose (jmp (\(u, th) -> complicated_residuals parent base_rel inv_base_abs base_pos
                                                       weight tri corr pts u th)
                    (us, theta) seeds)

entry vjp_complicated [b] [v] [t] [n] (parent: [b]i64) (base_rel: [b][4][4]f64)
                                      (inv_base_abs: [b][4][4]f64) (base_pos: [v][3]f64)
                                      (weight: [b][v]f64) (tri: [t][3]i64) (corr: [n]i64)
                                      (pts: [n][3]f64) (us: [n][2]f64) (theta: [26]f64)
                                      (ybar: [n * 3]f64) : ([n][2]f64, [26]f64) =
  vjp (\(u, th) -> complicated_residuals parent base_rel inv_base_abs base_pos weight tri
                                         corr pts u th)
      (us, theta) ybar
