-- Second and third derivatives by nesting vjp and jvp in every order, for scalar functions;
-- integer x^4 differentiated three times gives 24 x exactly.

def f (x: f64) : f64 = f64.sin x * f64.exp (0.5 * x) + x * x * x

-- ==
-- entry: d2_rr
-- input { 0.0 }
-- output { 1.0 }
-- input { 1.0 }
-- output { 5.850294570795806 }
-- input { -2.5 }
-- output { -15.100932633773374 }
entry d2_rr (x: f64) = vjp (\y -> vjp f y 1) x 1

-- ==
-- entry: d2_fr
-- input { 0.0 }
-- output { 1.0 }
-- input { 1.0 }
-- output { 5.850294570795806 }
-- input { -2.5 }
-- output { -15.100932633773374 }
entry d2_fr (x: f64) = jvp (\y -> vjp f y 1) x 1

-- ==
-- entry: d2_rf
-- input { 0.0 }
-- output { 1.0 }
-- input { 1.0 }
-- output { 5.850294570795806 }
-- input { -2.5 }
-- output { -15.100932633773374 }
entry d2_rf (x: f64) = vjp (\y -> jvp f y 1) x 1

-- ==
-- entry: d3_rrr
-- input { 0.0 }
-- output { 5.75 }
-- input { 1.0 }
-- output { 3.8696902458482927 }
-- input { -2.5 }
-- output { 6.293147439807385 }
entry d3_rrr (x: f64) = vjp (\z -> vjp (\y -> vjp f y 1) z 1) x 1

-- ==
-- entry: d3_frf
-- input { 0.0 }
-- output { 5.75 }
-- input { 1.0 }
-- output { 3.8696902458482927 }
-- input { -2.5 }
-- output { 6.293147439807385 }
entry d3_frf (x: f64) = jvp (\z -> vjp (\y -> jvp f y 1) z 1) x 1

-- ==
-- entry: int4
-- input { 3 }
-- output { 72 }
-- input { -5 }
-- output { -120 }
-- input { 0 }
-- output { 0 }
entry int4 (x: i32) = vjp (\z -> vjp (\y -> vjp (\t -> t * t * t * t) y 1) z 1) x 1
