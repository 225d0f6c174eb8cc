-- A map whose function returns a tuple, and a map over an array of tuples.

-- ==
-- entry: polar
-- input { [1.0, 2.0, 3.0] [0.0, 1.0, 2.0] [1.0, 1.0, 1.0] [0.0, 0.0, 0.0] }
-- output { [1.0, 0.5403023058681398, -0.4161468365471424] [0.0, -1.682941969615793, -2.727892280477045] }
-- input { [1.0, 2.0, 3.0] [0.0, 1.0, 2.0] [0.5, -1.0, 2.0] [1.0, 2.0, 3.0] }
-- output { [0.5, 1.1426396637476532, 1.8955986073827602] [1.0, 3.844151193088352, -9.201106089878373] }
entry polar (rs: [3]f64) (ts: [3]f64) (xb: [3]f64) (yb: [3]f64) =
  vjp (\(r, t) -> unzip (map2 (\a b -> (a * f64.cos b, a * f64.sin b)) r t)) (rs, ts) (xb, yb)

-- ==
-- entry: pairs
-- input { [1.0, 2.0, -3.0] }
-- output { [9.0, 36.0, 81.0] }
entry pairs (xs: [3]f64) = vjp (\v -> let (a, b) = unzip (map (\t -> (t * t, t * 3)) v) in f64.sum (map2 (*) a b)) xs 1
