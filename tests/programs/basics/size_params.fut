-- Size parameters: matrix multiplication, sizes as values, entry-point size checks.
def dot [n] (a: [n]f64) (b: [n]f64) : f64 = reduce (+) 0 (map2 (*) a b)

def matmul [n] [m] [p] (a: [n][m]f64) (b: [m][p]f64) : [n][p]f64 =
  map (\row -> map (\col -> dot row col) (transpose b)) a

-- ==
-- input { [[1.0, 2.0], [3.0, 4.0]] [[5.0, 6.0], [7.0, 8.0]] } output { [[19.0, 22.0], [43.0, 50.0]] 2i64 }
-- input { [[1.0, 2.0]] [[1.0], [2.0], [3.0]] } error: cannot match shape

entry main [n] [m] (a: [n][m]f64) (b: [m][n]f64) = (matmul a b, n)
