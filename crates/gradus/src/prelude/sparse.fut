
-- Sparse Jacobians and Hessians (docs/sparse.md): the pattern by forward mode with NaN seeds,
-- a greedy distance-2 column colouring, compressed products by `jmp`, and compressed sparse
-- rows. Ordinary code: every backend runs it as it runs user code. The helpers live in the
-- module `sparse`; the operators follow it.
module sparse = {
  -- Compressed sparse rows of a dense boolean table: the column of every true entry, row by
  -- row, columns ascending, and the row offsets.
  def csr [m] [n] (p: [m][n]bool) : ([]i64, [m + 1]i64) =
    let counts = map (\r -> reduce (+) 0i64 (map (\b -> if b then 1i64 else 0i64) r)) p
    let offsets = sized (m + 1) (concat [0i64] (scan (+) 0i64 counts))
    let flat = flatten p
    let pos = scan (+) 0i64 (map (\b -> if b then 1i64 else 0i64) flat)
    let (is, vs) = unzip (map3 (\b q t -> (if b then q - 1 else -1, t % n)) flat pos (indices flat))
    let cols = scatter (replicate offsets[m] 0i64) is vs
    in (cols, offsets)

  -- The row of every entry of compressed sparse rows with these offsets.
  def rows [m1] [nnz] (offsets: [m1]i64) : [nnz]i64 =
    let m = m1 - 1
    let starts = map (\i -> if offsets[i] < offsets[i + 1] then offsets[i] else -1) (iota m)
    in scan i64.max 0i64 (scatter (replicate nnz 0i64) starts (iota m))

  -- The pattern of the Jacobian of `f` at `x`, by columns: entry [j][i] is true when output i's
  -- tangent is not zero for a tangent that is NaN at input j and zero elsewhere. NaN survives
  -- multiplication by a partial derivative that is zero at `x`, so an entry is missed only
  -- where the derivative code does not read input j's tangent at all on the path taken at `x`.
  def pattern_by_columns [n] [m] (f: [n]f64 -> [m]f64) (x: [n]f64) : [n][m]bool =
    map (\j -> map (\t -> !(t == 0f64))
                   (jvp f x (tabulate n (\k -> if k == j then f64.nan else 0f64))))
        (iota n)

  -- Greedy distance-2 column colouring in the order `ord`: each column takes the smallest
  -- colour that no column sharing a row with it has. `rows_t`, `offsets_t` are the pattern by
  -- columns.
  def greedy [n] [m1] [n1] [nnz] (ord: [n]i64) (cols: [nnz]i64) (offsets: [m1]i64)
      (rows_t: [nnz]i64) (offsets_t: [n1]i64) : [n]i64 =
    let (colour, _) =
      loop (colour, mark) = (replicate n (-1i64), replicate (n + 1) (-1i64)) for t < n do
        let j = ord[t]
        let mark =
          loop mark for q < offsets_t[j + 1] - offsets_t[j] do
            let r = rows_t[offsets_t[j] + q]
            in loop mark for s < offsets[r + 1] - offsets[r] do
                 let c = colour[cols[offsets[r] + s]]
                 in if c >= 0 then mark with [c] = j else mark
        let c = loop c = 0i64 while mark[c] == j do c + 1
        in (colour with [j] = c, mark)
    in colour

  -- Columns by decreasing `deg` (a stable counting sort): the largest-first order.
  def largest_first [n] (deg: [n]i64) : [n]i64 =
    let maxd = reduce i64.max 0i64 deg
    let counts = hist (+) 0i64 (maxd + 1) (map (\d -> maxd - d) deg) (replicate n 1i64)
    let starts = copy (exscan (+) 0i64 counts)
    let (ord, _) =
      loop (ord, next) = (replicate n 0i64, starts) for j < n do
        let b = maxd - deg[j]
        in (ord with [next[b]] = j, next with [b] = next[b] + 1)
    in ord

  -- The smallest-last order: repeatedly the remaining column of smallest degree goes last and
  -- is removed. Degrees count shared rows with multiplicity; n steps of an O(n) search.
  def smallest_last [n] [m1] [n1] [nnz] (deg: [n]i64) (cols: [nnz]i64) (offsets: [m1]i64)
      (rows_t: [nnz]i64) (offsets_t: [n1]i64) : [n]i64 =
    let pick (da, a) (db, b) = if db < da || (db == da && b < a) then (db, b) else (da, a)
    let (ord, _, _) =
      loop (ord, d, gone) = (replicate n 0i64, copy deg, replicate n false) for t < n do
        let (_, v) =
          reduce pick (i64.highest, n)
                 (map2 (\dj j -> if gone[j] then (i64.highest, n) else (dj, j)) d (iota n))
        let d =
          loop d for q < offsets_t[v + 1] - offsets_t[v] do
            let r = rows_t[offsets_t[v] + q]
            in loop d for s < offsets[r + 1] - offsets[r] do
                 let u = cols[offsets[r] + s]
                 in d with [u] = d[u] - 1
        in (ord with [n - 1 - t] = v, d, gone with [v] = true)
    in ord

  def count [n] (colour: [n]i64) : i64 = if n == 0 then 0 else 1 + reduce i64.max 0i64 colour

