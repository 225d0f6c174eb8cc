-- A declaration whose value is computed (`i64.lowest` is a negation) used first inside one
-- branch and then in the other, or in a lambda and then outside: each use must see a value
-- bound in its own scope.
-- ==
-- entry: branches
-- input { 2i64 [1i64, 0i64, 1i64] }
-- output { [1i64, 2i64, -9223372036854775808i64] }
-- input { 7i64 [1i64] }
-- output { [-9223372036854775808i64, -9223372036854775808i64, -9223372036854775808i64] }

entry branches (n: i64) (ys: []i64) : [3]i64 =
  if n == 7 then replicate 3 i64.lowest
  else hist i64.max i64.lowest 3 ys (iota (length ys))

-- ==
-- entry: lambda_then_outside
-- input { [3i32, -1i32] }
-- output { [-2147483648i32, -2147483648i32] -2147483648i32 }

entry lambda_then_outside (xs: []i32) : ([]i32, i32) =
  let ys = map (\x -> if x > 100 then x else i32.lowest) xs
  in (ys, i32.lowest)
