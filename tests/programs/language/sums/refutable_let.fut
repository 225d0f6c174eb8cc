-- `let` may take apart a value with a constructor pattern only when the type has no other
-- constructor.
-- ==
-- error: refutable_let.fut:9:7: refutable pattern: `#some` is not the only constructor

type opt = #none | #some f64

entry main (x: f64) =
  let #some y : opt = if x > 0 then #some x else #none
  in y
