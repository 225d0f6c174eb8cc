-- Integer exponentiation is repeated multiplication with wrap-around.
-- ==
-- input { 2 10 } output { 1024 }
-- input { 3 0 } output { 1 }
-- input { -3 3 } output { -27 }
-- input { 2 31 } output { -2147483648 }
-- input { 2 32 } output { 0 }

entry main (x: i32) (n: i32) = x ** n
