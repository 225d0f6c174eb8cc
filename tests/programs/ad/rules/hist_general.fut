-- Reverse mode of hist / reduce_by_index with operators that have no dedicated rule: tuples
-- (complex products, (min, max) pairs, a minimum carrying a payload), rows (element-wise
-- products, 2x2 matrix products), out-of-range indices, an active destination, and second
-- derivatives through the rule. Expected values: gen/hist_general.py (dual numbers, not
-- gradus).

def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)

def mm (a: [4]f64) (b: [4]f64) : [4]f64 =
  [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]]

def hist_cmul [n] (is: [n]i64) (re: [n]f64) (im: [n]f64) =
  unzip (hist cmul (1, 0) 3 is (zip re im))

-- ==
-- entry: h_cmul
-- input { [0i64, 2i64, 0i64, 1i64, 5i64, 2i64, -1i64]
--         [1.5, -0.5, 2.0, 0.75, 3.0, -1.25, 2.5] [0.5, 1.0, -1.5, 0.25, 1.0, 0.5, -2.0]
--         [1.0, -2.0, 0.5] [0.25, 1.5, -1.0] }
-- output { [1.625, -1.125, 1.625, -2.0, 0.0, -1.25, 0.0]
--          [2.0, 1.0, -0.125, 1.5, 0.0, 0.0, 0.0] }
entry h_cmul [n] (is: [n]i64) (re: [n]f64) (im: [n]f64) (yr: [3]f64) (yi: [3]f64) =
  vjp (\(r, i) -> hist_cmul is r i) (re, im) (yr, yi)

-- ==
-- entry: h_rows_mul
-- input { [1i64, 0i64, 1i64, 2i64, 1i64, 7i64]
--         [[0.5, 2.0], [1.5, -1.0], [2.0, 0.25], [-0.5, 3.0], [1.25, 1.5], [4.0, 4.0]]
--         [[1.0, 2.0], [-1.0, 0.5], [0.25, 3.0]] }
-- output { [[-2.5, 0.1875], [1.0, 2.0], [-0.625, 1.5], [0.25, 3.0], [-1.0, 0.25], [0.0, 0.0]] }
entry h_rows_mul [n] (is: [n]i64) (xs: [n][2]f64) (yb: [3][2]f64) =
  vjp (\xs -> hist (map2 (*)) (replicate 2 1) 3 is xs) xs yb

-- ==
-- entry: h_mat2
-- input { [1i64, 0i64, 1i64, -3i64, 1i64]
--         [[1.0, 0.5, -0.5, 2.0], [0.5, 1.0, 1.5, -1.0]]
--         [[1.0, 2.0, 0.5, -1.0], [0.25, 1.0, 2.0, 0.5], [1.5, -0.5, 1.0, 1.0],
--          [3.0, 3.0, 3.0, 3.0], [0.5, 0.75, -1.0, 2.0]]
--         [[1.0, -1.0, 0.5, 2.0], [0.25, 0.5, -2.0, 1.0]] }
-- output { [[-0.75, 1.5, 2.125, 2.0], [2.875, -1.0625, 5.125, -4.9375]]
--          [[-3.375, 6.25, 2.75, -2.5], [0.75, -2.0, 1.5, 3.5], [0.25, 4.75, -1.0, 16.0],
--           [0.0, 0.0, 0.0, 0.0], [-10.625, 6.25, -7.125, 3.25]] }
entry h_mat2 [n] (is: [n]i64) (dest: [2][4]f64) (ms: [n][4]f64) (yb: [2][4]f64) =
  vjp (\(d, ms) -> reduce_by_index (copy d) mm [1, 0, 0, 1] is ms) (dest, ms) yb

-- ==
-- entry: h_minmax
-- input { [0i64, 2i64, 0i64, 1i64, 5i64, 2i64, -1i64] [2.0, -1.0, 3.5, 0.5, 4.0, 1.5, 2.5]
--         [1.0, 2.0, -1.0] [0.5, -3.0, 4.0] }
-- output { [1.0, -1.0, 0.5, -1.0, 0.0, 4.0, 0.0] }
-- input { empty([0]i64) empty([0]f64) [1.0, 2.0, -1.0] [0.5, -3.0, 4.0] }
-- output { empty([0]f64) }
entry h_minmax [n] (is: [n]i64) (vs: [n]f64) (ymin: [3]f64) (ymax: [3]f64) =
  vjp (\vs -> unzip (hist (\(a1, b1) (a2, b2) -> (f64.min a1 a2, f64.max b1 b2))
                          (f64.inf, -f64.inf) 3 is (zip vs vs)))
      vs (ymin, ymax)

-- ==
-- entry: h_argmin
-- input { [0i64, 2i64, 0i64, 1i64, 5i64, 2i64, -1i64] [2.0, -1.0, 3.5, 0.5, 4.0, 1.5, 2.5]
--         [1.0, 2.0, -0.5, 3.0, 0.25, 1.5, 2.0] [1.0, 2.0, -1.0] [2.0, -1.0, 0.5] }
-- output { [3.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0] [4.0, -0.5, 0.0, -0.5, 0.0, 0.0, 0.0] }
entry h_argmin [n] (is: [n]i64) (vs: [n]f64) (ws: [n]f64) (yb: [3]f64) (pb: [3]f64) =
  vjp (\(vs, ws) -> unzip (hist (\(a, pa) (b, pb) -> if a <= b then (a, pa) else (b, pb))
                                (f64.inf, 0) 3 is (zip vs (map2 (*) vs ws))))
      (vs, ws) (yb, pb)

-- The Hessian of <(yr, yi), hist_cmul is re im> in re times dre, by jvp of vjp and by vjp of
-- vjp (the Hessian is symmetric).
-- ==
-- entry: hvp_cmul
-- input { [0i64, 2i64, 0i64, 1i64, 5i64, 2i64, -1i64]
--         [1.5, -0.5, 2.0, 0.75, 3.0, -1.25, 2.5] [0.5, 1.0, -1.5, 0.25, 1.0, 0.5, -2.0]
--         [1.0, -2.0, 0.5] [0.25, 1.5, -1.0] [1.0, 0.5, -1.0, 2.0, 1.0, -0.5, 0.25] }
-- output { [-1.0, -0.25, 1.0, 0.0, 0.0, 0.25, 0.0] [-1.0, -0.25, 1.0, 0.0, 0.0, 0.25, 0.0] }
entry hvp_cmul [n] (is: [n]i64) (re: [n]f64) (im: [n]f64) (yr: [3]f64) (yi: [3]f64) (dre: [n]f64) =
  let g r = vjp (\r -> hist_cmul is r im) r (yr, yi)
  in (jvp g re dre, vjp g re dre)
