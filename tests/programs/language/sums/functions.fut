-- Sums through modules, polymorphic local functions, `reduce`, `scan` and tuples of sums.
module shapes = {
  type t = #disc f64 | #empty
  def mk (r: f64) : t = if r > 0 then #disc r else #empty
  def radius (s: t) = match s case #disc r -> r case #empty -> -1
}

type tree = #leaf f64 | #node (f64, f64)

-- ==
-- entry: modules
-- input { 2.0 } output { 2.0 }
-- input { -2.0 } output { -1.0 }

entry modules (r: f64) = shapes.radius (shapes.mk r)

-- ==
-- entry: local_polymorphic
-- input { 3.0 } output { 3.0 5 }
-- input { -3.0 } output { 0.0 0 }

entry local_polymorphic (x: f64) =
  let get 'a (d: a) (o: #none | #some a) = match o case #some v -> v case #none -> d
  let when 'a (v: a) : #none | #some a = if x > 0 then #some v else #none
  in (get 0 (when x), get 0i32 (when 5i32))

-- ==
-- entry: soacs
-- input { 3.0 } output { 24.0 3.0 }

entry soacs (x: f64) =
  let ts = [#leaf x, #node (x, 2 * x), #leaf 3]
  let r = reduce (+) 0 (map (\t -> match t case #leaf v -> v case #node (a, b) -> a * b) ts)
  let s = scan (\a b -> match (a, b)
                        case (#leaf u, #leaf v) -> #leaf (u + v)
                        case _ -> b)
               (#leaf 0) ts
  in (r, match s[2] case #leaf v -> v case #node (a, _) -> a)

-- Constructor patterns of a single-constructor type in loop parameters, `let` and lambdas;
-- a sum as the state of a loop.
type acc = #acc f64 i64

-- ==
-- entry: loop_patterns
-- input { [1.0, 2.0, 3.0] } output { 2.0 3i64 }

entry loop_patterns (xs: []f64) =
  let (#acc s n) = loop (#acc s n : acc) = #acc 0 0 for x in xs do #acc (s + x) (n + 1)
  let mean = \(#acc a b : acc) -> a / f64.i64 b
  in (mean (#acc s n), n)

-- ==
-- entry: state_machine
-- input { 5i64 } output { 1i64 }
-- input { 1i64 } output { 0i64 }
-- input { 0i64 } output { -100i64 }

entry state_machine (x: i64) =
  let v =
    loop v = #start for i < x do
      match v
      case #start -> #mid i
      case #mid j -> #end (j + i)
      case #end k -> #end k
  in match v
     case #end k -> k
     case #mid j -> -j
     case #start -> -100

-- A local function that builds a sum: the sum type stays open until the declaration is
-- finished, so the function is monomorphic in it (and in its payload).
-- ==
-- entry: local_constructor
-- input { 2.0 } output { 2.0 2.0 }
-- input { -2.0 } output { -2.0 0.0 }

entry local_constructor (x: f64) =
  let wrap y = #some y
  let a = wrap x
  let b = if x > 0 then wrap x else #none
  in (match a case #some v -> v case #none -> -1,
      match b case #some v -> v case #none -> 0)
