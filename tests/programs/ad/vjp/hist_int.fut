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

-- Integer product hist/reduce_by_index with an initial array, wrap-around, zeros, repeated
-- factors of two and out-of-range indices: adjoints of the destination and of the values are
-- the exact products of the other elements of each bin modulo 2^k (expected values computed
-- by brute force in Python).

-- ==
-- entry: mul_u8
-- input { [3i64, 1i64, 4i64, 1i64, 4i64, 4i64, 4i64, 3i64, -1i64, 2i64, 0i64, 4i64] [1u8, 2u8, 1u8, 8u8, 8u8, 0u8, 4u8, 1u8, 1u8, 1u8, 1u8, 0u8] [0u8, 0u8, 2u8, 0u8] [104u8, 93u8, 100u8, 196u8] }
-- output { [104u8, 208u8, 100u8, 196u8] [0u8, 0u8, 0u8, 0u8, 0u8, 0u8, 0u8, 0u8, 0u8, 200u8, 0u8, 0u8] }
entry mul_u8 (is: [12]i64) (vs: [12]u8) (d: [4]u8) (yb: [4]u8) =
  vjp (\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (d, vs) yb

-- ==
-- entry: mul_i32
-- input { [1i64, -1i64, 1i64, 2i64, 0i64, 0i64, 1i64, -1i64, 1i64, 1i64, 3i64, 3i64] [2i32, 1314535974i32, 4i32, 2i32, 4i32, 2i32, 4i32, 1i32, 2i32, 8i32, 8i32, 2i32] [0i32, 895429364i32, 0i32, 1460115056i32] [-1953591474i32, 1360645580i32, -1334984992i32, -14058226i32] }
-- output { [1551137392i32, 865835008i32, 1624997312i32, -224931616i32] [262041600i32, 0i32, -2016462848i32, 0i32, 0i32, 0i32, -2016462848i32, 0i32, 262041600i32, -1008231424i32, 1033753664i32, -159952640i32] }
entry mul_i32 (is: [12]i64) (vs: [12]i32) (d: [4]i32) (yb: [4]i32) =
  vjp (\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (d, vs) yb

-- ==
-- entry: mul_u64
-- input { [2i64, 3i64, 2i64, 2i64, 3i64, 3i64, 0i64, 0i64, 3i64, 2i64] [2615658569448273025u64, 0u64, 6019049990461352110u64, 0u64, 0u64, 10052296588488942u64, 0u64, 0u64, 3475098525957486432u64, 8686752659037549u64] [3886917580166169791u64, 1u64, 2699839725237362756u64] [7123578427082010768u64, 1662368496690140242u64, 11742965031043472267u64] }
-- output { [0u64, 1662368496690140242u64, 0u64] [0u64, 0u64, 0u64, 7970707252875745352u64, 0u64, 0u64, 0u64, 0u64, 0u64, 0u64] }
entry mul_u64 (is: [10]i64) (vs: [10]u64) (d: [3]u64) (yb: [3]u64) =
  vjp (\(d, v) -> reduce_by_index (copy d) (*) 1 is v) (d, vs) yb
