-- Found by gradus-fuzz (seed 13000130): `-0.0 * x + x` over an empty histogram's bins, which
-- hold `f32.highest` (infinity), is NaN; the C compiler under -fassociative-math made it
-- infinity.
-- ==
-- entry: e2
-- input { empty([0]bool) [0u16] }
-- output { [f32.nan] }

entry e2 [m] [k] (p0: *[m]bool) (p1: [k]u16) =
  let r_1 = hist f32.min f32.highest k (replicate m k) (replicate m (-2.0f32))
  in map (\x_9 -> ((-0.0f32) * x_9) + x_9) r_1
