-- Tags skip cases: `disable` and `no_interpreter` cases are not run (their outputs are wrong
-- on purpose).
-- ==
-- tags { basics }
-- input { 1 } output { 1 }
-- no_interpreter input { 1 } output { 2 }
-- disable input { 1 } output { 3 }

entry main (x: i32) = x
