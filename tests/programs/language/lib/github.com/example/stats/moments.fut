-- Raw moments; imported by `stats.fut` from the same directory.

local def power 't (mul: t -> t -> t) (one: t) (k: i32) (x: t) : t =
  loop acc = one for _i < k do mul acc x

module mk_moments (R: real) = {
  def moment [n] (k: i32) (xs: [n]R.t) : R.t =
    R.(sum (map (power (*) (i32 1) k) xs) / i64 n)
}
