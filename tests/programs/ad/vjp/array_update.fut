-- In-place updates `with`: the new value gets ybar[i]; the array gets ybar with position i zeroed;
-- slice updates and 2-D updates; an update of an element by a function of itself.

-- ==
-- entry: elem
-- input { [1.0, 2.0, 3.0, 4.0] 5.0 [1.0, 1.0, 1.0, 1.0] }
-- output { [6.0, 1.0, 0.0, 1.0] 1.0 }
-- input { [-1.0, 2.0, 3.0, 4.0] 0.5 [0.5, 2.0, -3.0, 1.0] }
-- output { [-1.0, 2.0, 0.0, 1.0] 3.0 }
entry elem (xs: [4]f64) (v: f64) (yb: [4]f64) = vjp (\(a, t) -> copy a with [2] = t * a[0]) (xs, v) yb

-- ==
-- entry: self
-- input { [1.0, 2.0, 3.0] }
-- output { [2.0, 32.0, 6.0] }
-- input { [0.0, -1.5, 2.0] }
-- output { [0.0, -13.5, 4.0] }
entry self (xs: [3]f64) = vjp (\a -> let b = copy a with [1] = a[1] * a[1] in f64.sum (map (\t -> t * t) b)) xs 1

-- ==
-- entry: slice
-- input { [1.0, 2.0, 3.0, 4.0, 5.0] [7.0, 8.0] [1.0, 2.0, 3.0, 4.0, 5.0] }
-- output { [1.0, 0.0, 0.0, 4.0, 5.0] [4.0, 6.0] }
entry slice (xs: [5]f64) (ys: [2]f64) (yb: [5]f64) = vjp (\(a, b) -> copy a with [1:3] = map (* 2) b) (xs, ys) yb

-- ==
-- entry: row2d
-- input { [[0.74, -0.43, 0.21], [0.56, 0.43, 0.83]] [1.0, 2.0, 3.0] }
-- output { [[0.0, 0.0, 0.0], [1.0, 1.0, 10.0]] [5.1499999999999995, 1.0, 1.0] }
entry row2d (m: [2][3]f64) (r: [3]f64) = vjp (\(a: [2][3]f64, b: [3]f64) -> let c0 = copy a with [0] = b let c = c0 with [1, 2] = a[1, 2] * 5 in f64.sum (flatten c) + c[0, 0] * c[1, 2]) (m, r) 1

-- An if whose branch updates an array bound before it in place (its return sweep re-executes
-- the branch). f = 16 x1² x2² + 4 x1² + 4 x2² when c, by hand; 4 |x|² otherwise.
-- ==
-- entry: if_update
-- input { [1.0, 2.0, 3.0] true } output { [0.0, 592.0, 408.0] }
-- input { [1.0, 2.0, 3.0] false } output { [8.0, 16.0, 24.0] }
entry if_update (xs: [3]f64) (c: bool) =
  vjp (\xs -> let zs = map (* 2) xs
              let ys = if c then zs with [0] = zs[1] * zs[2] else zs
              in f64.sum (map (\y -> y * y) ys))
      xs 1
