-- A case that the cases before it already cover is rejected at compile time.
-- ==
-- error: unreachable_case.fut:10:8: unreachable case in `match`

type shape = #circle f64 | #square f64

def area (s: shape) : f64 =
  match s
  case #square a -> a * a
  case #square _ -> 1
  case #circle r -> 3 * r * r

entry main (x: f64) = area (#circle x)
