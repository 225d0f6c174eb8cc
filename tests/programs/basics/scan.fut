-- Inclusive and exclusive scans.
-- ==
-- input { [1, 2, 3, 4] } output { [1, 3, 6, 10] [0, 1, 3, 6] [1, 2, 6, 24] }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) empty([0]i32) }

entry main (xs: []i32) = (scan (+) 0 xs, exscan (+) 0 xs, scan (*) 1 xs)
