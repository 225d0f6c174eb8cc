-- A map whose every row reads a constant index out of bounds fails in its first iteration:
-- the generated C must still compile without warnings (a loop that cannot run twice gets no
-- vectorisation annotation, which C compilers would ignore with a warning).
-- ==
-- entry: negative
-- input { [1i64, 2i64] }
-- error: Index \[-1\] out of bounds
-- input { empty([0]i64) }
-- output { empty([0]i64) }

entry negative [k] (p0: *[k]i64) = map (\_ -> p0[-1i64]) p0

-- ==
-- entry: past_the_end
-- input { [[1i16, 2i16]] 3i64 }
-- error: Index \[3, -1\] out of bounds

entry past_the_end [n][m] (p0: [n][m]i16) (k: i64) = map (\_ -> p0[3, -1]) (replicate k false)
