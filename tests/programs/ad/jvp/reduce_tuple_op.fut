-- reduce with a user-defined operator on tuples: complex multiplication.
def cmul (a: f64, b: f64) (c: f64, d: f64) : (f64, f64) = (a * c - b * d, a * d + b * c)

-- ==
-- entry: primal
-- input { [1.0, 0.5, 2.0] [2.0, -1.0, 0.5] } output { 5.0 1.25 }

entry primal [n] (re: [n]f64) (im: [n]f64) = reduce cmul (1, 0) (zip re im)

-- ==
-- entry: fwd
-- input { [1.0, 0.5, 2.0] [2.0, -1.0, 0.5] [1.0, 0.0, 1.0] [0.0, 1.0, 1.0] } output { -0.5 1.75 }
-- input { [1.0, 0.5, 2.0] [2.0, -1.0, 0.5] [0.0, 0.0, 0.0] [0.0, 0.0, 0.0] } output { 0.0 0.0 }

entry fwd [n] (re: [n]f64) (im: [n]f64) (dre: [n]f64) (dim: [n]f64) =
  jvp (\(r, i) -> reduce cmul (1, 0) (zip r i)) (re, im) (dre, dim)

-- ==
-- entry: sum_and_max
-- input { [1.0, 4.0, 2.0] [1.0, 10.0, 100.0] } output { 111.0 10.0 }

-- a tuple operator combining a sum and a max, by hand
def sm (s1: f64, m1: f64) (s2: f64, m2: f64) = (s1 + s2, if m1 >= m2 then m1 else m2)

entry sum_and_max (xs: []f64) (dxs: []f64) = jvp (\v -> reduce sm (0, f64.lowest) (zip v v)) xs dxs
