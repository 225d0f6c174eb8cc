-- Checks shared by the sparse test programs (no test blocks here): compressed sparse rows
-- (values, columns, offsets) against a dense matrix, written independently of the prelude's
-- sparse helpers.

def eye (n: i64) : [n][n]f64 = tabulate_2d n n (\i j -> f64.bool (i == j))

-- The dense Jacobian [m][n] of `f` at `x`, column by column with `jmp`.
def dense_jacobian [n] [m] (f: [n]f64 -> [m]f64) (x: [n]f64) : [m][n]f64 =
  transpose (jmp f x (eye n))

def dense_hessian [n] (f: [n]f64 -> f64) (x: [n]f64) : [n][n]f64 =
  dense_jacobian (\y -> vjp f y 1f64) x

-- Offsets start at 0, never decrease, end at the number of entries; columns are in range and
-- strictly ascending within each row.
def well_formed [m1] [nnz] (n: i64) (cols: [nnz]i64) (offsets: [m1]i64) : bool =
  let m = m1 - 1
  in offsets[0] == 0 && offsets[m] == nnz
  && all (\i -> offsets[i] <= offsets[i + 1]) (iota m)
  && all (\c -> 0 <= c && c < n) cols
  && all (\i -> all (\e -> cols[e - 1] < cols[e]) (offsets[i] + 1..<offsets[i + 1])) (iota m)

-- The value at (i, j), zero where there is no entry.
def value_at [m1] [nnz] (vals: [nnz]f64) (cols: [nnz]i64) (offsets: [m1]i64) (i: i64) (j: i64)
    : f64 =
  loop v = 0f64 for e in offsets[i]..<offsets[i + 1] do if cols[e] == j then vals[e] else v

def listed [m1] [nnz] (cols: [nnz]i64) (offsets: [m1]i64) (i: i64) (j: i64) : bool =
  loop found = false for e in offsets[i]..<offsets[i + 1] do found || cols[e] == j

def close (a: f64) (b: f64) : bool = f64.abs (a - b) <= 1e-10 * (1 + f64.abs b)

-- The sparse matrix is well formed, equals the dense one and lists every non-zero of it.
def matches [m] [n] [m1] [nnz] (dense: [m][n]f64) (vals: [nnz]f64) (cols: [nnz]i64)
    (offsets: [m1]i64) : bool =
  m1 == m + 1 && well_formed n cols offsets
  && and (flatten (tabulate_2d m n (\i j ->
       close (value_at vals cols offsets i j) dense[i][j]
       && (dense[i][j] == 0 || listed cols offsets i j))))

-- No two columns of one colour share a row (direct recovery is exact).
def valid_colouring [m1] [n] [nnz] (colour: [n]i64) (k: i64) (cols: [nnz]i64)
    (offsets: [m1]i64) : bool =
  let m = m1 - 1
  in all (\c -> 0 <= c && c < k) colour
  && all (\i -> all (\e -> all (\e' -> e == e' || colour[cols[e]] != colour[cols[e']])
                              (offsets[i]..<offsets[i + 1]))
                    (offsets[i]..<offsets[i + 1]))
         (iota m)

-- The pattern is symmetric.
def symmetric [n1] [nnz] (cols: [nnz]i64) (offsets: [n1]i64) : bool =
  let n = n1 - 1
  in all (\i -> all (\e -> listed cols offsets cols[e] i) (offsets[i]..<offsets[i + 1])) (iota n)

-- Everything about a sparse Jacobian of `f` at `x`.
def check_jacobian [n] [m] (f: [n]f64 -> [m]f64) (x: [n]f64) : bool =
  let (vals, cols, offsets) = sparse_jacobian f x
  let (cols', offsets', colour, k) = sparse_jacobian_pattern f x
  in matches (dense_jacobian f x) vals cols offsets
     && length cols' == length cols
     && valid_colouring colour k cols' offsets'

def check_hessian [n] (f: [n]f64 -> f64) (x: [n]f64) : bool =
  let (vals, cols, offsets) = sparse_hessian f x
  let (cols', offsets', colour, k) = sparse_hessian_pattern f x
  in matches (dense_hessian f x) vals cols offsets
     && symmetric cols offsets
     && length cols' == length cols
     && valid_colouring colour k cols' offsets'
