-- Array literals, length, indexing of rows and elements, empty arrays.
-- ==
-- input { [[1, 2, 3], [4, 5, 6]] } output { 2i64 3i64 [4, 5, 6] 6 }

entry main (xss: [][]i32) = (length xss, length xss[0], xss[1], xss[1][2])

-- ==
-- entry: lit
-- input { 3 } output { [[3, 4], [5, 6]] }

entry lit (x: i32) = [[x, x + 1], [x + 2, x + 3]]

-- ==
-- entry: empties
-- input { empty([0]f64) } output { 0i64 0.0 empty([0]f64) }

entry empties (xs: []f64) = (length xs, reduce (+) 0 xs, map (* 2) xs)
