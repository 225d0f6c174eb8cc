-- Shadowing, nested lets, conditionals.
def clamp (lo: i32) (hi: i32) (x: i32) = if x < lo then lo else if x > hi then hi else x

-- ==
-- input { 5 } output { 10 [0, 5, 9] }

entry main (x: i32) =
  let x = x + 1
  let x = x * 2 - 2
  in (x, map (clamp 0 9) [-3, 5, 12])
