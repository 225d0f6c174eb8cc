-- A map whose function returns an array of a size it computes (a `filter`'s count): the
-- lambda's result type named a size bound inside it, which the IR verifier refused and the C
-- backends printed as an undeclared variable. The size of the rows is now computed by a size
-- map before the map; rows of different sizes are an error, as in the interpreter.
-- ==
-- input { [[1.0, -2.0, 3.0], [-1.0, 5.0, 6.0]] }
-- output { [[1.0, 3.0], [5.0, 6.0]] }
-- input { [[1.0, -2.0, 3.0], [-1.0, -5.0, 6.0]] }
-- error: cannot match shape
-- input { empty([0][3]f64) }
-- output { empty([0][0]f64) }

entry main (xss: [][]f64) = map (\xs -> filter (> 0) xs) xss

-- A size that is the function's parameter, and a map of maps of filters.
-- ==
-- entry: ranges
-- input { [3i64, 3i64] }
-- output { [[0i64, 1i64, 2i64], [0i64, 1i64, 2i64]] }
-- input { [3i64, 2i64] }
-- error: cannot match shape
-- ==
-- entry: nested
-- input { [[[1.0, -1.0], [2.0, -2.0]], [[-3.0, 3.0], [4.0, -4.0]]] }
-- output { [[[1.0], [2.0]], [[3.0], [4.0]]] }

entry ranges (ns: []i64) = map (\n -> iota n) ns

entry nested (xsss: [][][]f64) = map (\xss -> map (\xs -> filter (> 0) xs) xss) xsss

-- Its derivative: the rows' sizes do not depend on the values differentiated.
-- ==
-- entry: grad_sum_of_positives
-- input { [[1.0, -2.0, 3.0], [-1.0, 5.0, 6.0]] }
-- output { [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]] }

entry grad_sum_of_positives (xss: [][]f64) =
  vjp (\xss -> f64.sum (flatten (map (\xs -> filter (> 0) xs) xss))) xss 1
