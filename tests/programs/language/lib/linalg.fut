-- A small linear-algebra library, parametric over a real number type. Imported by
-- `../modules_linalg.fut`; it has no entry points of its own.

module type linalg = {
  type t
  val dot [n] : [n]t -> [n]t -> t
  val matvec [n] [m] : [n][m]t -> [m]t -> [n]t
  val matmul [n] [m] [p] : [n][m]t -> [m][p]t -> [n][p]t
  val norm [n] : [n]t -> t
  val scale [n] : t -> [n]t -> [n]t
}

-- Used by the parametric module's body, wherever it is applied.
def pairwise 'a 'b [n] (f: a -> a -> b) (xs: [n]a) (ys: [n]a) : [n]b = map2 f xs ys

module mk_linalg (R: real) : linalg with t = R.t = {
  type t = R.t
  def dot [n] (xs: [n]t) (ys: [n]t) : t = R.sum (pairwise (R.*) xs ys)
  def matvec [n] [m] (a: [n][m]t) (x: [m]t) : [n]t = map (\row -> dot row x) a
  def matmul [n] [m] [p] (a: [n][m]t) (b: [m][p]t) : [n][p]t =
    map (\row -> map (\col -> dot row col) (transpose b)) a
  def norm [n] (xs: [n]t) : t = R.sqrt (dot xs xs)
  def scale [n] (c: t) (xs: [n]t) : [n]t = map (R.* c) xs
  -- Hidden by the ascription.
  def helper (x: t) = x
}
