-- Indexing, slicing, updates, whitespace-sensitive brackets, ranges.
def idx (m: [][]f64) i j = (m[i][j], m[i, j], m[:, j], m[1:, :3], m[i + 1:, j], (m[i])[0])
def slices (a: []i64) = (a[::-1], a[1:5:2], a[:], a[2:], a[:3], a[i64.i32 0: i64.i32 2])
def apply_vs_index f a i = (f a[i], f a [i], f[1], f [1, 2,])
def updates (a: *[]f64) (i: i64) (x: f64) =
  let a[i] = x
  let a[i:i+2] = [x, x]
  in a with [0] = 1 with [1] = 2
def with_prec f x xs i v = (f x with [i] = v, xs with [i] = x + 1 |> f)
def ranges n = (0..<n, 1...4, 0..2..<7, 5..3...0, 4..>1, 10..8..>0)
def running_max [n] (xs: [n]f32) : [n]f32 =
  loop ys = copy xs for i < n - 1 do
    ys with [i + 1] = f32.max ys[i] ys[i + 1]
def sizes [n] [m] (xs: [n * m]f64) : [n][m]f64 = unflatten xs :> [n][m]f64
def ascribe (x: i64) = (x : i64, [1, 2] : [2]i32)
