-- Gradient descent with a fixed step, over any real number type; the gradient comes from
-- reverse-mode AD.

module mk_gd (R: real) = {
  type t = R.t

  def grad [n] (f: [n]t -> t) (x: [n]t) : [n]t = vjp f x (R.i32 1)

  def step [n] (f: [n]t -> t) (rate: t) (x: [n]t) : [n]t =
    map2 (\xi gi -> R.(xi - rate * gi)) x (grad f x)

  def minimise [n] (f: [n]t -> t) (rate: t) (steps: i64) (x0: [n]t) : [n]t =
    loop x = copy x0 for _i < steps do step f rate x
}
