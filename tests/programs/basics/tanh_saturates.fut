-- f32.tanh is exactly ±1 where the correctly rounded result is, at the infinities too, on
-- every backend (an OpenCL tanh in single precision may stop one unit in the last place short
-- of 1, as POCL's does). The comparison is made in the program, exactly.
-- ==
-- input { [0f32, 10f32, 50f32, f32.inf, -20f32, -f32.inf, 1f32] }
-- output { [false, true, true, true, true, true, false] }

entry main (xs: []f32) : []bool = map (\x -> f32.abs (f32.tanh x) == 1) xs
