-- Reductions with associative operators that are not commutative, on tuples: each must
-- combine its elements in order, whatever the backend splits them into (chunks, groups,
-- trees in work-groups).
-- ==
-- input { [2i64, 1i64, 3i64, 0i64, 0i64, 0i64, 2i64, 0i64, 1i64, 0i64, 0i64, 3i64, 3i64, 0i64, 1i64, 0i64, 3i64, 0i64, 0i64, 1i64, 0i64, 3i64, 0i64] } output { 461i64 1907i64 161i64 666i64 }
-- input { empty([0]i64) } output { 1i64 0i64 0i64 1i64 }

-- The product of the 2x2 matrices [[x, 1], [1, 0]], row by row.
entry main (xs: []i64) =
  reduce (\(a1, b1, c1, d1) (a2, b2, c2, d2) ->
            (a1 * a2 + b1 * c2, a1 * b2 + b1 * d2, c1 * a2 + d1 * c2, c1 * b2 + d1 * d2))
         (1, 0, 0, 1)
         (map (\x -> (x, 1, 1, 0)) xs)

-- ==
-- entry: compose
-- input { [1i32, 1i32, -1i32, 1i32, 2i32, 2i32, 1i32, -1i32, 1i32, -1i32, 2i32, -1i32, -1i32, 1i32, 1i32, -1i32, -1i32, -1i32, 1i32] [-1i32, -3i32, 1i32, 2i32, -3i32, 1i32, -3i32, 1i32, -2i32, 0i32, 2i32, 1i32, 0i32, 3i32, -1i32, 0i32, 1i32, 0i32, -1i32] } output { 8i32 -47i32 }

-- The composition of the affine maps x -> a x + b, the first applied first.
entry compose (as: []i32) (bs: []i32) =
  reduce (\(a1, b1) (a2, b2) -> (a1 * a2, a2 * b1 + b2)) (1, 0) (zip as bs)

-- ==
-- entry: hash
-- input { [153u64, 127u64, 92u64, 124u64, 41u64, 153u64, 253u64, 175u64, 229u64, 147u64, 37u64, 60u64, 214u64, 84u64, 175u64, 77u64, 250u64, 215u64, 20u64, 39u64, 160u64, 174u64, 179u64, 254u64, 233u64, 35u64, 47u64, 138u64, 242u64] } output { 7718819304152071115u64 3853437609941183391u64 }

-- A polynomial hash of the sequence (base 31, wrapping), built by concatenating the hashes
-- of its parts.
entry hash (xs: []u64) =
  reduce (\(h1, p1) (h2, p2) -> (h1 * p2 + h2, p1 * p2)) (0, 1) (map (\x -> (x, 31)) xs)
