-- A `match` that misses a value is rejected at compile time, with the location of the
-- `match` and an example of a value that no case matches.
-- ==
-- error: not_exhaustive.fut:9:3: .*not exhaustive: `#circle 1.0` is not matched

type shape = #circle f64 | #square f64

def area (s: shape) : f64 =
  match s
  case #square a -> a * a
  case #circle 0 -> 0

entry main (x: f64) = area (#circle x)
