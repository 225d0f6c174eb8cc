-- Integer hist with + and * in reverse mode: exact integer cotangents.

-- ==
-- entry: add
-- input { [0i64, 1i64, 1i64, 2i64] [1, 2, 3, 4] [5, 7] }
-- output { [5, 7, 7, 0] }
entry add (is: [4]i64) (vs: [4]i32) (yb: [2]i32) = vjp (\v -> hist (+) 0 2 is v) vs yb

-- ==
-- entry: mul
-- input { [0i64, 0i64, 1i64, 1i64] [3, 4, 0, 6] }
-- output { [4, 3, 6, 0] }
-- input { [0i64, 0i64, 0i64, 1i64] [3, 0, 0, 6] }
-- output { [0, 0, 0, 1] }
entry mul (is: [4]i64) (vs: [4]i32) = vjp (\v -> i32.sum (hist (*) 1 2 is v)) vs 1
