-- Entry points for the tests of derivatives on demand and of gradus.jax and gradus.torch:
-- each has a hand-written derivative next to it, and the tests write it again natively.

entry objective [n] (w: [n]f64) (x: [n]f64) (s: f64) (k: i64) : f64 =
  f64.sum (map2 (\a b -> f64.sin (a * b) * s + a * a * b) w x) + s * s * f64.i64 k

entry objective_grad [n] (w: [n]f64) (x: [n]f64) (s: f64) (k: i64) : ([n]f64, [n]f64, f64) =
  vjp (\(w, x, s) -> objective w x s k) (w, x, s) 1

entry pair [n] (w: [n]f64) (s: f64) : ([n]f64, f64) =
  (map (\a -> a * a * s) w, f64.sum (map f64.cos w) * s)

entry pair_vjp [n] (w: [n]f64) (s: f64) (yb0: [n]f64) (yb1: f64) : ([n]f64, f64) =
  vjp (\(w, s) -> pair w s) (w, s) (yb0, yb1)

entry expv [n] (w: [n]f64) (c: f64) : [n]f64 = map (\a -> f64.exp (a * c)) w

entry objective_hessian [n] (w: [n]f64) (x: [n]f64) (s: f64) (k: i64) : [n][n]f64 =
  let g = \v -> vjp (\v -> objective v x s k) v 1
  in tabulate n (\i -> jvp g w (tabulate n (\j -> if i == j then 1 else 0)))

entry spread (k: i64) (c: f64) : [k]f64 = map (\i -> c * c * f64.i64 i) (iota k)
