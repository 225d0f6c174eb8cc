-- #[stripmine(k)] loops: the gradient must equal that of the plain loop, for iteration counts
-- that are and are not multiples of the strip size, and for zero and one iteration.

def step (y: f64) (c: f64) = y * c + f64.sin y

-- ==
-- entry: sm2
-- input { 0.5 0.9 0i64 }
-- output { 1.0 0.0 }
-- input { 0.5 0.9 1i64 }
-- output { 1.7775825618903727 0.5 }
-- input { 0.5 0.9 7i64 }
-- output { -4.9791335785876384e-05 2.6947681172690565 }
-- input { 0.5 0.9 16i64 }
-- output { 3.969559207836622e-16 2.694809136411754 }
-- input { 0.5 0.9 25i64 }
-- output { -3.1646673999066378e-27 2.694809136411753 }
entry sm2 (x: f64) (c: f64) (n: i64) = vjp (\(t, k) -> #[stripmine(2)] loop y = t for _i < n do step y k) (x, c) 1

-- ==
-- entry: sm3
-- input { 0.5 0.9 0i64 }
-- output { 1.0 0.0 }
-- input { 0.5 0.9 1i64 }
-- output { 1.7775825618903727 0.5 }
-- input { 0.5 0.9 7i64 }
-- output { -4.9791335785876384e-05 2.6947681172690565 }
-- input { 0.5 0.9 16i64 }
-- output { 3.969559207836622e-16 2.694809136411754 }
-- input { 0.5 0.9 25i64 }
-- output { -3.1646673999066378e-27 2.694809136411753 }
entry sm3 (x: f64) (c: f64) (n: i64) = vjp (\(t, k) -> #[stripmine(3)] loop y = t for _i < n do step y k) (x, c) 1

-- ==
-- entry: plain
-- input { 0.5 0.9 0i64 }
-- output { 1.0 0.0 }
-- input { 0.5 0.9 1i64 }
-- output { 1.7775825618903727 0.5 }
-- input { 0.5 0.9 7i64 }
-- output { -4.9791335785876384e-05 2.6947681172690565 }
-- input { 0.5 0.9 16i64 }
-- output { 3.969559207836622e-16 2.694809136411754 }
-- input { 0.5 0.9 25i64 }
-- output { -3.1646673999066378e-27 2.694809136411753 }
entry plain (x: f64) (c: f64) (n: i64) = vjp (\(t, k) -> loop y = t for _i < n do step y k) (x, c) 1

-- ==
-- entry: arr
-- input { [1.0, 2.0, 3.0, 4.0] 9i64 }
-- output { [1.125, 3.5, 3.75, 3.25] }
-- input { [1.0, -2.0, 3.0, 0.5] 16i64 }
-- output { [3.0625, 8.8125, 8.0625, 7.5625] }
-- input { [1.0, 2.0, 3.0, 4.0] 0i64 }
-- output { [1.0, 1.0, 1.0, 1.0] }
entry arr (xs: [4]f64) (n: i64) = vjp (\v -> let a = #[stripmine(2)] loop a = copy v for i < n do a with [i % 4] = a[i % 4] * 0.5 + a[(i + 1) % 4] in f64.sum a) xs 1
