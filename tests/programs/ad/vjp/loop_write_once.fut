-- Loops whose array state is updated in place, each row at most once in the whole loop, and
-- read only at the rows the same iteration writes: their return sweeps read the loop's
-- initial array instead of values saved as they were overwritten. `overlapping` writes a row
-- in two iterations, so its overwritten values are saved. Expected values:
-- gen/gen_loop_write_once.py (forward-mode dual numbers).

-- Row i is replaced by a function of itself in iteration i.
entry rows [n][d] (xs: [n][d]f64) (w: [d]f64) : ([n][d]f64, [d]f64) =
  vjp (\(xs, w) ->
         let ys = loop ys = copy xs for i < n do
                    ys with [i] = map2 (\y wj -> y * y * wj + y) ys[i] w
         in f64.sum (map (\r -> f64.sum (map2 (*) r w)) ys))
      (xs, w) 1

-- Rows 2i and 2i + 1 are read and replaced together, and a value is carried from one
-- iteration to the next (the layers of a recurrent cell).
entry pairs [n] (s: [n]f64) (x: f64) : ([n]f64, f64) =
  vjp (\(s, x) ->
         let (s, c) =
           loop (s, c) = (copy s, x) for i < n / 2 do
             let a = s[2 * i]
             let b = s[2 * i + 1]
             let h = a * c + b
             let s = s with [2 * i] = h * h
             let s = s with [2 * i + 1] = h + a * b
             in (s, h)
         in c * f64.sum s)
      (s, x) 1

-- Rows 2i and 2i + 2 are written in iteration i, row 2i + 2 again in the next one.
entry overlapping [n] (s: [n]f64) : [n]f64 =
  vjp (\s ->
         let s = loop s = copy s for i < (n - 1) / 2 do
                   let a = s[2 * i]
                   let b = s[2 * i + 2]
                   let s = s with [2 * i] = a * b
                   in s with [2 * i + 2] = a + b * b * 0.5
         in f64.sum (map2 (\v k -> v * f64.i64 (k + 1)) s (iota n)))
      s 1

-- ==
-- entry: rows
-- input { [[0.5, -0.25, 0.75], [1.0, 0.5, -0.5]] [0.3, -0.6, 0.9] }
-- output { [[0.39, -0.78, 2.115], [0.48, -0.24, 0.08999999999999998]] [2.25, -0.12499999999999997, 1.7125000000000001] }
-- input { [[0.2], [0.4], [-0.3], [0.1]] [1.5] }
-- output { [[2.4000000000000004], [3.3000000000000003], [0.15000000000000013], [1.9500000000000002]] [1.3000000000000003] }

-- ==
-- entry: pairs
-- input { [0.5, -0.25, 0.75, 0.1, -0.4, 0.3] 0.7 }
-- output { [0.13820424999999995, 0.3945774999999999, 0.023477, 0.17727, 0.20275687499999998, 0.672325] 0.13978875 }
-- input { [0.9, 0.2, -0.5] -0.3 }
-- output { [0.11958999999999999, -0.5083, -0.07] -0.40077 }

-- ==
-- entry: overlapping
-- input { [0.5, -0.25, 0.75, 0.1, -0.4, 0.3, 0.6] }
-- output { [9.55, 2.0, 7.1, 4.0, -1.6562500000000002, 6.0, 8.506250000000001] }
-- input { [0.9, 0.2, -0.5, 0.4] }
-- output { [2.5, 2.0, -0.6, 4.0] }
