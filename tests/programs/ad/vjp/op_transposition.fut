-- The transposition identity <vjp f x ybar, dx> = <ybar, jvp f x dx>, computed inside the program:
-- both sides are returned and compared with JAX's value of either side.

def f [n] (xs: [n]f64) : [n]f64 =
  let s = scan (+) 0 (map (\x -> x * x) xs)
  in map2 (\a b -> a * f64.sin b) s (rotate 1 xs)

def dot [n] (a: [n]f64) (b: [n]f64) = f64.sum (map2 (*) a b)

-- ==
-- entry: sides
-- input { [-0.83, -0.53, 0.6, 0.16] [0.89, 0.02, 0.95, -0.84] [0.61, 0.62, 0.03, -0.43] }
-- output { -0.17428371489219532 -0.17428371489219532 }
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 0.0, 0.0, 0.0] [0.0, 0.0, 0.0, 1.0] }
-- output { 17.892011145659982 17.892011145659982 }
entry sides (xs: [4]f64) (dx: [4]f64) (yb: [4]f64) =
  (dot (vjp f xs yb) dx, dot yb (jvp f xs dx))
