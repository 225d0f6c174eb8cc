-- for loops with a scalar accumulator: powers, zero iterations, a free variable used in the body.

-- ==
-- entry: power
-- input { 2.0 3i64 }
-- output { 12.0 }
-- input { 2.0 0i64 }
-- output { 0.0 }
-- input { 1.5 4i64 }
-- output { 13.5 }
-- input { -1.0 7i64 }
-- output { 7.0 }
-- input { 0.0 1i64 }
-- output { 1.0 }
entry power (x: f64) (n: i64) = vjp (\t -> loop acc = 1 for _i < n do acc * t) x 1

-- ==
-- entry: affine
-- input { 1.0 2.0 }
-- output { 32.0 276.0 }
-- input { -0.5 0.9 }
-- output { 0.5904900000000002 21.962249999999994 }
entry affine (x: f64) (a: f64) = vjp (\(t, c) -> loop y = t for i < 5 do c * y + f64.i64 i * c * c) (x, a) 1

-- ==
-- entry: sines
-- input { 0.3 }
-- output { 1.2516471441373145 }
-- input { 2.0 }
-- output { 0.3688311338235039 }
-- input { -1.0 }
-- output { 0.5396245157756909 }
entry sines (x: f64) = vjp (\t -> loop y = t for _i < 10 do f64.sin y + 0.5 * t) x 1

-- the loop's initial value is also free in the body: both paths contribute
-- ==
-- entry: init_and_free
-- input { 0.5 }
-- output { 2.0 }
-- input { -2.0 }
-- output { -3.0 }
-- input { 3.0 }
-- output { 7.0 }
entry init_and_free (x: f64) = vjp (\t -> loop y = t for _i < 1 do y * y + t) x 1

-- ==
-- entry: init_and_free2
-- input { 0.5 }
-- output { 7.0 }
-- input { -2.0 }
-- output { 7.0 }
entry init_and_free2 (x: f64) = vjp (\t -> loop y = t for _i < 2 do y * 2 + t) x 1
