-- Functions ignoring their argument, constants, existential sizes from filter, and jvp2/jmp2
-- nested under jvp and jvp2.
-- ==
-- entry: consts
-- input { 2.0 } output { 0.0 [0.0, 0.0] 0i32 3.141592653589793 1.0 }

entry consts (x: f64) =
  (jvp (\_ -> 5.0) x 1, jvp (\_ -> [1.0, 2.0]) x 1, jvp (const 3i32) x 1, jvp (\t -> f64.pi * t) x 1,
   jvp (\t -> f64.min t f64.inf) x 1)

-- ==
-- entry: filtered_sizes
-- input { [1.0, -2.0, 3.0] } output { [3.0, 3.0] }
-- input { [-1.0] } output { empty([0]f64) }

entry filtered_sizes (xs: []f64) = let ys = filter (> 0) xs in jvp (map (* 3)) ys (map (const 1) ys)

-- ==
-- entry: jvp_of_jmp2
-- input { 2.0 } output { 12.0 [8.0, 16.0] }
-- input { -1.0 } output { 3.0 [-4.0, -8.0] }

-- the inner jmp2 is (t^3, [2 t^2, 4 t^2])
entry jvp_of_jmp2 (x: f64) = jvp (\t -> jmp2 (\u -> u * u * t) t [1, 2]) x 1

-- ==
-- entry: jvp2_of_jvp2
-- input { 2.0 } output { 8.0 12.0 12.0 12.0 }

entry jvp2_of_jvp2 (x: f64) =
  let ((a, b), (c, d)) = jvp2 (\t -> jvp2 (\u -> u * u * u) t 1) x 1 in (a, b, c, d)

-- ==
-- entry: passthrough
-- input { 1.0 [1.0, 2.0] } output { [3.0, 6.0] 2.0 0.0 [3.0, 6.0] }

entry passthrough (x: f64) (xs: []f64) = jvp (\(t, v) -> (v, t, 1.0, v)) (x, xs) (2, map (* 3) xs)
