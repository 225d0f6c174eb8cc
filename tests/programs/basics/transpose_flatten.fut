-- transpose, flatten and unflatten (whose sizes come from the type).
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { [[1, 4], [2, 5], [3, 6]] [1, 2, 3, 4, 5, 6] }
-- input { empty([0][3]i32) } output { empty([3][0]i32) empty([0]i32) }

entry main [n] [m] (a: [n][m]i32) = (transpose a, flatten a)

-- ==
-- entry: unflat
-- input { [1, 2, 3, 4, 5, 6] } output { [[1, 2], [3, 4], [5, 6]] }
-- input { [1, 2, 3, 4, 5] } error: cannot match shape

entry unflat (xs: []i32) = unflatten (xs :> [3 * 2]i32)
