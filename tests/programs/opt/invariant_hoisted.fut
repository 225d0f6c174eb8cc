-- Code that does not depend on the lambda's parameter leaves the lambda: the exponential of
-- `y` is computed once, before the map, not once per element.
-- ==
-- input { [1.0, 2.0] 0.0 } output { [1.0, 2.0] }
-- structure { Map 1 UnOp 1 Map/UnOp 0 Map/BinOp 1 }

def main (xs: []f64) (y: f64) : []f64 =
  map (\x -> x * f64.exp y) xs
