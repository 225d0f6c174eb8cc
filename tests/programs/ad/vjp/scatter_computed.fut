-- scatter of computed values into a computed destination, followed by a nonlinear function;
-- scatter inside a loop.

-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0, 4.0] [0.1, 0.2, 0.3] }
-- output { [0.0, 4.0, 0.0, 24.0] [0.0, 1.6487212707001282, 4.348438885852135] }
entry grad (dest: [4]f64) (vs: [3]f64) = vjp (\(d, v) -> let r = scatter (map (\t -> t * t) d) [2, 0, 2] (map f64.exp v) in f64.sum (map2 (*) r (map f64.i64 (iota 4))) + r[0] * r[2]) (dest, vs) 1

-- ==
-- entry: looped
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [170.0, 0.0, 0.0, 0.0] }
-- input { [-0.5, 7.0, 7.0, 7.0] }
-- output { [-85.0, 0.0, 0.0, 0.0] }
entry looped (xs: [4]f64) = vjp (\v -> let a = loop a = copy v for i < 3 do let t = a[i] * 2 in scatter a [i + 1] [t] in f64.sum (map (\t -> t * t) a)) xs 1
