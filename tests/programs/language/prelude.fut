-- Prelude functions of docs/language.md §Array combinators and Futhark's prelude: flatmap,
-- partition2, the multi-dimensional scatters and histograms, and the streams.
-- ==
-- input { [2i64, 0i64, 3i64] }
-- output { [2i64, 0i64, 3i64] [true, false, true, false, false] [0i64, 2i64, 2i64]
--          [0i64, 1i64, 0i64, 1i64, 2i64] [20i64, 0i64, 30i64] }
-- input { empty([0]i64) }
-- output { empty([0]i64) empty([0]bool) empty([0]i64) empty([0]i64) empty([0]i64) }

entry main (xs: []i64) = flatmap (\x -> (iota x, x * 10)) xs

-- ==
-- entry: flatmap_prime
-- input { [1i64, 2i64] } output { [1i64, 2i64] [true, true, false] [0i64, 1i64] [1i64, 2i64, 2i64] }

entry flatmap_prime (xs: []i64) = flatmap' (\x -> replicate x x) xs

-- ==
-- entry: three_way
-- input { [1, 5, 7, 2, 4, 9] } output { [1, 2] [5, 4] [7, 9] }
-- input { empty([0]i32) } output { empty([0]i32) empty([0]i32) empty([0]i32) }

entry three_way (xs: []i32) = partition2 (< 3) (< 6) xs

-- Out-of-range tuples (any component) are ignored; later writes win.
-- ==
-- entry: scatter2
-- input { [[0, 0, 0], [0, 0, 0]] }
-- output { [[0, 50, 0], [20, 0, 0]] }

entry scatter2 (d: *[][]i32) =
  scatter_2d d [(0, 1), (1, 0), (2, 0), (-1, 1), (0, 3), (0, 1)] [10, 20, 30, 40, 60, 50]

-- ==
-- entry: scatter3
-- input { [[[0, 0], [0, 0]], [[0, 0], [0, 0]]] }
-- output { [[[0, 0], [0, 7]], [[8, 0], [0, 0]]] }

entry scatter3 (d: *[][][]i32) = scatter_3d d [(0, 1, 1), (1, 0, 0), (1, 0, 2)] [7, 8, 9]

-- ==
-- entry: hists
-- input { [1, 2, 3, 4, 5] }
-- output { [[4, 0], [0, 2]] [[[0, 5], [0, 0]], [[0, 0], [3, 0]]] [[1, 1], [1, 8]] }

entry hists (vs: []i32) =
  ( hist_2d (+) 0 2 2 [(0, 0), (1, 1), (0, 0), (3, 0), (1, -1)] vs
  , hist_3d (+) 0 2 2 2 [(0, 0, 1), (1, 1, 0), (1, 1, 0), (0, 0, 1), (2, 0, 0)] [1, 1, 2, 4, 9]
  , reduce_by_index_2d (replicate 2 (replicate 2 1)) (*) 1 [(1, 1), (1, 1)] [2, 4]
  )

-- ==
-- entry: streams
-- input { [1, 2, 3] } output { [2, 4, 6] 6 [3, 6, 9] 6 }

entry streams (xs: []i32) =
  ( map_stream (\_ c -> map (* 2) c) xs
  , reduce_stream (+) (\_ c -> i32.sum c) xs
  , map_stream_per (\_ c -> map (* 3) c) xs
  , reduce_stream_per (+) (\_ c -> i32.sum c) xs
  )

-- `break` is the identity.
-- ==
-- entry: breakpoint
-- input { 1 } output { 2 }

entry breakpoint (x: i32) = break (x + 1)
