-- A type with a single constructor can be taken apart by `let` and parameter patterns.
type pair = #pair f64 i64

def swap (#pair x n: pair) : (i64, f64) = (n, x)

-- ==
-- input { 1.5 2i64 } output { 2i64 1.5 4.0 }

entry main (x: f64) (n: i64) =
  let p : pair = #pair (x + 0.5) n
  let #pair y _ = p
  let (a, b) = swap (#pair x n)
  in (a, b, y * 2)
