-- Language forms inside differentiated code: local opens, sections, pipes, composition, copy,
-- opaque, let-patterns and shadowing.

-- ==
-- entry: local_open
-- input { 0.5 }
-- output { 1.8646378201593492 }
-- input { -2.0 }
-- output { -1.0620541022748677 }
entry local_open (x: f64) = vjp (\t -> f64.(sqrt (t * t + 1) + exp (sin t))) x 1

-- ==
-- entry: sections
-- input { [0.0, 1.0, -1.0] }
-- output { [2.772588722239781, 11.090354888959125, 0.6931471805599453] }
entry sections (xs: [3]f64) = vjp (\v -> v |> map (* 2) |> map (+ 1) |> map (2 **) |> f64.sum) xs 1

-- ==
-- entry: compose
-- input { 0.3 }
-- output { 6.955142073674958 }
-- input { 2.0 }
-- output { -19.10189339204887 }
entry compose (x: f64) = vjp (f64.sin >-> (* 3) >-> f64.exp) x 1

-- ==
-- entry: copies
-- input { [1.0, 2.0, 3.0] }
-- output { [4.0, 8.0, 12.0] }
entry copies (xs: [3]f64) = vjp (\v -> let a = copy v let b = opaque a let c = manifest (map (* 2) b) in f64.sum (map2 (*) a c)) xs 1

-- ==
-- entry: shadow
-- input { 0.5 }
-- output { 72.0 }
-- input { -1.0 }
-- output { -72.0 }
entry shadow (x: f64) = vjp (\t -> let t = t * 2 let t = t + t * t let (a, t) = (t, t * 3) in a * t) x 1
