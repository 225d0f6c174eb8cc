-- A jmp whose function reads three rows of a matrix built from the input. The optimiser
-- unrolls the map over the three rows, after which the one-hot seeds are read by three maps;
-- fusion once moved the seeds into the first of them and left the others reading an array
-- no longer bound. Expected values: d/dv_j of sum_ij (log(u_i v_j) + a_ij / (u_i v_j)) is
-- sum_i (1/v_j - a_ij / (u_i v_j^2)).

-- ==
-- entry: grad
-- input { [1.0, 2.0, 0.5] [0.3, 1.5, 0.8] }
-- output { [-0.6323676323676324, 0.12137862137862132, -11.666333666333665] }

def nnmf [n] (a: [3][n]f64) (u: [3]f64) (v: [n]f64) : f64 =
  f64.sum (map2 (\ai ui -> f64.sum (map2 (\aij vj -> let x = ui * vj in f64.log x + aij / x) ai v)) a u)

entry grad [n] (v: [n]f64) (y: [n]f64) : [n]f64 =
  let a = [map (\t -> t + 0.5) y, map (\t -> t + 1.0) y, map (\t -> 2.0 - t) y]
  let u = [0.7, 1.1, 1.3]
  in jmp (\v -> nnmf a u v) v (tabulate n (\j -> tabulate n (\i -> f64.bool (i == j))))
