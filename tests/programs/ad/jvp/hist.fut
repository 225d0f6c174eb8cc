-- hist with +, max and *: out-of-range indices contribute nothing.
-- ==
-- entry: add
-- input { [0i64, 2i64, 2i64, 5i64] [1.0, 2.0, 3.0, 4.0] [1.0, 10.0, 100.0, 1000.0] }
-- output { [1.0, 0.0, 110.0] }
-- input { [-1i64, 1i64, 1i64, 3i64] [1.0, 2.0, 3.0, 4.0] [1.0, 10.0, 100.0, 1000.0] }
-- output { [0.0, 110.0, 0.0] }

entry add [n] (is: [n]i64) (vs: [n]f64) (dvs: [n]f64) = jvp (hist (+) 0 3 is) vs dvs

-- ==
-- entry: maxi
-- input { [0i64, 0i64, 1i64, 0i64] [3.0, 5.0, 2.0, 5.0] [1.0, 10.0, 100.0, 1000.0] }
-- output { [10.0, 100.0, 0.0] }

entry maxi [n] (is: [n]i64) (vs: [n]f64) (dvs: [n]f64) = jvp (hist f64.max f64.lowest 3 is) vs dvs

-- ==
-- entry: mul
-- input { [0i64, 0i64, 0i64, 1i64] [2.0, 0.0, 3.0, 4.0] [1.0, 1.0, 1.0, 1.0] }
-- output { [6.0, 1.0] }
-- input { [0i64, 0i64, 0i64, 1i64] [2.0, 0.0, 0.0, 4.0] [1.0, 1.0, 1.0, 1.0] }
-- output { [0.0, 1.0] }

entry mul [n] (is: [n]i64) (vs: [n]f64) (dvs: [n]f64) = jvp (hist (*) 1 2 is) vs dvs

-- ==
-- entry: ints
-- input { [1i64, 1i64, 0i64] [2, 3, 4] } output { [8, 10] }

entry ints [n] (is: [n]i64) (vs: [n]i32) = jvp (\v -> hist (+) 0 2 is (map (\e -> e * e) v)) vs (map (const 1) vs)
