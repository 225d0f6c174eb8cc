-- Tuples: construction, patterns, projections, tuple results.
def swap (a: i32, b: f64) = (b, a)

-- ==
-- input { 1 2.0 } output { 2.0 1 3 }

entry main (x: i32) (y: f64) =
  let (p, q) = swap (x, y)
  let t = (x, (y, x + 2))
  in (p, q, t.1.1)
