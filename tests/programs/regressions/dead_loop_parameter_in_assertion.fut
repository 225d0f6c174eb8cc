-- A loop parameter whose result nothing reads, but that the size check of a `replicate` in
-- the body reads: dead-code elimination kept the check and removed the parameter, and the
-- check then read a variable out of scope (found by gradus-fuzz, seed 2000185). The check
-- stays, so does the parameter, and a negative size still fails.
-- ==
-- entry: main
-- input { [true, false] 0i64 }
-- output { false }
-- input { [true, false, true] -1i64 }
-- error: Range 0..<-1 is invalid

entry main [m] (p0: [m]bool) (start: i64) : bool =
  (loop (flag, s) = (true, start) for _i < m do
     let a = replicate s false
     in (false, length a * 0 + s)).0
