-- Reverse computing of loops whose carried scalars are updated by `x + e`, `x - e` and `e - x`
-- (e independent of x): the return sweep recovers the previous iterate by the inverse update
-- instead of reading checkpoints. `mixed` inverts y (its term reads w before the iteration) and
-- checkpoints w (w*w is not invertible); `counter` inverts an integer exactly; in `cycle` each
-- update needs the other's earlier value, so y is checkpointed and z inverted. Expected values:
-- gen/gen_revcomp.py (a tape-based reverse mode in Python that stores every iterate).

-- ==
-- entry: add
-- input { 1.0 0.3 1000i64 }
-- output { 2.377625516489127 -77.61023082408593 }
-- input { -2.0 1.5 1000i64 }
-- output { -2.478143079813535 9.87885145120386 }
-- input { 0.5 0.7 0i64 }
-- output { 1.7 0.5 }
-- input { 0.5 0.7 1i64 }
-- output { 1.7 0.5 }
entry add (x: f64) (c: f64) (n: i64) =
  vjp (\(t, k) -> let y = loop y = t for i < n do y + f64.sin (k * f64.i64 i) * 0.01 in y * y + k * y) (x, c) 1

-- ==
-- entry: sub
-- input { 1.0 0.3 1001i64 }
-- output { 0.5980543092695825 0.974615128942276 }
-- input { -0.25 1.2 500i64 }
-- output { -0.8392064112008265 0.26167389168765015 }
-- input { 2.0 -0.5 2i64 }
-- output { -1.9875 3.85078125 }
entry sub (x: f64) (c: f64) (n: i64) =
  vjp (\(t, k) -> let y = loop y = t for i < n do k * k / f64.i64 (i + 1) * 0.1 - y - k * 0.01 in y * y * k) (x, c) 1

-- ==
-- entry: mixed
-- input { 1.0 0.3 300i64 }
-- output { 1.105572809000084 0.14380962768969838 }
-- input { -1.5 0.6 300i64 }
-- output { 1.105572809000084 0.17627717357461742 }
-- input { 0.2 0.1 1i64 }
-- output { 1.105 0.13094629442969014 }
entry mixed (x: f64) (u: f64) (n: i64) =
  vjp (\(t, w0) -> let (y, w) = loop (y, w) = (t, w0) for _i < n do (y + f64.sin w * 0.1, w * w * 0.5 + 0.1) in y * w + y) (x, u) 1

-- ==
-- entry: counter
-- input { 1.0 400i64 }
-- output { 197243.27793717312 }
-- input { -0.3 37i64 }
-- output { 107.2735613981574 }
-- input { 2.0 0i64 }
-- output { 28.0 }
entry counter (x: f64) (n: i64) =
  vjp (\t -> let (y, k) = loop (y, k) = (t, 7i64) for i < n do (y + f64.sin (f64.i64 (k % 5)) * 0.01 + 0.001 * f64.i64 i, k + 3)
              in y * y * f64.i64 k) x 1

-- ==
-- entry: cycle
-- input { 1.0 0.5 200i64 }
-- output { -4.417862320858279 3.4058007473035277 }
-- input { -0.4 1.1 50i64 }
-- output { 0.7251010451766473 1.3848010615940523 }
entry cycle (x: f64) (u: f64) (n: i64) =
  vjp (\(t, z0) -> let (y, z) = loop (y, z) = (t, z0) for _i < n do (y + 0.01 * z * z, z - 0.01 * f64.sin y) in y * z) (x, u) 1
