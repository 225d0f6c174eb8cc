-- jmp: several tangents in one pass; Jacobians column by column.
def sq [n] (v: [n]f64) = map (\t -> t * t) v

-- ==
-- entry: jac
-- input { [1.0, 3.0] } output { [[2.0, 0.0], [0.0, 6.0]] }

entry jac [n] (x: [n]f64) = transpose (jmp sq x (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j)))))

-- ==
-- entry: scalar
-- input { 0.0 } output { [1.0, 2.0, -3.0] }
-- input { 1.0 } output { [0.5403023058681398, 1.0806046117362796, -1.6209069176044193] }

entry scalar (x: f64) = jmp f64.sin x [1, 2, -3]

-- ==
-- entry: pairs
-- input { 2.0 3.0 } output { [3.0, 2.0, 5.0] }

entry pairs (a: f64) (b: f64) = jmp (\(p, q) -> p * q) (a, b) [(1, 0), (0, 1), (1, 1)]

-- ==
-- entry: none
-- input { 2.0 } output { empty([0]f64) }

entry none (x: f64) = jmp (\t -> t * t) x (replicate 0 1)

-- ==
-- entry: like_map
-- input { [1.0, 2.0] [[1.0, 0.0], [1.0, 1.0], [0.0, 2.0]] } output { true }

entry like_map [n] [k] (x: [n]f64) (dxs: [k][n]f64) =
  let f = \v -> f64.sum (map2 (*) v (map f64.exp v))
  in and (map2 (\a b -> f64.abs (a - b) < 1e-12) (jmp f x dxs) (map (jvp f x) dxs))
