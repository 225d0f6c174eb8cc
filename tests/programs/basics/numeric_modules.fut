-- Reductions and bit functions of the numeric modules; float maximum and minimum ignore NaN.
-- ==
-- input { [3i64, -1, 4] [2.0, f64.nan, -5.0] }
-- output { 6i64 -12i64 4i64 -1i64 2.0 -5.0 }

entry main (xs: []i64) (ys: []f64) =
  (i64.sum xs, i64.product xs, i64.maximum xs, i64.minimum xs, f64.maximum ys, f64.minimum ys)

-- ==
-- entry: bitfuns
-- input { 12u32 } output { 2 28 2 }

entry bitfuns (x: u32) = (u32.popc x, u32.clz x, u32.ctz x)

-- ==
-- entry: empties
-- input { empty([0]f64) } output { 0.0 1.0 -f64.inf f64.inf }

entry empties (xs: []f64) = (f64.sum xs, f64.product xs, f64.maximum xs, f64.minimum xs)
