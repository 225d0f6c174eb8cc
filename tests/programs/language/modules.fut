-- The module system: module types with `include` and `with`, ascription hiding members,
-- parametric modules with several parameters and applied to anonymous modules, `open`,
-- `open import`, `module M = import`, and a library under `lib/github.com/...`.

module type semigroup = { type t  val op : t -> t -> t }
module type monoid = { include semigroup  val ne : t }

module sum_i32 : monoid with t = i32 = { type t = i32  def op = (i32.+)  def ne = 0i32  def extra = 7i32 }

-- Two parameters, curried.
module pair_monoid (A: monoid) (B: monoid) : monoid with t = (A.t, B.t) = {
  type t = (A.t, B.t)
  def op (a: t) (b: t) : t = (A.op a.0 b.0, B.op a.1 b.1)
  def ne : t = (A.ne, B.ne)
}

module max_f64 = { type t = f64  def op = f64.max  def ne = -f64.inf }

module both = pair_monoid sum_i32 max_f64

-- A parametric module using another one in its body.
module reducer (M: monoid) = {
  def reduce_all [n] (xs: [n]M.t) : M.t = reduce M.op M.ne xs
}

module both_reducer = reducer (pair_monoid sum_i32 max_f64)

-- ==
-- entry: monoids
-- input { [1, 2, 3] [0.5, 2.5, -1.0] }
-- output { 6 6 2.5 }

entry monoids (xs: []i32) (ys: []f64) =
  let (s, m) = both_reducer.reduce_all (zip xs ys)
  in (reduce sum_i32.op sum_i32.ne xs, s, m)

module stats = import "lib/github.com/example/stats/stats"
module st = stats.mk_stats f64

-- ==
-- entry: statistics
-- input { [1.0, 2.0, 3.0, 4.0] } output { 2.5 1.25 }

entry statistics (xs: []f64) = (st.mean xs, st.variance xs)

-- The gradient of the variance: 2 (x_i - mean) / n.
-- ==
-- entry: grad_variance
-- input { [1.0, 2.0, 3.0, 4.0] } output { [-0.75, -0.25, 0.25, 0.75] }

entry grad_variance (xs: []f64) = vjp st.variance xs 1

module opened = {
  open import "lib/github.com/example/stats/moments"
}

module mo = opened.mk_moments f32

-- ==
-- entry: open_import
-- input { [1f32, 3f32] } output { 5f32 }

entry open_import (xs: []f32) = mo.moment 2 xs

-- A module opened locally, and `M.(e)`.
-- ==
-- entry: opens
-- input { 2 } output { 5 5 }

module arith = { def add1 (x: i32) = x + 1  def (*) (a: i32) (b: i32) = a + b }

local open arith

entry opens (x: i32) = (add1 (add1 (add1 x)), arith.(x * 3))
