-- Sizes bound by `let [n] p = e` are read from the value wherever the pattern's type has
-- them as a dimension: inside tuple and record patterns, through type abbreviations, in the
-- element type of an array of tuples, and when the `let` is a whole function body. Each of
-- these was an internal "unbound variable" error.
-- ==
-- entry: in_tuple
-- input { [1.0, 2.0, 3.0] }
-- output { 3i64 }
-- input { empty([0]f64) }
-- output { 0i64 }

entry in_tuple (xs: []f64) : i64 =
  let [n] ((_, b): ([n]f64, [n]f64)) = (xs, map (+ 1) xs)
  in n + i64.f64 (f64.sum b) * 0

-- ==
-- entry: abbreviation
-- input { [1.0, 2.0] }
-- output { 2i64 }

type vec [n] = [n]f64

entry abbreviation (xs: []f64) : i64 =
  let [n] (_: vec [n]) = xs
  in n

-- ==
-- entry: in_record
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { 6i64 }

entry in_record (xs: []f64) : i64 =
  let [n] ({a, b}: {a: [n]f64, b: i64}) = {a = xs, b = 2}
  in n + b + i64.f64 (f64.sum a) * 0

-- ==
-- entry: element_sizes
-- input { [1.0, 2.0] }
-- output { 23i64 }

entry element_sizes (xs: []f64) : i64 =
  let [n][m] (_: [n]([m]f64, f64)) = map (\x -> ([x, x, x], x)) xs
  in n * 10 + m

-- ==
-- entry: two_sizes
-- input { [1.0, -2.0, 3.0] }
-- output { 3i64 2i64 }

entry two_sizes (xs: []f64) : (i64, i64) =
  let [n][m] (_: [n]f64, _: [m]f64) = (xs, filter (> 0) xs)
  in (n, m)

-- ==
-- entry: filtered
-- input { [1.0, -2.0, 3.0] }
-- output { [3.0, 5.0] 2i64 }

entry filtered (xs: []f64) : ([]f64, i64) =
  let [m] (ys: [m]f64) = filter (> 0) xs
  let zs = loop (zs: [m]f64) = ys for _i < 2 do map (+ 1) zs
  in (zs, m)

-- ==
-- entry: nested
-- input { [1.0, 2.0, 3.0] }
-- output { 2i64 }
-- input { [1.0] }
-- output { 1i64 }

entry nested (xs: []f64) : i64 =
  let [n] (ys: [n]f64) = xs
  in if n > 2 then let [m] (_: [m]f64) = ys[1:] in m else n

-- ==
-- entry: captured
-- input { [1.0, 2.0, 3.0] }
-- output { 6i64 }

entry captured (xs: []f64) : i64 =
  let [n] (ys: [n]f64) = xs
  let f = \(zs: [n]f64) -> n + length zs
  in f ys

-- ==
-- entry: per_row
-- input { [[1.0, -2.0], [3.0, 4.0]] }
-- output { [1i64, 2i64] }

entry per_row (xss: [][]f64) : []i64 =
  map (\r -> let [m] (_: [m]f64) = filter (> 0) r in m) xss

module M (P: { val n: i64 }) = {
  def positives (xs: [P.n]f64) : (i64, i64) =
    let [m] (_: [m]f64) = filter (> 0) xs in (m, P.n)
}

module M3 = M { def n = 3i64 }

-- ==
-- entry: in_module
-- input { [1.0, -2.0, 3.0] }
-- output { 2i64 3i64 }

entry in_module (xs: [3]f64) : (i64, i64) = M3.positives xs
