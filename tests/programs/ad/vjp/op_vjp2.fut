-- vjp2 returns the value and the cotangent; on arrays, tuples and with array-valued results.

def f [n] (xs: [n]f64) : f64 = f64.sum (map (\x -> x * x * x) xs) / f64.i64 n

-- ==
-- entry: arr
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { 25.0 [0.75, 3.0, 6.75, 12.0] }
-- input { [-1.0, 0.0, 0.5, 2.0] }
-- output { 1.78125 [0.75, 0.0, 0.1875, 3.0] }
entry arr (xs: [4]f64) = vjp2 f xs 1

-- ==
-- entry: tup
-- input { 2.0 [1.0, -1.0, 3.0] }
-- output { [2.0, -2.0, 6.0] 8.0 [2.0, 4.0, 6.0] }
entry tup (x: f64) (ys: [3]f64) =
  let (v, (dx, dys)) = vjp2 (\(a, b) -> map (\t -> t * a) b) (x, ys) [1, 2, 3]
  in (v, dx, dys)

-- ==
-- entry: vec
-- input { [0.0, 1.0, -1.0] [1.0, 2.0, 3.0] }
-- output { [1.0, 2.718281828459045, 0.36787944117144233] [1.0, 5.43656365691809, 1.103638323514327] }
entry vec (xs: [3]f64) (yb: [3]f64) = vjp2 (map f64.exp) xs yb
