-- Integer `/` and `//`: partials 1 // y and -(x // (y*y)) in integer arithmetic;
-- integer `%` and `%%`: partials 1 and 0.
-- ==
-- entry: div_dx div_dx_trunc
-- input { 7 2 } output { 0 }
-- input { 7 1 } output { 1 }
-- input { -7 -1 } output { -1 }
-- input { 0 1 } output { 1 }

entry div_dx (x: i32) (y: i32) = jvp (\a -> a / y) x 1
entry div_dx_trunc (x: i32) (y: i32) = jvp (\a -> a // y) x 1

-- ==
-- entry: div_dy div_dy_trunc
-- input { 7 2 } output { -1 }
-- input { -7 2 } output { 1 }
-- input { 20 3 } output { -2 }
-- input { 3 2 } output { 0 }

entry div_dy (x: i32) (y: i32) = jvp (\b -> x / b) y 1
entry div_dy_trunc (x: i32) (y: i32) = jvp (\b -> x // b) y 1

-- ==
-- entry: rem
-- input { 7 3 2 5 } output { 2 2 }
-- input { -7 3 4 9 } output { 4 4 }

entry rem (x: i32) (y: i32) (dx: i32) (dy: i32) =
  (jvp (\(a, b) -> a % b) (x, y) (dx, dy), jvp (\(a, b) -> a %% b) (x, y) (dx, dy))

-- ==
-- entry: by_zero
-- input { 7 0 } error: division by zero

entry by_zero (x: i32) (y: i32) = jvp (\a -> a / y) x 1
