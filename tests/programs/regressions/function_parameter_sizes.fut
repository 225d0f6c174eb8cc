-- Size parameters of functions read from their parameters' types: in the element type of an
-- array of tuples or records, and, for a size a body names that only a function-typed
-- parameter mentions, from the type the function is used at.
-- ==
-- entry: tuple_elements
-- input { [1.0, 2.0] }
-- output { 23i64 }

def tuple_sizes [n][m] (_: [n]([m]f64, f64)) : i64 = n * 10 + m

entry tuple_elements (xs: []f64) : i64 = tuple_sizes (map (\x -> ([x, x, x], x)) xs)

-- ==
-- entry: record_elements
-- input { [1.0, 2.0, 3.0] }
-- output { 32i64 }

def record_sizes [n][m] (_: [n]{a: [m]f64, b: f64}) : i64 = n * 10 + m

entry record_elements (xs: []f64) : i64 = record_sizes (map (\x -> {a = [x, x], b = x}) xs)

def app [n] (g: [n]f64 -> f64) (x: f64) : f64 = g (replicate n x)

-- ==
-- entry: from_lambda
-- input { 2.0 }
-- output { 6.0 }

entry from_lambda (x: f64) : f64 = app (\(v: [3]f64) -> f64.sum v) x

-- ==
-- entry: from_size_variable
-- input { 4i64 2.0 }
-- output { 8.0 }

entry from_size_variable (k: i64) (x: f64) : f64 = app (\(v: [k]f64) -> f64.sum v) x

-- ==
-- entry: from_result
-- input { [1.0, 2.0, 3.0] }
-- output { 6i64 }

def result_size [n] (g: f64 -> [n]f64) (x: f64) : i64 = n + length (g x)

entry from_result (xs: []f64) : i64 = result_size (\x -> map (+ x) xs) 1.0

-- ==
-- entry: unused
-- input { 3i64 }
-- output { 3i64 }

def unnamed [n] 'a (g: a -> [n]f64) (x: a) : i64 = length (g x)

entry unused (k: i64) : i64 = unnamed (\(j: i64) -> replicate j 1.0) k
