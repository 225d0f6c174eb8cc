-- Arrays of sums (`[]opt f64`), sums as loop parameters and `map` results, indexing and
-- updating arrays of sums, and `==` / `!=` on sums.
type opt 'a = #none | #some a

def sum_some (xs: []opt f64) : f64 =
  loop acc = 0 for o in xs do
    match o
    case #some v -> acc + v
    case #none -> acc

-- The first index whose element satisfies the predicate, as an option.
def find_first [n] (p: f64 -> bool) (xs: [n]f64) : opt i64 =
  loop r = #none for i < n do
    match r
    case #none -> if p xs[i] then #some i else #none
    case #some _ -> r

-- ==
-- entry: sums
-- input { [1.0, -2.0, 3.0, -4.0] } output { 4.0 2i64 }

entry sums (xs: []f64) =
  let os = map (\x -> if x > 0 then #some x else #none) xs
  let n_none = i64.sum (map (\o -> if o == #none then 1 else 0) os)
  in (sum_some os, n_none)

-- ==
-- entry: first
-- input { [1.0, -2.0, 3.0] } output { 1i64 }
-- input { [1.0, 2.0] } output { -1i64 }

entry first (xs: []f64) =
  match find_first (< 0) xs
  case #some i -> i
  case #none -> -1

-- ==
-- entry: updates
-- input { 2.5 } output { 2.5 0.0 7.0 }

entry updates (x: f64) =
  let os : [3]opt f64 = [#none, #none, #some 7]
  let os = os with [0] = #some x
  let get o = match o case #some v -> v case #none -> 0
  in (get os[0], get os[1], get os[2])

-- ==
-- entry: equality
-- input { 1 2 } output { false true true false true }
-- input { 2 2 } output { true true true false false }

entry equality (a: i32) (b: i32) =
  let x : opt i32 = #some a
  let y : opt i32 = #some b
  let z : opt i32 = #none
  in (x == y, z == #none, x != z, x == z, (x, 1) != (y, 1))

-- ==
-- entry: payload_arrays
-- input { [1.0, 2.0, 3.0] true } output { 6.0 }
-- input { [1.0, 2.0, 3.0] false } output { -1.0 }

entry payload_arrays [n] (xs: [n]f64) (keep: bool) =
  let o : #arr ([n]f64) | #nothing = if keep then #arr xs else #nothing
  let o2 : #arr ([n]f64) | #nothing = #nothing
  in match o
     case #arr ys -> if o == o2 then -2 else f64.sum ys
     case #nothing -> if o == o2 then -1 else -3
