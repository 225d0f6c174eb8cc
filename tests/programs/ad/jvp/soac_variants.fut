-- More SOAC forms: scan with a row operator, hist with a tuple operator, hist and
-- reduce_by_index with (*) and several zeros, exscan with (*), reduce_comm on tuples.
def lin (a1: f64, b1: f64) (a2: f64, b2: f64) : (f64, f64) = (a1 * a2, b1 * a2 + b2)

-- ==
-- entry: scanrows
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { [[2.0, 4.0], [8.0, 12.0]] }

entry scanrows [n] (m: [n][2]f64) = jvp (scan (map2 (+)) [0, 0]) m (map (map (* 2)) m)

-- ==
-- entry: histtup
-- input { [0i64, 0i64, 1i64] [2.0, 3.0, 4.0] [1.0, 1.0, 1.0] } output { [5.0, 1.0] [5.0, 1.0] }

-- bin 0 is (a0 a1, b0 a1 + b1): tangents a1 + a0 and a1 + b0 + 1
entry histtup [n] (is: [n]i64) (a: [n]f64) (b: [n]f64) =
  jvp (\(p, q) -> hist lin (1, 0) 2 is (zip p q) |> unzip) (a, b) (map (const 1) a, map (const 1) b)

-- ==
-- entry: histmul
-- input { [0.0, 0.0, 3.0] [1.0, 1.0, 1.0] } output { [0.0] }
-- input { [0.0, 2.0, 0.0] [1.0, 0.0, 0.0] } output { [0.0] }
-- input { [0.0, 2.0, 5.0] [1.0, 0.0, 0.0] } output { [10.0] }
-- input { [0.0, 2.0, 5.0] [0.0, 1.0, 1.0] } output { [0.0] }

entry histmul (vs: []f64) (dvs: []f64) = jvp (hist (*) 1 1 (map (const 0) vs)) vs dvs

-- ==
-- entry: rbimul
-- input { [0.0, 0.0] [2.0, 0.0, 3.0] } output { [0.0, 3.0] }
-- input { [0.0, 1.0] [2.0, 5.0, 3.0] } output { [10.0, 4.0] }

entry rbimul (d: [2]f64) (vs: [3]f64) =
  jvp (\(p, q) -> reduce_by_index (copy p) (*) 1 [0, 0, 1] q) (d, vs) ([1, 1], [1, 1, 1])

-- ==
-- entry: exmul
-- input { [2.0, 0.0, 3.0, 4.0] } output { [0.0, 1.0, 2.0, 6.0] }

entry exmul (xs: []f64) = jvp (exscan (*) 1) xs (map (const 1) xs)

-- ==
-- entry: redcomm
-- input { [1.0, 3.0, 3.0] } output { 3.0 2.0 }

entry redcomm (xs: []f64) =
  jvp (\v -> reduce_comm (\(a, b) (c, d) -> (a + c, f64.max b d)) (0, f64.lowest) (zip v (map (* 2) v)))
      xs (map (const 1) xs)
