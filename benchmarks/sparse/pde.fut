-- A 2-D nonlinear Poisson (Bratu) problem on a k-by-k grid with zero boundary, n = k * k
-- unknowns: the residual of its 5-point discretisation (sparse Jacobian) and the energy it is
-- the gradient of, up to the boundary terms (sparse Hessian). Used by `sparse-time`
-- (benchmarks/README.md §Sparse Jacobians and Hessians); k is read from n.

def side (n: i64) : i64 = i64.f64 (f64.sqrt (f64.i64 n))

-- The value at grid point (a, b), zero outside the grid.
def at [n] (k: i64) (u: [n]f64) (a: i64) (b: i64) : f64 =
  if a >= 0 && a < k && b >= 0 && b < k then u[a * k + b] else 0

entry residual [n] (u: [n]f64) : [n]f64 =
  let k = side n
  in tabulate n (\q ->
       let (i, j) = (q / k, q % k)
       in 4 * u[q] - at k u (i - 1) j - at k u (i + 1) j - at k u i (j - 1) - at k u i (j + 1)
          - 0.5 * f64.exp u[q])

-- Half the squared differences across the grid's edges (right and down neighbours), a
-- quartic term per edge so that the Hessian depends on the point, and the exponential.
entry energy [n] (u: [n]f64) : f64 =
  let k = side n
  let edge (q: i64) (a: i64) (b: i64) =
    let d = u[q] - at k u a b
    in 0.5 * d * d + 0.25 * d * d * d * d
  in f64.sum (tabulate n (\q ->
       let (i, j) = (q / k, q % k)
       in edge q (i + 1) j + edge q i (j + 1) - 0.5 * f64.exp u[q]))

-- The dense Jacobian by forward mode: one Jacobian-vector product per unknown.
entry dense_forward [n] (u: [n]f64) : [n][n]f64 =
  jmp residual u (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j))))
