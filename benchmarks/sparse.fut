-- Sparse Jacobian of a 2-D 5-point stencil residual (a nonlinear Poisson problem, zero
-- boundary) on a k-by-k grid, n = k * k unknowns, against the objective and the dense
-- Jacobian by forward mode. The point is made from n, so the inputs are just the sizes.

def residual [n] (x: [n]f64) : [n]f64 =
  let k = i64.f64 (f64.sqrt (f64.i64 n))
  in tabulate n (\q ->
       let (i, j) = (q / k, q % k)
       let at a b = if a >= 0 && a < k && b >= 0 && b < k then x[a * k + b] else 0
       in 4 * x[q] - at (i - 1) j - at (i + 1) j - at i (j - 1) - at i (j + 1)
          + f64.exp x[q])

def point (n: i64) (s: f64) : [n]f64 = tabulate n (\q -> f64.sin (f64.i64 q + s))

-- ==
-- entry: objective pattern sparse colours values_given
-- no_interpreter input { 2500i64 }
-- no_interpreter input { 10000i64 }

entry objective (n: i64) : [n]f64 = residual (point n 0)

-- The pattern and the colouring only.
entry pattern (n: i64) : ([]i64, []i64, [n]i64, i64) = sparse_jacobian_pattern residual (point n 0)

-- Pattern, colouring and values: `sparse_jacobian`.
entry sparse (n: i64) : ([]f64, []i64, []i64) = sparse_jacobian residual (point n 0)

entry colours (n: i64) : i64 = (sparse_jacobian_pattern residual (point n 0)).3

-- The pattern once, then the values at 10 points, as a Newton iteration would: the time per
-- evaluation is (this - pattern) / 10.
-- ==
-- entry: values10
-- no_interpreter input { 2500i64 }
-- no_interpreter input { 10000i64 }
entry values10 (n: i64) : [][]f64 =
  let (cols, offsets, colour, k) = sparse_jacobian_pattern residual (point n 0)
  in tabulate 10 (\s -> sparse_jacobian_with residual (point n (f64.i64 s)) cols offsets colour k)

-- The pattern and a 5-colouring given by hand, as `sparsejac` takes them: row q = (i, j)
-- reads q - k, q - 1, q, q + 1, q + k where they exist; colour (i + 2j) mod 5 differs between
-- any two columns within Manhattan distance 2, the columns that share a row.
def stencil_pattern (n: i64) : ([]i64, []i64, [n]i64) =
  let k = i64.f64 (f64.sqrt (f64.i64 n))
  let cand q =
    let (i, j) = (q / k, q % k)
    in [if i > 0 then q - k else -1, if j > 0 then q - 1 else -1, q,
        if j < k - 1 then q + 1 else -1, if i < k - 1 then q + k else -1]
  let counts = map (\q -> i64.sum (map (\c -> i64.bool (c >= 0)) (cand q))) (iota n)
  let offsets = concat [0i64] (scan (+) 0i64 counts)
  in (filter (>= 0) (flatten (map cand (iota n))), offsets,
      map (\q -> (q / k + 2 * (q % k)) % 5) (iota n))

-- The values with that pattern: what one evaluation costs once the pattern is known.
entry values_given (n: i64) : []f64 =
  let (cols, offsets, colour) = stencil_pattern n
  in sparse_jacobian_with residual (point n 0) cols (sized (n + 1) offsets) colour 5

-- ==
-- entry: given_agrees
-- input { 16i64 } output { true }
-- input { 400i64 } output { true }
entry given_agrees (n: i64) : bool =
  let (vals, cols, offsets) = sparse_jacobian residual (point n 0)
  let (cols', offsets', _) = stencil_pattern n
  let vals' = values_given n
  in length cols == length cols' && and (map2 (==) cols (sized (length cols) cols'))
     && and (map2 (==) offsets offsets')
     && and (map2 (\a b -> f64.abs (a - b) <= 1e-12 * (1 + f64.abs b)) vals (sized (length vals) vals'))

-- The dense Jacobian by forward mode, one jvp per column.
-- ==
-- entry: dense
-- no_interpreter input { 2500i64 }
-- no_interpreter input { 10000i64 }
entry dense (n: i64) : [n][n]f64 =
  let x = point n 0
  in transpose (jmp residual x (tabulate n (\j -> tabulate n (\i -> f64.bool (i == j)))))
