-- Four scans over tuples of f64 with non-trivial operators, under vjp, inside map and
-- under jvp of vjp: a program whose compile time benchmarks/compile-time.md follows.
def op1 (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * d + c * b, b * d)
def op2 (a: f64, b: f64, e: f64) (c: f64, d: f64, g: f64) : (f64, f64, f64) =
  (f64.max a c, b + d * f64.exp (a - c), e * g + a)
def op3 (x: f64, y: f64) (z: f64, w: f64) : (f64, f64) = (x + z * w, y * w)
def op4 (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (c + d * a, b * d)

def obj [n] (xs: [n]f64) (ys: [n]f64) : f64 =
  let s1 = scan op1 (0, 1) (zip xs ys)
  let (u, v) = unzip s1
  let s2 = scan op2 (-f64.inf, 0, 1) (zip3 u v xs)
  let (p, q, r) = unzip3 s2
  let s3 = scan op3 (0, 1) (zip (map2 (+) p q) r)
  let (a, b) = unzip s3
  let s4 = scan op4 (0, 1) (zip a (map f64.tanh b))
  in f64.sum (map2 (*) (map (.0) s4) (map (.1) s4))

entry grad [n] (xs: [n]f64) (ys: [n]f64) = vjp (\(x, y) -> obj x y) (xs, ys) 1.0
entry grad_map [n][k] (xss: [k][n]f64) (ys: [n]f64) = map (\xs -> vjp (\x -> obj x ys) xs 1.0) xss
entry hess [n] (xs: [n]f64) (ys: [n]f64) (v: [n]f64) = jvp (\x -> vjp (\x -> obj x ys) x 1.0) xs v
-- ==
-- entry: hess
-- input { [0.1, 0.2, 0.3, 0.4] [0.5, 0.6, 0.7, 0.8] [1.0, 0.0, -1.0, 0.5] }
-- ==
-- entry: grad
-- input { [0.1, 0.2, 0.3, 0.4] [0.5, 0.6, 0.7, 0.8] }
-- ==
-- entry: grad_map
-- input { [[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 0.5, 0.2]] [0.5, 0.6, 0.7, 0.8] }
