-- A value used many times accumulates cotangent from every use; unused inputs get zero; a
-- constant result gives zero cotangents; a long chain of lets.

-- ==
-- entry: fanout
-- input { 1.0 }
-- output { 20.0 }
-- input { -2.0 }
-- output { 32.0 }
-- input { 0.0 }
-- output { 0.0 }
entry fanout (x: f64) = vjp (\t -> let u = t * 2 let v = u * t let w = u + v + t in w * u - v) x 1

-- ==
-- entry: unused
-- input { 3.0 4.0 }
-- output { 1.0 0.0 }
entry unused (x: f64) (y: f64) = vjp (\(a, _b) -> a + 2) (x, y) 1

-- ==
-- entry: constant
-- input { 3.0 }
-- output { 0.0 }
entry constant (x: f64) = vjp (\_t -> 42.0) x 1

-- ==
-- entry: chain
-- input { 0.5 }
-- output { 1.2306076313441698 }
-- input { -1.2 }
-- output { 1.370161542079984 }
-- input { 2.0 }
-- output { 1.9367203171070244 }
entry chain (x: f64) =
  vjp (\t ->
    let a1 = t * 1.1
    let a2 = a1 + t * 0.5
    let a3 = a2 * a1
    let a4 = f64.sin a3 + a2
    let a5 = a4 * a4 - a1
    let a6 = a5 / (1 + a2 * a2)
    let a7 = a6 + a3 * 0.01
    let a8 = f64.exp (a7 * 0.1)
    in a8 * t) x 1
