-- A `jvp` or `vjp` of a function whose result size is computed from its data (a `filter`'s
-- count, the length of a reversed slice) is itself differentiated, directly and inside a
-- `map`. The inner statement's result size is bound inside its lambda; the enclosing
-- lambda's result type must name a size bound in its own body (checked with `--verify`).

def filtered (xs: []f64) (dxs: []f64) = jvp (\v -> filter (> 0) v) xs dxs

-- ==
-- entry: jvp_of_jvp
-- input { [1.0, -2.0, 3.0] [10.0, 20.0, 30.0] } output { [1.0, 3.0] }
-- input { [-1.0, -2.0] [10.0, 20.0] } output { empty([0]f64) }

entry jvp_of_jvp (xs: []f64) (dxs: []f64) = jvp (\(a, b) -> filtered a b) (xs, dxs) (dxs, xs)

-- ==
-- entry: vjp_of_jvp
-- input { [1.0, -2.0, 3.0] [10.0, 20.0, 30.0] [5.0, 7.0] }
-- output { [0.0, 0.0, 0.0] [5.0, 0.0, 7.0] }

entry vjp_of_jvp (xs: []f64) (dxs: []f64) (ybar: []f64) =
  vjp (\(a, b) -> filtered a b) (xs, dxs) ybar

-- Inside a `map` (whose rows must have one size, so the filtered rows are summed here).
-- ==
-- entry: jvp_in_map
-- input { [[1.0, -2.0, 3.0], [-1.0, 4.0, 5.0]] } output { [4.0, 9.0] }

entry jvp_in_map (xss: [][]f64) =
  map (\xs -> f64.sum (jvp (\(a, b) -> filtered a b) (xs, xs) (xs, xs))) xss

-- ==
-- entry: vjp_in_map
-- input { [[1.0, -2.0, 3.0], [-1.0, 4.0, 5.0]] }
-- output { [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]] [[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]] }

entry vjp_in_map (xss: [][]f64) =
  unzip (map (\xs -> vjp (\(a, b) -> f64.sum (filtered a b)) (xs, xs) 1) xss)

-- ==
-- entry: reversed_twice
-- input { [1.0, 2.0, 3.0] [1.0, 1.0, 1.0] } output { [12.0, 8.0, 4.0] }

entry reversed_twice (xs: []f64) (dxs: []f64) =
  jvp (\a -> jvp (\v -> map (\t -> t * t) v[::-1]) a a) xs dxs
