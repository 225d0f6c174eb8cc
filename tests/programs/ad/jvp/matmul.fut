-- Matrix multiplication: d(AB) = dA B + A dB.
def matmul [n] [m] [p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\r -> map (\c -> f64.sum (map2 (*) r c)) (transpose b)) a

-- ==
-- entry: primal
-- input { [[1.0, 2.0], [3.0, 4.0]] [[0.0, 1.0], [1.0, 0.0]] } output { [[2.0, 1.0], [4.0, 3.0]] }

entry primal [n] (a: [n][n]f64) (b: [n][n]f64) = matmul a b

-- ==
-- entry: fwd
-- input { [[1.0, 2.0], [3.0, 4.0]] [[0.0, 1.0], [1.0, 0.0]] [[1.0, 0.0], [0.0, 0.0]] [[0.0, 0.0], [0.0, 1.0]] }
-- output { [[0.0, 3.0], [0.0, 4.0]] }

entry fwd [n] (a: [n][n]f64) (b: [n][n]f64) (da: [n][n]f64) (db: [n][n]f64) =
  jvp (\(x, y) -> matmul x y) (a, b) (da, db)

-- ==
-- entry: square
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { [[14.0, 20.0], [30.0, 44.0]] }

-- d(A A) in direction A is 2 A A
entry square [n] (a: [n][n]f64) = jvp (\x -> matmul x x) a a
