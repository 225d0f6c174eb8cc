-- Run-time errors of indexing and slicing, with the messages of docs/language.md §Run-time errors.
-- ==
-- input { [1, 2, 3, 4] 5i64 } error: Index \[5\] out of bounds for array of shape \[4\]\.
-- input { [1, 2, 3, 4] -1i64 } error: Index \[-1\] out of bounds
-- input { [1, 2, 3, 4] 3i64 } output { 4 }

entry main (xs: []i32) (i: i64) = xs[i]

-- ==
-- entry: slice
-- input { [1, 2, 3, 4] 2i64 9i64 } error: Index \[2:9\] out of bounds for array of shape \[4\]
-- input { [1, 2, 3, 4] 1i64 3i64 } output { [2, 3] }

entry slice (xs: []i32) (i: i64) (j: i64) = xs[i:j]

-- ==
-- entry: twod
-- input { [[1, 2, 3, 4], [5, 6, 7, 8]] 1i64 7i64 } error: Index \[1, 7\] out of bounds for array of shape \[2\]\[4\]
-- input { [[1, 2, 3, 4], [5, 6, 7, 8]] 1i64 2i64 } output { 7 }

entry twod (m: [][]i32) (i: i64) (j: i64) = m[i, j]
