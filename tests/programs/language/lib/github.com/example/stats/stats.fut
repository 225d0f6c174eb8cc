-- A library laid out as a Futhark package: statistics over any `real` type.

import "moments"

module mk_stats (R: real) = {
  module M = mk_moments R
  def mean [n] (xs: [n]R.t) : R.t = M.moment 1 xs
  def variance [n] (xs: [n]R.t) : R.t =
    let mu = mean xs
    in R.(M.moment 2 xs - mu * mu)
}
