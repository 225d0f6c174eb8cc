-- GradBench `kmeans`: the k-means cost Σᵢ minⱼ ‖Cⱼ − Pᵢ‖² (`cost`) and the Newton direction
-- J·H⁻¹ (`dir`), J the gradient with respect to the centroids (one vjp) and H the Hessian,
-- which is diagonal: its diagonal is one Hessian-vector product in the all-ones direction
-- (jvp of the vjp), computed together with J by jvp2.

def kmeans_cost [n] [k] [d] (points: [n][d]f64) (centroids: [k][d]f64) : f64 =
  let dist p c = f64.sum (map2 (\a b -> (a - b) * (a - b)) p c)
  in f64.sum (map (\p -> f64.minimum (map (dist p) centroids)) points)

entry cost [n] [k] [d] (points: [n][d]f64) (centroids: [k][d]f64) : f64 =
  kmeans_cost points centroids

-- ==
-- entry: cost
-- input { [[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]] [[0.5, 0.0], [10.0, 11.0]] }
-- output { 3.5 }

entry dir [n] [k] [d] (points: [n][d]f64) (centroids: [k][d]f64) : [k][d]f64 =
  let (j, h) = jvp2 (\c -> vjp (kmeans_cost points) c 1) centroids (replicate k (replicate d 1))
  in map2 (map2 (/)) j h

-- ==
-- entry: dir
-- input { [[0.0, 0.0], [2.0, 0.0], [10.0, 10.0]] [[0.5, 0.0], [10.0, 11.0]] }
-- output { [[-0.5, 0.0], [0.0, 1.0]] }
