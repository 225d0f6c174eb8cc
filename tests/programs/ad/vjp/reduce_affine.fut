-- reduce with a general tuple operator: composition of affine maps x -> a x + b, represented by
-- pairs (a, b); the result is the composed map applied to x0.

def compose (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a2 * a1, a2 * b1 + b2)

-- ==
-- entry: grad
-- input { [1.0, 2.0, 0.5, -1.0, 3.0] [0.0, 1.0, 2.0, 3.0, 4.0] 2.0 }
-- output { [-6.0, -3.0, -15.0, 13.5, -1.5] [-3.0, -1.5, -3.0, 3.0, 1.0] -3.0 }
-- input { [0.0, 2.0, 0.5, 0.0, 3.0] [1.0, 1.0, 1.0, 1.0, 1.0] -1.0 }
-- output { [0.0, 0.0, 0.0, 7.5, 1.0] [0.0, 0.0, 0.0, 3.0, 1.0] 0.0 }
entry grad (as: [5]f64) (bs: [5]f64) (x0: f64) =
  vjp (\(a, b, x) -> let (p, q) = reduce compose (1, 0) (zip a b) in p * x + q) (as, bs, x0) 1

-- ==
-- entry: seeds
-- input { [2.0, 0.5, -1.0, 3.0] [1.0, 0.0, 2.0, -1.0] 1.0 0.0 }
-- output { [-1.5, -6.0, 3.0, -1.0] [0.0, 0.0, 0.0, 0.0] }
-- input { [2.0, 0.5, -1.0, 3.0] [1.0, 0.0, 2.0, -1.0] 0.0 1.0 }
-- output { [0.0, -3.0, 1.5, 1.5] [-1.5, -3.0, 3.0, 1.0] }
entry seeds (as: [4]f64) (bs: [4]f64) (pb: f64) (qb: f64) = vjp (\(a, b) -> reduce compose (1, 0) (zip a b)) (as, bs) (pb, qb)
