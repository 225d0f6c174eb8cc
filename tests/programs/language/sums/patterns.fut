-- Nested constructor patterns, literal patterns (integers, negative integers, floats,
-- booleans), tuple and record patterns, type-annotated patterns; the first matching case
-- wins.
type shape = #circle f64 | #rect f64 f64 | #none

def area (s: shape) : f64 =
  match s
  case #circle r -> 3 * r * r
  case #rect w h -> w * h
  case #none -> 0

def classify (x: i32) : i32 =
  match x
  case 0 -> 100
  case -1 -> 200
  case 1 -> 300
  case _ -> x

def fclass (x: f64) : i32 =
  match x
  case 0.5 -> 1
  case -2.0 -> 2
  case 3 -> 3
  case _ -> 0

def both (p: (bool, bool)) : i32 =
  match p
  case (true, true) -> 3
  case (true, false) -> 2
  case (false, true) -> 1
  case (false, false) -> 0

def nested (o: #some (#left i32 | #right f64) | #nothing) : f64 =
  match o
  case #some (#left 0) -> -1
  case #some (#left i) -> f64.i32 i
  case #some (#right 2.5) -> 100
  case #some (#right (x: f64)) -> x
  case #nothing -> 0

def rec_pat (r: {a: i32, b: #yes | #no}) : i32 =
  match r
  case {a = 1, b = #yes} -> 10
  case {a, b = #yes} -> a
  case {a = _, b = #no} -> -1

-- ==
-- entry: areas
-- input { 2.0 3.0 } output { 12.0 6.0 0.0 }

entry areas (a: f64) (b: f64) =
  (area (#circle a), area (#rect a b), area #none)

-- ==
-- entry: literals
-- input { 0 } output { 100 0 }
-- input { -1 } output { 200 0 }
-- input { 1 } output { 300 0 }
-- input { 7 } output { 7 0 }

entry literals (x: i32) = (classify x, fclass (f64.i32 x))

-- ==
-- entry: floats
-- input { 0.5 } output { 1 }
-- input { -2.0 } output { 2 }
-- input { 3.0 } output { 3 }
-- input { 3.5 } output { 0 }

entry floats (x: f64) = fclass x

-- ==
-- entry: bools
-- input { true false } output { 2 }
-- input { false true } output { 1 }

entry bools (a: bool) (b: bool) = both (a, b)

-- ==
-- entry: nesting
-- input { 0 0.0 } output { -1.0 100.0 0.0 }
-- input { 4 1.5 } output { 4.0 1.5 0.0 }

entry nesting (i: i32) (x: f64) =
  (nested (#some (#left i)), nested (#some (#right (if x == 0 then 2.5 else x))), nested #nothing)

-- ==
-- entry: records
-- input { 1 } output { 10 10 -1 }
-- input { 5 } output { 5 5 -1 }

entry records (a: i32) =
  (rec_pat {a, b = #yes}, rec_pat {a = a, b = #yes}, rec_pat {a, b = #no})