  -- A distance-2 column colouring of the pattern (rows `cols`, `offsets`; columns `rows_t`,
  -- `offsets_t`) and its number of colours: the fewest of the natural, largest-first and
  -- smallest-last greedy orders (ties to smallest-last).
  def colouring [m1] [n1] [nnz] (cols: [nnz]i64) (offsets: [m1]i64) (rows_t: [nnz]i64)
      (offsets_t: [n1]i64) : ([]i64, i64) =
    let n = n1 - 1
    let shared q = let r = rows_t[q] in offsets[r + 1] - offsets[r]
    let deg =
      map (\j -> reduce (+) 0i64 (map shared (offsets_t[j]..<offsets_t[j + 1]))) (iota n)
    let natural = greedy (iota n) cols offsets rows_t offsets_t
    let lf = greedy (largest_first deg) cols offsets rows_t offsets_t
    let sl = greedy (smallest_last deg cols offsets rows_t offsets_t) cols offsets rows_t offsets_t
    let (kn, kl, ks) = (count natural, count lf, count sl)
    in if ks <= kn && ks <= kl then (sl, ks) else if kl < kn then (lf, kl) else (natural, kn)

  -- The values of the Jacobian of `f` at `x` at the entries of a pattern, from one `vjp` per
  -- colour of a distance-2 colouring of its rows: the entry (i, j) is element j of the
  -- product with the cotangent of row i's colour.
  def values_by_rows [n] [m] [m1] [nnz] (f: [n]f64 -> [m]f64) (x: [n]f64) (cols: [nnz]i64)
      (offsets: [m1]i64) (colour: [m]i64) (k: i64) : [nnz]f64 =
    let seeds = tabulate k (\c -> map (\ci -> if ci == c then 1f64 else 0f64) colour)
    let compressed = mjp f x seeds
    in map2 (\i j -> compressed[colour[i], j]) (rows offsets : [nnz]i64) cols
}

-- The pattern of the Jacobian of `f` at `x` as compressed sparse rows (columns, offsets), with
-- a distance-2 column colouring and its number of colours.
def sparse_jacobian_pattern [n] [m] (f: [n]f64 -> [m]f64) (x: [n]f64)
    : ([]i64, [m + 1]i64, [n]i64, i64) =
  let p = sparse.pattern_by_columns f x
  let (cols, offsets) = sparse.csr (transpose p)
  let (rows_t, offsets_t) = sparse.csr p
  let (colour, k) = sparse.colouring cols offsets rows_t offsets_t
  in (cols, offsets, sized n colour, k)

-- The values of the Jacobian of `f` at `x` at the entries of a pattern, from one `jvp` per
-- colour: the entry (i, j) is output i of the product with the seed of column j's colour.
def sparse_jacobian_with [n] [m] [nnz] (f: [n]f64 -> [m]f64) (x: [n]f64) (cols: [nnz]i64)
    (offsets: [m + 1]i64) (colour: [n]i64) (k: i64) : [nnz]f64 =
  let seeds = tabulate k (\c -> map (\cj -> if cj == c then 1f64 else 0f64) colour)
  let compressed = jmp f x seeds
  let rows = sparse.rows offsets : [nnz]i64
  in map2 (\i j -> compressed[colour[j], i]) rows cols

-- The Jacobian: by columns (`jvp`s) or, where a colouring of the rows needs fewer colours
-- (a few dense rows), by rows (`vjp`s).
def sparse_jacobian [n] [m] (f: [n]f64 -> [m]f64) (x: [n]f64) : ([]f64, []i64, [m + 1]i64) =
  let p = sparse.pattern_by_columns f x
  let (cols, offsets) = sparse.csr (transpose p)
  let (rows_t, offsets_t) = sparse.csr p
  let (colour, k) = sparse.colouring cols offsets rows_t offsets_t
  let (row_colour, k_rows) = sparse.colouring rows_t offsets_t cols offsets
  -- One colour per row, as an [m] array (by the rows of `p`'s transpose).
  let row_colour = map (\i -> row_colour[i]) (indices (transpose p))
  let values =
    if k_rows < k
    then sparse.values_by_rows f x cols offsets row_colour k_rows
    else sparse_jacobian_with f x cols offsets (sized n colour) k
  in (values, cols, offsets)

-- The pattern of the Hessian of `f` at `x`: that of the Jacobian of its gradient, made
-- symmetric, with a distance-2 colouring of its columns (direct recovery, docs/sparse.md).
def sparse_hessian_pattern [n] (f: [n]f64 -> f64) (x: [n]f64)
    : ([]i64, [n + 1]i64, [n]i64, i64) =
  let p = sparse.pattern_by_columns (\y -> vjp f y 1f64) x
  let (cols, offsets) = sparse.csr (map2 (map2 (||)) p (transpose p))
  let (colour, k) = sparse.colouring cols offsets cols offsets
  in (cols, offsets, sized n colour, k)

def sparse_hessian_with [n] [nnz] (f: [n]f64 -> f64) (x: [n]f64) (cols: [nnz]i64)
    (offsets: [n + 1]i64) (colour: [n]i64) (k: i64) : [nnz]f64 =
  sparse_jacobian_with (\y -> vjp f y 1f64) x cols offsets colour k

def sparse_hessian [n] (f: [n]f64 -> f64) (x: [n]f64) : ([]f64, []i64, [n + 1]i64) =
  let (cols, offsets, colour, k) = sparse_hessian_pattern f x
  in (sparse_hessian_with f x cols offsets colour k, cols, offsets)
