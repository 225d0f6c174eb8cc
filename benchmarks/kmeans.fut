-- k-means clustering cost (benchmarks/README.md §k-means): the sum over points of the squared
-- distance to the nearest centre, its gradient with respect to the centres by one vjp, and the
-- Hessian diagonal by one jvp of that vjp (the Hessian is diagonal, so one Hessian-vector
-- product with the all-ones direction is its diagonal). Forward-only variants for comparison.
--
-- Inputs: points [n][d] (constant), centres [k][d].

def cost [n] [k] [d] (points: [n][d]f64) (centres: [k][d]f64) : f64 =
  let dist p c = f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)
  in f64.sum (map (\p -> f64.minimum (map (dist p) centres)) points)

-- ==
-- entry: objective
-- input @ data/kmeans_3_10_2.in
-- output { 5.173619701e-01 }
-- input @ data/kmeans_5_1000_4.in
-- output { 2.559754930e+02 }

entry objective [n] [k] [d] (points: [n][d]f64) (centres: [k][d]f64) : f64 =
  cost points centres

-- ==
-- entry: gradient gradient_fwd
-- input @ data/kmeans_3_10_2.in
-- output { [[-1.266405758e-01, 7.412702715e-01],
--           [1.873081336e-01, -1.574159256e-01],
--           [3.764106831e-01, 7.183744072e-01]] }

entry gradient [n] [k] [d] (points: [n][d]f64) (centres: [k][d]f64) : [k][d]f64 =
  vjp (cost points) centres 1

-- One jvp per centre coordinate.
entry gradient_fwd [n] [k] [d] (points: [n][d]f64) (centres: [k][d]f64) : [k][d]f64 =
  let zero = replicate k (replicate d 0f64)
  in tabulate_2d k d (\i j -> jvp (cost points) centres (copy zero with [i, j] = 1))

-- ==
-- entry: hessian_diagonal hessian_diagonal_fwd
-- input @ data/kmeans_3_10_2.in
-- output { [[8.0, 8.0], [4.0, 4.0], [8.0, 8.0]] }
-- input @ data/kmeans_5_1000_4.in
-- output { [[184.0, 184.0, 184.0, 184.0], [212.0, 212.0, 212.0, 212.0],
--           [452.0, 452.0, 452.0, 452.0], [840.0, 840.0, 840.0, 840.0],
--           [312.0, 312.0, 312.0, 312.0]] }

-- Forward over reverse: one Hessian-vector product in the all-ones direction.
entry hessian_diagonal [n] [k] [d] (points: [n][d]f64) (centres: [k][d]f64) : [k][d]f64 =
  jvp (\c -> vjp (cost points) c 1) centres (replicate k (replicate d 1))

-- Forward over forward: one second directional derivative per coordinate.
entry hessian_diagonal_fwd [n] [k] [d] (points: [n][d]f64) (centres: [k][d]f64) : [k][d]f64 =
  let zero = replicate k (replicate d 0f64)
  in tabulate_2d k d (\i j ->
       let e = copy zero with [i, j] = 1
       in jvp (\c -> jvp (cost points) c e) centres e)
