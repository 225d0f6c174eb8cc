-- mjp: several cotangents in one pass; with identity seeds it gives the Jacobian row by row.

def g [n] (xs: [n]f64) : [n]f64 = map2 (\x i -> x * xs[(i + 1) % n] + f64.sin x) xs (iota n)

-- ==
-- entry: jacobian
-- input { [1.0, 2.0, 3.0] }
-- output { [[2.5403023058681398, 1.0, 0.0], [0.0, 2.5838531634528574, 2.0], [3.0, 0.0, 0.010007503399554585]] }
-- input { [0.5, -1.0, 2.0, 0.0] }
-- output { [[-0.12241743810962724, 0.5, 0.0, 0.0], [0.0, 2.5403023058681398, -1.0, 0.0], [0.0, 0.0, -0.4161468365471424, 2.0], [0.0, 0.0, 0.0, 1.5]] }
entry jacobian [n] (xs: [n]f64) = mjp g xs (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j))))

-- ==
-- entry: seeds
-- input { [1.0, 2.0, 3.0] [[1.0, 0.0, 0.0], [1.0, 1.0, 1.0]] }
-- output { [[2.5403023058681398, 1.0, 0.0], [5.54030230586814, 3.5838531634528574, 2.010007503399555]] }
entry seeds (xs: [3]f64) (ys: [2][3]f64) = mjp g xs ys

-- ==
-- entry: scalar_out
-- input { [1.0, 2.0, 3.0] }
-- output { [[2.0, 4.0, 6.0], [4.0, 8.0, 12.0], [-2.0, -4.0, -6.0]] }
entry scalar_out (xs: [3]f64) = mjp (\v -> f64.sum (map (\t -> t * t) v)) xs [1, 2, -1]
