-- Reverse mode of loops whose arrays change size: growing by concatenation (also a
-- two-dimensional array, a for-in loop, zero iterations, with in-place updates), halving and
-- filtering in while loops, appending one element per iteration (with a free variable), and
-- keeping the elements that pass a test (a size known only at run time); second derivatives
-- (jvp of vjp, vjp of vjp) through them. Expected values: gen/loop_resize.py (dual numbers,
-- not gradus).

def grow (t: f64) = f64.sum (loop v = [t] for _i < 3 do v ++ map (\x -> x * x + t) v)

def halve [n] (xs: [n]f64) =
  let v = loop v = xs while length v > 1 do
            let h = length v / 2
            in map2 (\a b -> a * b + 0.5) (take h v) (take h (drop h v))
  in v[0]

-- ==
-- entry: d_grow
-- input { 0.75 } output { 69.58642578125 261.412109375 261.412109375 261.412109375 }
entry d_grow (t: f64) =
  (vjp grow t 1, jvp (\s -> vjp grow s 1) t 1, vjp (\s -> vjp grow s 1) t 1,
   vjp (\s -> jvp grow s 1) t 1)

-- ==
-- entry: d_halve
-- input { [1.5, 0.5, -1.0, 2.0, 0.25, 1.25, 0.75, -0.5] }
-- output { [0.00390625, -0.17578125, -0.041015625, -0.158203125, 0.0234375, -0.0703125,
--           0.0546875, 0.6328125] }
entry d_halve [n] (xs: [n]f64) = vjp halve xs 1

-- ==
-- entry: hvp_halve
-- input { [1.5, 0.5, -1.0, 2.0, 0.25, 1.25, 0.75, -0.5] [1.0, -1.0, 0.5, 0.25, 2.0, 1.0, -0.5, 1.5] }
-- output { [-0.2080078125, 0.8994140625, 2.24365234375, 0.6064453125, -1.419921875,
--           0.556640625, -2.982421875, -0.4482421875]
--          [-0.2080078125, 0.8994140625, 2.24365234375, 0.6064453125, -1.419921875,
--           0.556640625, -2.982421875, -0.4482421875] }
entry hvp_halve [n] (xs: [n]f64) (dx: [n]f64) =
  (jvp (\v -> vjp halve v 1) xs dx, vjp (\v -> vjp halve v 1) xs dx)

-- ==
-- entry: d_append
-- input { 0.5 1.5 } output { 5.603879903072086 5.311197390239023 }
entry d_append (x0: f64) (w: f64) =
  vjp (\(x0, w) -> f64.sum (loop acc = [x0] for _i < 4 do acc ++ [f64.sin (last acc) * w]))
      (x0, w) 1

-- ==
-- entry: d_keep
-- input { [0.9, 0.5, 1.2, 0.3, 1.1, -0.95] }
-- output { [2.916, 0.0, 6.912, 0.0, 5.324, -3.4295] }
entry d_keep [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (loop v = xs for _i < 2 do filter (> 0.5) (map (\x -> x * x) v))) xs 1

def keep [n] (xs: [n]f64) =
  f64.sum (loop v = xs for _i < 2 do filter (> 0.5) (map (\x -> x * x) v))

-- ==
-- entry: hvp_keep
-- input { [0.9, 0.5, 1.2, 0.3, 1.1, -0.95] [1.0, -0.5, 0.25, 2.0, -1.0, 0.5] }
-- output { [9.72, 0.0, 4.32, 0.0, -14.52, 5.415] [9.72, 0.0, 4.32, 0.0, -14.52, 5.415] }
entry hvp_keep [n] (xs: [n]f64) (dx: [n]f64) =
  (jvp (\v -> vjp keep v 1) xs dx, vjp (\v -> vjp keep v 1) xs dx)

-- The number of iterations is an input; with 0 the body never runs.
-- ==
-- entry: d_append_n
-- input { 0.5 1.5 0i64 } output { 1.0 0.0 }
-- input { 0.5 1.5 3i64 } output { 5.02821631868284 3.504532000722596 }
entry d_append_n (x0: f64) (w: f64) (n: i64) =
  vjp (\(x0, w) -> f64.sum (loop acc = [x0] for _i < n do acc ++ [f64.sin (last acc) * w]))
      (x0, w) 1

-- A while loop that never runs.
-- ==
-- entry: d_halve
-- input { [2.5] } output { [1.0] }

-- Rows of a two-dimensional array: each iteration appends a row computed from the last.
-- ==
-- entry: d_rows
-- input { 0.75 1.25 } output { 59.47265625 52.81640625 }
entry d_rows (a: f64) (b: f64) =
  vjp (\(a, b) ->
         let m = loop m = [[a, b]] for _i < 3 do
                   let r = last m in m ++ [[r[0] * r[1], r[0] + b]]
         in f64.sum (map (\r -> r[0] * r[1]) m))
      (a, b) 1

-- A for-in loop appending the running product.
-- ==
-- entry: d_forin
-- input { [0.5, 1.5, -2.0] } output { [-0.5, -0.5, 0.75] }
entry d_forin [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (loop acc = [1.0] for x in xs do acc ++ [last acc * x])) xs 1

-- A while loop that filters until at most two elements are left.
-- ==
-- entry: d_wfilter
-- input { [0.9, 0.5, 1.2, 0.3, 1.1] } output { [0.0, 0.0, 0.59049, 0.0, 0.59049] }
entry d_wfilter [n] (xs: [n]f64) =
  vjp (\xs -> f64.sum (loop v = xs while length v > 2 do
                         filter (> 0.6) (map (\x -> x * 0.9 + 0.01) v)))
      xs 1

-- An in-place update of the growing array, and a growing array carried with one of fixed size
-- updated in place.
-- ==
-- entry: d_inplace
-- input { 0.5 1.5 } output { 6.375 9.375 }
entry d_inplace (x0: f64) (w: f64) =
  vjp (\(x0, w) ->
         f64.sum (loop acc = [x0] for i < 3 do (copy acc with [0] = acc[0] * w) ++ [acc[i] + w]))
      (x0, w) 1

-- ==
-- entry: d_two
-- input { 0.5 1.5 } output { 14.125 5.4375 }
entry d_two (x0: f64) (w: f64) =
  vjp (\(x0, w) ->
         let (acc, ys) = loop (acc, ys) = ([x0], replicate 3 0.25) for i < 3 do
                           (acc ++ [ys[i] + last acc], ys with [i] = last acc * w)
         in f64.sum acc + f64.sum (map (\y -> y * y) ys))
      (x0, w) 1

-- `#[stripmine(2)]` is a hint that a loop whose arrays change size does not take.
-- ==
-- entry: d_stripmined
-- input { 0.5 1.5 3i64 } output { 5.02821631868284 3.504532000722596 }
entry d_stripmined (x0: f64) (w: f64) (n: i64) =
  vjp (\(x0, w) ->
         f64.sum (#[stripmine(2)] loop acc = [x0] for _i < n do acc ++ [f64.sin (last acc) * w]))
      (x0, w) 1
