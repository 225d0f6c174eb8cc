-- The reverse sweep of a loop that passes its state on unchanged returns, once the loop is
-- unrolled, the zero array it started from; `hoist` had moved that array out of the `map`
-- over the seeds, and the `with_acc` that consumes the sweep's result then consumed an array
-- bound outside the map (an internal compiler error: IR verification failed after
-- `simplify`). Found by the fuzzer as `mjp` of a loop over rows.
--
-- f x = sum of rows[i][0] over n rows, each a copy of x: n * x[0], so the row of the
-- Jacobian is [n, 0, ..., 0] and the product with seed s is [n * s, 0, ..., 0].
-- ==
-- entry: vjps
-- input { [1.0, 2.0, 3.0] [1.0, 2.0, -0.5] }
-- output { [[3.0, 0.0, 0.0], [6.0, 0.0, 0.0], [-1.5, 0.0, 0.0]] }

def f [n] (x: [n]f64) : f64 =
  let rows = loop a = map (\_ -> x) x for _i < 4 do map2 (\_ r -> r) x a
  in reduce (+) 0 (map (\r -> r[0]) rows)

entry vjps [n] (x: [n]f64) (seeds: []f64) : [][n]f64 =
  mjp f x seeds
