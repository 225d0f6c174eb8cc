-- tabulate_2d and outer products.
-- ==
-- entry: outer
-- input { [1.0, 2.0] [3.0, 4.0, 5.0] [1.0, 0.0] [0.0, 0.0, 1.0] }
-- output { [[3.0, 4.0, 6.0], [0.0, 0.0, 2.0]] }

entry outer [n] [m] (a: [n]f64) (b: [m]f64) (da: [n]f64) (db: [m]f64) =
  jvp (\(x, y) -> tabulate_2d n m (\i j -> x[i] * y[j])) (a, b) (da, db)

-- ==
-- entry: scaled
-- input { 2.0 } output { [[0.0, 0.0], [0.0, 4.0]] }

entry scaled (s: f64) = jvp (\t -> tabulate_2d 2 2 (\i j -> f64.i64 (i * j) * t * t)) s 1
