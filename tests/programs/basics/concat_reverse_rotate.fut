-- concat, ++, reverse and rotate (left for positive amounts).
-- ==
-- input { [1, 2, 3] [4, 5] }
-- output { [1, 2, 3, 4, 5] [3, 2, 1] [2, 3, 1] [3, 1, 2] [1, 2, 3, 4, 5, 1, 2, 3] }

entry main (xs: []i32) (ys: []i32) = (concat xs ys, reverse xs, rotate 1 xs, rotate (-1) xs, xs ++ ys ++ xs)
