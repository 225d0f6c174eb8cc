-- Sum types: an option type with `match`, constructors whose type comes from the context,
-- a parametric type abbreviation and polymorphic functions over it.
type opt 'a = #none | #some a

def safe_div (x: f64) (y: f64) : opt f64 =
  if y == 0 then #none else #some (x / y)

def get_or 'a (d: a) (o: opt a) : a =
  match o
  case #none -> d
  case #some v -> v

def map_opt 'a 'b (f: a -> b) (o: opt a) : opt b =
  match o
  case #none -> #none
  case #some v -> #some (f v)

-- ==
-- entry: divide
-- input { 6.0 3.0 } output { 2.0 true }
-- input { 1.0 0.0 } output { -1.0 false }

entry divide (x: f64) (y: f64) =
  let r = safe_div x y
  let is_some = match r case #some _ -> true case #none -> false
  in (get_or (-1) r, is_some)

-- ==
-- entry: mapped
-- input { 5i32 } output { 11i32 }
-- input { -5i32 } output { 0i32 }

entry mapped (x: i32) =
  let o : opt i32 = if x > 0 then #some x else #none
  in get_or 0 (map_opt (\v -> 2 * v + 1) o)
