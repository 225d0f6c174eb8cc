-- A function of a tuple (array, record, array of pairs) returning a tuple (scalar, array).

def f (xs: [3]f64, r: {a: f64, b: [2]f64}, ps: [2](f64, f64)) : (f64, [2]f64) =
  let s = f64.sum xs * r.a
  let q = map2 (\(u, v) c -> u * v + c * s) ps r.b
  in (s + f64.sum q, q)

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] 0.5 [1.0, -1.0] [2.0, 3.0] [4.0, 5.0] 1.0 [0.0, 0.0] }
-- output { [0.5, 0.5, 0.5] 6.0 [3.0, 3.0] [4.0, 5.0] [2.0, 3.0] }
-- input { [1.0, 2.0, 3.0] 0.5 [1.0, -1.0] [2.0, 3.0] [4.0, 5.0] 0.0 [1.0, 2.0] }
-- output { [-0.5, -0.5, -0.5] -6.0 [3.0, 6.0] [4.0, 10.0] [2.0, 6.0] }
entry grad (xs: [3]f64) (a: f64) (b: [2]f64) (us: [2]f64) (vs: [2]f64) (sb: f64) (qb: [2]f64) =
  let (gx, gr, gp) = vjp f (xs, {a = a, b = b}, zip us vs) (sb, qb)
  in (gx, gr.a, gr.b, map (.0) gp, map (.1) gp)
