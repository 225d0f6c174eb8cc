-- Lambdas, sections, control flow, loops.
def grad_fwd [n] (f: [n]f64 -> f64) (w: [n]f64) =
  tabulate n \i -> jvp f w (replicate n 0 with [i] = 1)
def sections = (map (2 *) [1], map (`f64.max` 0) [1.0], map (.0) [(1, 2)], map (.f.g) [r], map (.[0]) [[1]], (f64.+), (T.* s), (-), ((i - n) ==), (x `dot`))
def horner [n] (cs: [n]f64) (x: f64) : f64 =
  loop acc = 0 for c in cs do acc * x + c
def collatz (n: i64) : i64 =
  let (_, steps) =
    loop (m, steps) = (n, 0) while m != 1 do
      (if m % 2 == 0 then m / 2 else 3 * m + 1, steps + 1)
  in steps
def iterate 'a (n: i32) (f: a -> a) (x: a) : a =
  loop x for _i < n do f x
def lam_ret = \(x: f64) (y: f64) : f64 -> x + y
def local_fun (x: i32) =
  let f [n] 'a (y: [n]a) : i64 = n
  let g y = y + x
  in g (f [x])
def if_in_op c a b = 1 + if c then a else b + 1
def nested = \x -> \y -> x y
def local_opens x = f64.(sqrt (x * x + 1))
def qualified_ops a b = a f64.+ b f64.* a
def loops (acc0: *[]f64) k =
  loop (acc: *[]f64) = acc0 for i < k do
    #[unsafe] acc with [i] = 0
