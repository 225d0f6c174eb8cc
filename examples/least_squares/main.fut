-- Least squares by gradient descent, with two libraries laid out as a Futhark package's
-- dependencies under lib/ (see futhark.pkg): a linear-algebra module and an optimiser,
-- both parametric over the real number type.
--
--   gradus run examples/least_squares/main.fut -e fit < examples/least_squares/main.in

import "lib/github.com/example/linalg/linalg"
module gd = import "lib/github.com/example/optimise/gd"

module la = mk_linalg f64
module opt = gd.mk_gd f64

-- The squared residual |A w - b|^2 / n.
def loss [n] [m] (a: [n][m]f64) (b: [n]f64) (w: [m]f64) : f64 =
  la.norm2 (la.sub (la.matvec a w) b) / f64.i64 n

-- ==
-- entry: fit
-- input @ main.in
-- output { [2.0, -1.0] 0.0 }

entry fit [n] [m] (a: [n][m]f64) (b: [n]f64) : ([m]f64, f64) =
  let w = opt.minimise (loss a b) 0.1 2000 (replicate m 0)
  -- Rounded, so that the test does not depend on the last bits of the iteration.
  in (map (\x -> f64.round (x * 1e6) / 1e6) w, f64.round (loss a b w * 1e6) / 1e6)

-- The gradient of the loss, for `gradus check`.
-- ==
-- entry: loss_grad
-- input { [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]] [2.0, -1.0, 1.0] [0.0, 0.0] }
-- output { [-2.0, 0.0] }

entry loss_grad [n] [m] (a: [n][m]f64) (b: [n]f64) (w: [m]f64) = opt.grad (loss a b) w
