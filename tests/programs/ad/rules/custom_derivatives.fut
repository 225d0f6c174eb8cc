-- Custom derivatives (docs/language.md §Custom derivatives): `with_vjp f f' x` and `with_jvp f f'
-- x`. Expected values are derived by hand in the comments (d/dx sqrt x = 1 / (2 sqrt x), and so
-- on); entries whose user derivative differs from the true one on purpose return only
-- derivatives, so that finite differences of the entries still agree with their AD.

def my_sqrt (x: f64) = with_vjp f64.sqrt (\r ybar -> ybar / (2 * r)) x

-- A deliberately wrong reverse derivative: reverse mode uses it, forward mode does not.
def cube_rev100 (x: f64) = with_vjp (\t -> t * t * t) (\_ ybar -> 100 * ybar) x

-- A deliberately wrong forward derivative: forward mode uses it, reverse mode does not.
def cube_fwd7 (x: f64) = with_jvp (\t -> t * t * t) (\_ xdot -> 7 * xdot) x

def my_sin (x: f64) = with_jvp f64.sin (\t tdot -> f64.cos t * tdot) x

-- Polar to Cartesian; the reverse derivative sees only the result (x, y) = (r cos t, r sin t):
-- rbar = (xb x + yb y) / r and tbar = yb x - xb y.
def polar (p: (f64, f64)) =
  with_vjp (\(r, t) -> (r * f64.cos t, r * f64.sin t))
           (\(x, y) (xb, yb) -> ((xb * x + yb * y) / f64.sqrt (x * x + y * y), yb * x - xb * y))
           p

-- Outside any AD operator, `with_vjp f f' x` and `with_jvp f f' x` are `f x`. (The entries
-- that return values rather than derivatives use correct custom derivatives only: the
-- finite-difference check differentiates them.)
-- ==
-- entry: plain
-- input { 9.0 } output { 3.0 0.4121184852417566 }
-- input { 2.25 } output { 1.5 0.7780731968879212 }
entry plain (x: f64) = (my_sqrt x, my_sin x)

-- d sqrt x / dx = 1 / (2 sqrt x): 0.25 at 4, 1/6 at 9.
-- ==
-- entry: d_sqrt
-- input { 4.0 } output { 0.25 }
-- input { 9.0 } output { 0.16666666666666666 }
entry d_sqrt (x: f64) = vjp my_sqrt x 1

-- The user's reverse derivative (100 ybar) under vjp and mjp; the automatic one (3 t^2 = 12
-- at 2) under jvp.
-- ==
-- entry: rev_uses_custom
-- input { 2.0 } output { 100.0 [100.0, 250.0] 12.0 }
entry rev_uses_custom (x: f64) =
  (vjp cube_rev100 x 1, mjp cube_rev100 x [1, 2.5], jvp cube_rev100 x 1)

-- The user's forward derivative (7 xdot) under jvp and jmp; the automatic one under vjp.
-- ==
-- entry: fwd_uses_custom
-- input { 2.0 } output { 7.0 [7.0, 14.0] 12.0 }
entry fwd_uses_custom (x: f64) =
  (jvp cube_fwd7 x 1, jmp cube_fwd7 x [1, 2], vjp cube_fwd7 x 1)

-- Values captured by f get no cotangent: d/da (a * b) = b, and b gets 0 although the product
-- depends on it.
-- ==
-- entry: captured
-- input { 3.0 5.0 } output { 5.0 0.0 }
-- input { -1.5 0.25 } output { 0.25 0.0 }
entry captured (a: f64) (b: f64) =
  vjp (\(u, v) -> with_vjp (\t -> t * v) (\_ ybar -> ybar * v) u) (a, b) 1

-- A captured scale used by both f and f' on an array: the cotangent is y * ybar.
-- ==
-- entry: scaled
-- input { 2.0 [1.0, 2.0, 3.0] [1.0, -1.0, 0.5] } output { [2.0, -2.0, 1.0] }
entry scaled (y: f64) (x: [3]f64) (yb: [3]f64) =
  vjp (\v -> with_vjp (map (* y)) (\_ b -> map (* y) b) v) x yb

-- Tuples in and out: the gradient of the x coordinate at (r, t) = (2, 0.5) is
-- (cos 0.5, -2 sin 0.5).
-- ==
-- entry: polar_grad
-- input { 2.0 0.5 1.0 0.0 } output { 0.8775825618903728 -0.958851077208406 }
-- input { 1.0 0.0 0.0 1.0 } output { 0.0 1.0 }
entry polar_grad (r: f64) (t: f64) (xb: f64) (yb: f64) = vjp polar (r, t) (xb, yb)

-- A custom derivative inside a map and inside a loop: the gradient of sum (map sqrt xs) is
-- 1 / (2 sqrt x); x^(1/8) (three square roots) has derivative x^(-7/8) / 8 = 2^-10 at 256.
-- ==
-- entry: in_map_loop
-- input { [1.0, 4.0, 16.0] 256.0 } output { [0.5, 0.25, 0.125] 0.0009765625 }
entry in_map_loop (xs: [3]f64) (x: f64) =
  ( vjp (\v -> f64.sum (map my_sqrt v)) xs 1
  , vjp (\s -> loop y = s for _i < 3 do my_sqrt y) x 1 )

-- Nesting: the second derivative of sqrt is -1 / (4 x^(3/2)), -1/32 at 4, by vjp of vjp and
-- jvp of vjp; that of sin is -sin x, by vjp of jvp and jvp of jvp.
-- ==
-- entry: nested
-- input { 4.0 1.0 } output { -0.03125 -0.03125 -0.8414709848078965 -0.8414709848078965 }
entry nested (x: f64) (y: f64) =
  ( vjp (\s -> vjp my_sqrt s 1) x 1
  , jvp (\s -> vjp my_sqrt s 1) x 1
  , vjp (\s -> jvp my_sin s 1) y 1
  , jvp (\s -> jvp my_sin s 1) y 1 )

-- A user derivative must have exactly the shape of what it is the derivative of: a run-time
-- size error otherwise (docs/language.md §Differentiation operators, §Custom derivatives).
-- ==
-- entry: wrong_shape
-- input { [1.0, 2.0, 3.0] 1i64 } error: cannot match shape
-- input { [1.0, 2.0, 3.0] 3i64 } output { [2.0, 2.0, 2.0] [2.0, 2.0, 2.0] }
entry wrong_shape (x: []f64) (k: i64) =
  ( vjp (\v -> f64.sum (with_vjp (map (* 2)) (\_ yb -> map (* 2) (take k yb)) v)) x 1
  , jvp (with_jvp (map (* 2)) (\_ xd -> map (* 2) (take k xd))) x (map (const 1) x) )
