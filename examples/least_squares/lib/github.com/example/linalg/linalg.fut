-- Vector and matrix operations over any real number type.

module type linalg = {
  type t
  val dot [n] : [n]t -> [n]t -> t
  val matvec [n] [m] : [n][m]t -> [m]t -> [n]t
  val sub [n] : [n]t -> [n]t -> [n]t
  val norm2 [n] : [n]t -> t
}

module mk_linalg (R: real) : linalg with t = R.t = {
  type t = R.t
  def dot [n] (xs: [n]t) (ys: [n]t) : t = R.sum (map2 (R.*) xs ys)
  def matvec [n] [m] (a: [n][m]t) (x: [m]t) : [n]t = map (\row -> dot row x) a
  def sub [n] (xs: [n]t) (ys: [n]t) : [n]t = map2 (R.-) xs ys
  def norm2 [n] (xs: [n]t) : t = dot xs xs
}
