-- foldl and foldr are sequential folds from the left and from the right.
-- ==
-- input { [1, 2, 3] } output { -6 2 }

entry main (xs: []i32) = (foldl (-) 0 xs, foldr (-) 0 xs)
