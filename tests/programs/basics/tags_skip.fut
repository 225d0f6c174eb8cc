-- Tags skip cases: `disable` and `no_<backend>` cases are not run (their outputs are wrong
-- on purpose).
-- ==
-- tags { basics }
-- input { 1 } output { 1 }
-- no_interpreter no_c no_multicore no_gpu input { 1 } output { 2 }
-- disable input { 1 } output { 3 }

entry main (x: i32) = x
