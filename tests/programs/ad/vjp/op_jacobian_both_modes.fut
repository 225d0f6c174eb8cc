-- The same Jacobian from mjp (rows) and from jmp (columns, transposed); integer version too.

def h [n] (xs: [n]f64) : [2]f64 = [f64.sum (map (\x -> x * x) xs), f64.product xs]

-- ==
-- entry: rev
-- input { [1.0, 2.0, 3.0] }
-- output { [[2.0, 4.0, 6.0], [6.0, 3.0, 2.0]] }
-- input { [0.0, 2.0, 0.0] }
-- output { [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0]] }
-- input { [1.0, 0.0, 3.0, -1.0] }
-- output { [[2.0, 0.0, 6.0, -2.0], [-0.0, -3.0, -0.0, 0.0]] }
entry rev [n] (xs: [n]f64) = mjp h xs [[1, 0], [0, 1]]

-- ==
-- entry: fwd
-- input { [1.0, 2.0, 3.0] }
-- output { [[2.0, 4.0, 6.0], [6.0, 3.0, 2.0]] }
-- input { [0.0, 2.0, 0.0] }
-- output { [[0.0, 4.0, 0.0], [0.0, 0.0, 0.0]] }
-- input { [1.0, 0.0, 3.0, -1.0] }
-- output { [[2.0, 0.0, 6.0, -2.0], [-0.0, -3.0, -0.0, 0.0]] }
entry fwd [n] (xs: [n]f64) = transpose (jmp h xs (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j)))))

-- ==
-- entry: ints
-- input { [2, 3, 4] }
-- output { [[12, 8, 6], [1, 0, -1]] }
-- input { [-1, 0, 5] }
-- output { [[0, -5, 0], [1, 0, -1]] }
entry ints (xs: [3]i32) = mjp (\v -> [v[0] * v[1] * v[2], v[0] - v[2]]) xs [[1, 0], [0, 1]]
