-- One block runs every case for every entry point it names.
-- ==
-- entry: twice_add twice_mul
-- input { 2 } output { 4 }
-- input { 0 } output { 0 }

entry twice_add (x: i32) = x + x
entry twice_mul (x: i32) = 2 * x
