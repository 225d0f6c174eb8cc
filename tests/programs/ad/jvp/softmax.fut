-- A small numerical program: log-sum-exp and softmax.
def lse [n] (x: [n]f64) = let m = f64.maximum x in m + f64.log (f64.sum (map (\e -> f64.exp (e - m)) x))
def softmax [n] (x: [n]f64) = let s = f64.sum (map f64.exp x) in map (\e -> f64.exp e / s) x

-- ==
-- entry: lse_fwd
-- input { [1.0, 2.0, 0.5] [1.0, 0.0, -1.0] } output { 2.4643687841079447 0.09097951445606056 }

entry lse_fwd [n] (x: [n]f64) (dx: [n]f64) = jvp2 lse x dx

-- ==
-- entry: softmax_fwd
-- input { [1.0, 2.0, 0.5] [1.0, 0.0, -1.0] }
-- output { [0.2101872596858481, -0.057183510634119146, -0.15300374905172895] }

entry softmax_fwd [n] (x: [n]f64) (dx: [n]f64) = jvp softmax x dx

-- ==
-- entry: shift_invariant
-- input { [1.0, 2.0, 0.5] } output { 1.0 [0.0, 0.0, 0.0] }

-- moving every input by the same amount moves lse by that amount and leaves softmax unchanged
entry shift_invariant [n] (x: [n]f64) = (jvp lse x (replicate n 1), jvp softmax x (replicate n 1))
