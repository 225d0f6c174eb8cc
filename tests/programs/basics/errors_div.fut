-- Integer division by zero is a run-time error; float division by zero is not.
-- ==
-- input { 7 0 } error: division by zero
-- input { 7 2 } output { 3 }

entry main (x: i32) (y: i32) = x / y

-- ==
-- entry: rem
-- input { 7i64 0i64 } error: ^Error: division by zero

entry rem (x: i64) (y: i64) = x %% y

-- ==
-- entry: fdiv
-- input { 1.0 0.0 } output { f64.inf }
-- input { -1.0 0.0 } output { -f64.inf }
-- input { 0.0 0.0 } output { f64.nan }

entry fdiv (x: f64) (y: f64) = x / y
