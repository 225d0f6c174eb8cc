-- The dF~ micro benchmarks (benchmarks/README.md §micro benchmarks): four one-line functions whose
-- Jacobians are one row (dot, max), square (add) or one column (scale), each differentiated
-- in forward mode (one jvp per input, `tabulate n (\i -> jvp f x (onehot i))`) and in reverse
-- mode (one vjp per output).
--
-- Every entry point takes the same inputs x [n], y [n] (constant) and s.

def onehot (n: i64) (i: i64) : [n]f64 = tabulate n (\j -> f64.bool (j == i))

def dot [n] (y: [n]f64) (x: [n]f64) : f64 = f64.sum (map2 (*) x y)
def vmax [n] (x: [n]f64) : f64 = f64.maximum x
def add [n] (y: [n]f64) (x: [n]f64) : [n]f64 = map2 (+) x y
def scale [n] (y: [n]f64) (s: f64) : [n]f64 = map (* s) y

-- ==
-- entry: dot_value
-- input @ data/micro_10.in
-- output { 3.024690482e+00 }

entry dot_value [n] (x: [n]f64) (y: [n]f64) (_s: f64) : f64 = dot y x

-- ==
-- entry: dot_fwd dot_rev
-- input @ data/micro_10.in
-- output { [0.78146177386664573, 0.93593621142507732, 0.076548881113048695,
--           0.67244398591596843, 0.83260388246167671, 0.78733507357383192,
--           0.28336874542455925, 0.60780718488580754, 0.70895900377160692,
--           0.99680942524219318] }

entry dot_fwd [n] (x: [n]f64) (y: [n]f64) (_s: f64) : [n]f64 =
  tabulate n (\i -> jvp (dot y) x (onehot n i))

entry dot_rev [n] (x: [n]f64) (y: [n]f64) (_s: f64) : [n]f64 = vjp (dot y) x 1

-- ==
-- entry: max_value
-- input @ data/micro_10.in
-- output { 9.152831531e-01 }

entry max_value [n] (x: [n]f64) (_y: [n]f64) (_s: f64) : f64 = vmax x

-- ==
-- entry: max_fwd max_rev
-- input @ data/micro_10.in
-- output { [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] }

entry max_fwd [n] (x: [n]f64) (_y: [n]f64) (_s: f64) : [n]f64 =
  tabulate n (\i -> jvp vmax x (onehot n i))

entry max_rev [n] (x: [n]f64) (_y: [n]f64) (_s: f64) : [n]f64 = vjp vmax x 1

-- ==
-- entry: add_fwd add_rev
-- input @ data/micro_10.in
-- output { [[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
--           [0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
--           [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
--           [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
--           [0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
--           [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0],
--           [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0],
--           [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
--           [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0],
--           [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]] }

-- The dense n × n Jacobian: columns from jvps (then transposed into rows), or rows from vjps.
entry add_fwd [n] (x: [n]f64) (y: [n]f64) (_s: f64) : [n][n]f64 =
  transpose (tabulate n (\i -> jvp (add y) x (onehot n i)))

entry add_rev [n] (x: [n]f64) (y: [n]f64) (_s: f64) : [n][n]f64 =
  tabulate n (\i -> vjp (add y) x (onehot n i))

-- ==
-- entry: scale_value
-- input @ data/micro_10.in
-- output { 6.078729470e+00 }

entry scale_value [n] (_x: [n]f64) (y: [n]f64) (s: f64) : f64 = f64.sum (scale y s)

-- ==
-- entry: scale_fwd scale_rev
-- input @ data/micro_10.in
-- output { [0.78146177386664573, 0.93593621142507732, 0.076548881113048695,
--           0.67244398591596843, 0.83260388246167671, 0.78733507357383192,
--           0.28336874542455925, 0.60780718488580754, 0.70895900377160692,
--           0.99680942524219318] }

entry scale_fwd [n] (_x: [n]f64) (y: [n]f64) (s: f64) : [n]f64 = jvp (scale y) s 1

entry scale_rev [n] (_x: [n]f64) (y: [n]f64) (s: f64) : [n]f64 =
  tabulate n (\i -> vjp (scale y) s (onehot n i))
