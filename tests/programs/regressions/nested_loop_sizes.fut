-- An inner loop whose body returns the outer loop's parameter unifies the inner parameter's
-- fresh size with the outer one's; the type checker must not then bind a size to itself
-- (it did not terminate).
-- ==
-- entry: main
-- input { [1i32, 2i32] 3i64 }
-- output { [1i32, 2i32] }

entry main (xs: []i32) (n: i64) : []i32 =
  loop a = xs for i < n do
    loop b = a for j < i do
      if j == 0 then a else b
