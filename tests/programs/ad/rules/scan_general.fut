-- Reverse mode of scan with operators on arrays and mixed tuples (running 2x2 matrix
-- products, element-wise products of rows, a linear recurrence with vector state, a product
-- paired with an integer count), and a second derivative through the rule. Expected values:
-- gen/scan_general.py (dual numbers, not gradus).

def mm (a: [4]f64) (b: [4]f64) : [4]f64 =
  [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]]

def mv (a: [4]f64) (v: [2]f64) : [2]f64 = [a[0] * v[0] + a[1] * v[1], a[2] * v[0] + a[3] * v[1]]

-- (A1, b1) then (A2, b2): x -> A2 (A1 x + b1) + b2.
def compose (a1: [4]f64, b1: [2]f64) (a2: [4]f64, b2: [2]f64) : ([4]f64, [2]f64) =
  (mm a2 a1, map2 (+) (mv a2 b1) b2)

def rows_mul [n] (xs: [n][2]f64) = scan (map2 (*)) (replicate 2 1) xs

-- ==
-- entry: s_mat2
-- input { [[1.0, 2.0, 0.5, -1.0], [0.25, 1.0, 2.0, 0.5], [1.5, -0.5, 1.0, 1.0], [0.5, 0.75, -1.0, 2.0]]
--         [[1.0, -1.0, 0.5, 2.0], [0.25, 0.5, -2.0, 1.0], [1.0, 0.0, 0.0, 1.0], [-0.5, 1.5, 1.0, 0.25]] }
-- output { [[7.203125, 4.5625, 2.3828125, 0.65625], [0.703125, 6.96875, 3.84375, 9.5625],
--           [6.6796875, 13.9375, 3.75, 7.0], [-7.0, 11.859375, 1.0, 0.046875]] }
entry s_mat2 [n] (ms: [n][4]f64) (yb: [n][4]f64) = vjp (scan mm [1, 0, 0, 1]) ms yb

-- ==
-- entry: s_rows_mul
-- input { [[0.5, 2.0], [1.5, -1.0], [2.0, 0.25], [-0.5, 3.0]]
--         [[1.0, 2.0], [-1.0, 0.5], [0.25, 3.0], [2.0, -1.0]] }
-- output { [[-2.75, 1.5], [-1.25, 1.0], [-0.5625, 0.0], [3.0, 0.5]] }
-- input { empty([0][2]f64) empty([0][2]f64) } output { empty([0][2]f64) }
entry s_rows_mul [n] (xs: [n][2]f64) (yb: [n][2]f64) = vjp rows_mul xs yb

-- ==
-- entry: s_affine_vec
-- input { [[1.0, 2.0, 0.5, -1.0], [0.25, 1.0, 2.0, 0.5], [1.5, -0.5, 1.0, 1.0], [0.5, 0.75, -1.0, 2.0]]
--         [[1.0, -1.0], [0.5, 2.0], [-1.5, 0.25], [2.0, 1.0]]
--         [[1.0, 0.5], [-1.0, 2.0], [0.25, -0.5], [1.5, 1.0]] }
-- output { [[0.0, 0.0, 0.0, 0.0], [1.625, -1.625, 4.625, -4.625], [0.0, 0.0, -0.65625, 9.1875],
--           [-5.4375, 5.25, -3.625, 3.5]]
--          [[10.65625, 4.4375], [1.625, 4.625], [0.0, 2.625], [1.5, 1.0]] }
entry s_affine_vec [n] (as: [n][4]f64) (bs: [n][2]f64) (yb: [n][2]f64) =
  vjp (\(as, bs) -> (unzip (scan compose ([1, 0, 0, 1], [0, 0]) (zip as bs))).1) (as, bs) yb

-- ==
-- entry: s_count
-- input { [1.5, -0.5, 2.0, 0.75, 1.25] [1.0, 2.0, -1.0, 0.5, 1.0] }
-- output { [-0.3125, 3.9375, -0.234375, -2.625, -1.125] }
entry s_count [n] (vs: [n]f64) (yp: [n]f64) =
  vjp (\vs -> (unzip (scan (\(p1, c1) (p2, c2) -> (p1 * p2, c1 + c2)) (1, 0i64)
                           (zip vs (replicate n 1i64)))).0)
      vs yp

-- The Hessian of <yb, rows_mul xs> times dx, by jvp of vjp and by vjp of vjp.
-- ==
-- entry: hvp_rows
-- input { [[0.5, 2.0], [1.5, -1.0], [2.0, 0.25], [-0.5, 3.0]]
--         [[1.0, 2.0], [-1.0, 0.5], [0.25, 3.0], [2.0, -1.0]]
--         [[1.0, 0.5], [-1.0, 2.0], [0.25, -0.5], [1.5, 1.0]] }
-- output { [[11.21875, 1.25], [0.40625, -0.25], [1.5, 2.0], [4.375, -1.875]]
--          [[11.21875, 1.25], [0.40625, -0.25], [1.5, 2.0], [4.375, -1.875]] }
entry hvp_rows [n] (xs: [n][2]f64) (yb: [n][2]f64) (dx: [n][2]f64) =
  let g x = vjp rows_mul x yb
  in (jvp g xs dx, vjp g xs dx)

-- scan (*) by its dedicated rule (no zero element) and by the exact fallback (a zero): the
-- gradient of <yb, scan (*) 1 xs>, and its Hessian times dx by jvp of vjp and vjp of vjp.
-- ==
-- entry: mul_nested
-- input { [1.5, -0.5, 2.0, 0.75] [1.0, 2.0, -1.0, 0.5] [1.0, -0.5, 0.25, 2.0] }
-- output { [0.625, 1.125, 0.46875, -0.75] [-1.296875, 3.515625, 0.03125, -1.34375]
--          [-1.296875, 3.515625, 0.03125, -1.34375] }
-- input { [1.5, 0.0, 2.0, 0.75] [1.0, 2.0, -1.0, 0.5] [1.0, -0.5, 0.25, 2.0] }
-- output { [1.0, 1.125, 0.0, 0.0] [-0.375, 3.515625, 0.46875, -0.75]
--          [-0.375, 3.515625, 0.46875, -0.75] }
entry mul_nested [n] (xs: [n]f64) (yb: [n]f64) (dx: [n]f64) =
  let g x = vjp (scan (*) 1) x yb
  in (g xs, jvp g xs dx, vjp g xs dx)
