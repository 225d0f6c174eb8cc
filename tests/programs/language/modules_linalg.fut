-- A linear-algebra library written as a parametric module over `real`, imported from another
-- file and applied at `f64` and `f32`; derivatives through its functions.

import "lib/linalg"

module la = mk_linalg f64
module la32 = mk_linalg f32

-- ==
-- entry: products
-- input { [[1.0, 2.0], [3.0, 4.0]] [1.0, 1.0] }
-- output { [3.0, 7.0] [[7.0, 10.0], [15.0, 22.0]] 5.0 }

entry products (a: [][]f64) (x: []f64) =
  (la.matvec a x, la.matmul a a, la.norm [3, 4])

-- ==
-- entry: single
-- input { [3f32, 4f32] } output { 5f32 [6f32, 8f32] }

entry single (x: []f32) = (la32.norm x, la32.scale 2 x)

-- The gradient of |A x| in A and x.
-- ==
-- entry: grad
-- input { [[3.0, 0.0], [0.0, 4.0]] [1.0, 1.0] }
-- output { [[0.6, 0.6], [0.8, 0.8]] [1.8, 3.2] }

entry grad [n] [m] (a: [n][m]f64) (x: [m]f64) =
  vjp (\(a, x) -> la.norm (la.matvec a x)) (a, x) 1

-- A directional derivative of the quadratic form x' A x.
-- ==
-- entry: quad_jvp
-- input { [[1.0, 2.0], [3.0, 4.0]] [1.0, 2.0] [1.0, 0.0] }
-- output { 12.0 }

entry quad_jvp [n] (a: [n][n]f64) (x: [n]f64) (dx: [n]f64) =
  jvp (\v -> la.dot v (la.matvec a v)) x dx
