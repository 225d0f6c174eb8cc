-- The C compiler may reassociate marked sums only: it must not cancel `(x + 1) - x` to 1 or
-- `x * 2 / 2` to `x`, which would erase an infinity or a NaN (GCC does both under
-- -fassociative-math). The sum below still runs as a vectorised reduction.
-- ==
-- entry: cancel
-- input { f64.inf 1e308f64 }
-- output { f64.nan f64.inf f64.nan }
-- input { f64.nan -1e308f64 }
-- output { f64.nan -f64.inf f64.nan }
-- input { 2.0f64 3.0f64 }
-- output { 1.0f64 3.0f64 0.0f64 }

entry cancel (x: f64) (y: f64) = ((x + 1) - x, y * 2 / 2, (x - x) * 5)

-- ==
-- entry: row_sums
-- input { [[1.0f64, 2.0f64, 3.0f64], [f64.inf, 1.0f64, -1.0f64], [f64.nan, 1.0f64, 2.0f64]] }
-- output { [6.0f64, f64.inf, f64.nan] }

entry row_sums (xss: [][]f64) : []f64 = map (\xs -> f64.sum (map (* 1) xs)) xss
