-- take, drop, head, last, tail, init and split.

-- ==
-- entry: ends
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [19.0, 24.0, 24.0, 24.0, 11.0] }
-- input { [0.69, -0.68, 0.12, -0.26, -0.57] }
-- output { [-1.96, -1.5200000000000002, -1.5200000000000002, -1.5200000000000002, 0.5599999999999998] }
entry ends (xs: [5]f64) = vjp (\v -> head v * last v + f64.sum (tail v) * f64.sum (init v)) xs 1

-- ==
-- entry: td
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [1.0, -1.0] }
-- output { [4.0, -5.0, 0.0, 1.0, -2.0] }
entry td (xs: [5]f64) (yb: [2]f64) = vjp (\v -> map2 (*) (take 2 v) (drop 3 v)) xs yb

-- ==
-- entry: halves
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [9.0, 16.0, 6.0, 16.0] }
entry halves (xs: [4]f64) = vjp (\v -> let (a, b) = split (v :> [2 + 2]f64) in f64.sum (map2 (\s t -> s * t * t) a b)) xs 1
