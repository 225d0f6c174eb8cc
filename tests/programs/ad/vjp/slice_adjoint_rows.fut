-- The adjoint of each row's slice is a fresh zero row with the slice's adjoint copied in
-- (an allocation and an in-place update per row): on the gpu backend each row's zero row is
-- a part of one buffer and the loop over rows is a kernel.
-- ==
-- entry: slice_grad
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] 1i64 }
-- output { [[0.0, 4.0, 6.0], [0.0, 10.0, 12.0]] }
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] 3i64 }
-- output { [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]] }
-- input { empty([0][4]f64) 2i64 }
-- output { empty([0][4]f64) }

entry slice_grad [n] [s] (rows: [n][s]f64) (d: i64) : [n][s]f64 =
  vjp (\rs -> map (\row -> f64.sum (map (\x -> x * x) row[d:])) rs) rows (replicate n 1.0)
