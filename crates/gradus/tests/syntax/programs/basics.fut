-- Tier 1 basics: declarations, literals, application, operators.
def eps = 1e-9f64
def k = 2i64
def big = 1_000_000
def hex = 0xff_u8
def bin = 0b1010
def two = 2f32
def sq (x: f64) : f64 = x * x
def hypot3 (x: f64) (y: f64) (z: f64) =
  let xx = x * x
  let yy = y * y
  let zz = z * z
  in f64.sqrt (xx + yy + zz)
entry main [n] (xs: [n]f64) : f64 = f64.sum (map sq xs)
def f 't [n] (a: *[n]t) (_: i32) (x': t) = a with [0] = x'
def inc = \(x: i32) -> x + 1
def sq_all = map (\x -> x * x)
def take_front [n] (k: i64) (xs: [n]f64) : [k]f64 = xs[0:k]
def neg_ops (a: i32) (b: i32) (f: i32 -> i32) = (-f a, -a * b, f (-1), (- b), a - -b, !true)
def tuple_stuff (t: (i32, (f64, bool))) = (t.0, t.1.0, t.1.1,)
def units () : () = ()
def pipes xs = xs |> map (+ 1) |> reduce (+) 0
def backward f g x = f <| g <| x
def prec a b c = a / b |> f64.log
def bits (x: u32) = x & 1 == 0 || x >>= 2 && x ** 3 ** 2 > 1
