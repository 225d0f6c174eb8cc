-- Compound programs (SOACs inside maps and loops, in-place updates in loops, 2-D and 3-D
-- arrays) checked against central finite differences.
def close (a: f64) (b: f64) = f64.abs (a - b) <= 1e-5 * f64.max 1 (f64.abs b)

def fd [n] (f: [n]f64 -> f64) (v: [n]f64) (dv: [n]f64) : f64 =
  let h = 1e-6
  in (f (map2 (\a b -> a + h * b) v dv) - f (map2 (\a b -> a - h * b) v dv)) / (2 * h)

def check [n] (f: [n]f64 -> f64) (x: [n]f64) (dx: [n]f64) = close (jvp f x dx) (fd f x dx)

-- a scan and a reduce inside a map, over rows built from the input
def f1 [n] (v: [n]f64) : f64 =
  let rows = map (\i -> map (\j -> f64.sin (v[i] * f64.i64 (j + 1)) + v[j]) (iota n)) (iota n)
  in f64.sum (map (\r -> f64.maximum (scan (+) 0 r) + f64.product (map (\t -> 1 + t / 10) r)) rows)

-- a loop with in-place updates inside a map
def f2 [n] (v: [n]f64) : f64 =
  f64.sum (map (\x -> let a = loop a = replicate 3 x for i < 3 do a with [i] = a[(i + 2) % 3] * x + 1
                      in a[0] * a[1] - a[2]) v)

-- scatter and reduce_by_index inside a loop
def f3 [n] (v: [n]f64) : f64 =
  let is = map (\i -> (i * 7) % n) (iota n)
  let r = loop acc = copy v for _k < 3 do
            let s = scatter (copy acc) is (map (\t -> t * t / 4) acc)
            in reduce_by_index s (+) 0 (map (\i -> i % 2) (iota n)) acc
  in f64.sum (map f64.tanh r)

-- a 3-D array: unflatten, transpose rows, flatten back
def f4 (v: [24]f64) : f64 =
  let a = unflatten_3d (v :> [2 * 3 * 4]f64)
  let b = map transpose a
  let c = flatten_3d b
  in f64.sum (map2 (\x y -> x * f64.exp (-y)) c (reverse v))

-- the same with the 3-D array built by hand
def f4b (v: [24]f64) : f64 =
  let a = unflatten (v :> [2 * 12]f64) |> map (\r -> unflatten (r :> [3 * 4]f64))
  let b = map transpose a
  let c = flatten_3d b
  in f64.sum (map2 (\x y -> x * f64.exp (-y)) c (reverse v))

-- while loop whose count depends on the data
def f5 [n] (v: [n]f64) : f64 =
  let (s, _) = loop (s, i) = (0, 0) while i < n && s < 10 do (s + v[i] * v[i] + 1, i + 1)
  in s * f64.cos s

-- ==
-- entry: c1 c2 c3 c5
-- random input { [6]f64 [6]f64 } output { true }
-- random input { [13]f64 [13]f64 } output { true }
-- input { [0.5, -1.0, 2.0] [1.0, 0.0, 0.5] } output { true }

entry c1 [n] (x: [n]f64) (dx: [n]f64) = check f1 x dx
entry c2 [n] (x: [n]f64) (dx: [n]f64) = check f2 x dx
entry c3 [n] (x: [n]f64) (dx: [n]f64) = check f3 x dx
entry c5 [n] (x: [n]f64) (dx: [n]f64) = check f5 x dx

-- ==
-- entry: c4 c4b
-- random input { [24]f64 [24]f64 } output { true }

entry c4 (x: [24]f64) (dx: [24]f64) = check f4 x dx
entry c4b (x: [24]f64) (dx: [24]f64) = check f4b x dx
