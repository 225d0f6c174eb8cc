-- A loop over an array whose size is the constant 0 (or 1): C compilers drop such a loop and
-- ignore a vectorisation annotation on it with a warning, so the generated C gives it none
-- (found by gradus-fuzz, seed 9100187, unoptimised).
-- ==
-- entry: empty_loop
-- input { empty([0][0][0]u8) 0i32 0u16 }
-- output { 0i64 }
-- input { [[[1u8]]] 5i32 7u16 }
-- output { 0i64 }

entry empty_loop [n] [m] (p0: [n][n][m]u8) (p1: i32) (p2: u16) =
  let s = 0i64
  in loop acc = s for x in (replicate s 3u64) do acc + i64.u64 x + i64.i32 p1 + i64.u16 p2 + n + m

-- ==
-- entry: one_pass
-- input { 4i64 }
-- output { [3.0, 3.0, 3.0, 3.0] }

entry one_pass (k: i64) =
  map (\_ -> loop acc = 0f64 for x in (replicate 1 3f64) do acc + x) (iota k)
