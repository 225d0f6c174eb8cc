-- Polymorphic functions, used at several types.
def pair 'a 'b (x: a) (y: b) = (y, x)
def twice 'a (f: a -> a) (x: a) = f (f x)
def first [n] 't (xs: [n]t) = xs[0]

-- ==
-- input { 5 2.5 } output { 2.5 5 7 10.0 true }

entry main (x: i32) (y: f64) =
  let (a, b) = pair x y
  in (a, b, twice (+ 1) x, twice (* 2) (first [y, 1.0]), first [true, false])
