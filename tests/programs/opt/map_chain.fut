-- A chain of maps fuses into one map, and the sum of its results into the same traversal:
-- after the optimiser one redomap is left and no array is built in between.
-- ==
-- input { [1.0, 2.0, 3.0] } output { 83.0 }
-- input { empty([0]f64) } output { 0.0 }
-- structure { Redomap 1 Map 0 Reduce 0 Redomap/BinOp 4 }

def main (xs: []f64) : f64 =
  let ys = map (\x -> x * 2.0) xs
  let zs = map (\y -> y + 1.0) ys
  in f64.sum (map (\z -> z * z) zs)
