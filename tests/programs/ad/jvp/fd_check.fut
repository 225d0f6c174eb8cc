-- jvp agrees with central finite differences on random inputs, and jvp agrees with jmp.
def f [n] (v: [n]f64) : f64 =
  let w = map (\t -> f64.sin (t * 3) + f64.exp (t / 2)) v
  let s = scan (+) 0 w
  in f64.sum (map2 (*) s (reverse v)) + f64.product (map (+ 1) v) + f64.maximum v

def fd [n] (v: [n]f64) (dv: [n]f64) : f64 =
  let h = 1e-6
  in (f (map2 (\a b -> a + h * b) v dv) - f (map2 (\a b -> a - h * b) v dv)) / (2 * h)

-- ==
-- entry: check
-- random input { [10]f64 [10]f64 } output { true }
-- random input { [50]f64 [50]f64 } output { true }
-- input { [0.5, 0.25] [1.0, -1.0] } output { true }

entry check [n] (x: [n]f64) (dx: [n]f64) =
  let a = jvp f x dx
  let b = fd x dx
  in f64.abs (a - b) <= 1e-5 * f64.max 1 (f64.abs b)

-- ==
-- entry: check_jmp
-- random input { [8]f64 } output { true }

entry check_jmp [n] (x: [n]f64) =
  let eye = tabulate n (\i -> tabulate n (\j -> f64.bool (i == j)))
  let cols = jmp f x eye
  in and (map2 (\e c -> f64.abs (jvp f x e - c) <= 1e-12 * f64.max 1 (f64.abs c)) eye cols)
