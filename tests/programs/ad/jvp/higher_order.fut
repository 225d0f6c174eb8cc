-- Functions used inside the differentiated function; jvp and jmp nested inside jmp.
def scale (k: f64) (v: f64) = k * v * v

-- ==
-- entry: hof
-- input { 2.0 } output { 32.0 }

-- (t^2)^2 = t^4
entry hof (x: f64) = jvp (\t -> let g = \h -> h (h t) in g (\u -> u * u)) x 1

-- ==
-- entry: poly_local
-- input { 2.0 } output { 9.0 }

entry poly_local (x: f64) = jvp (\t -> let twice 'a (f: a -> a) (v: a) = f (f v) in twice (\u -> u * 3) t) x 1

-- ==
-- entry: curried
-- input { 2.0 } output { 12.0 }
-- input { -1.0 } output { -6.0 }

entry curried (x: f64) = jvp (scale 3) x 1

-- ==
-- entry: jmp_in_jmp
-- input { 2.0 } output { [[4.0, 8.0], [12.0, 24.0]] }

-- inner: [2 a x, 4 a x] with x a constant; outer along 1 and 3
entry jmp_in_jmp (x: f64) = jmp (\a -> jmp (\t -> a * t * t) x [1, 2]) x [1, 3]

-- ==
-- entry: jvp_in_jmp
-- input { 2.0 } output { [8.0, 16.0] }

-- the inner jvp is 2 a^2; its derivative is 4 a
entry jvp_in_jmp (x: f64) = jmp (\a -> jvp (\t -> a * t * t) a 1) x [1, 2]

-- ==
-- entry: jmp_tuple
-- input { 2.0 3.0 } output { [3.0, 2.0] [1.0, 1.0] [[1.0, 0.0], [0.0, 1.0]] }

entry jmp_tuple (x: f64) (y: f64) = jmp (\(a, b) -> (a * b, a + b, [a, b])) (x, y) [(1, 0), (0, 1)] |> unzip3
