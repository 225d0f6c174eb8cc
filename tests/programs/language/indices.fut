-- Indices, slice bounds and strides of any integer type, converted to i64: a negative or
-- too-large value is an ordinary out-of-bounds error.
-- ==
-- input { [10, 20, 30, 40] 2i32 } output { 30 }
-- input { [10, 20, 30, 40] -1i32 } error: Index \[-1\] out of bounds
-- input { [10, 20, 30, 40] 4i32 } error: Index \[4\] out of bounds

entry main (xs: []i32) (i: i32) = xs[i]

-- ==
-- entry: unsigned
-- input { [10, 20, 30, 40] 3u8 1u16 } output { 40 [20, 30, 40] }
-- input { [10, 20, 30, 40] 255u8 0u16 } error: Index \[255\] out of bounds

entry unsigned (xs: []i32) (i: u8) (j: u16) = (xs[i], xs[j:])

-- ==
-- entry: slices
-- input { [0, 1, 2, 3, 4, 5, 6, 7] 1i8 6i16 2i32 } output { [1, 3, 5] [1, 2, 3, 4, 5] [6, 4, 2] }
-- input { [0, 1, 2, 3, 4, 5, 6, 7] 1i8 9i16 2i32 } error: out of bounds

entry slices (xs: []i32) (i: i8) (j: i16) (s: i32) = (xs[i:j:s], xs[i:j], xs[j:i:-s])

-- ==
-- entry: twod
-- input { [[1, 2, 3], [4, 5, 6]] 1u32 2i32 } output { 6 [4, 5] }

entry twod (m: [][]i32) (i: u32) (j: i32) = (m[i, j], m[i, :j])

-- ==
-- entry: update
-- input { [1, 2, 3, 4] 2u8 } output { [1, 2, 0, 4] }
-- input { [1, 2, 3, 4] 7u8 } error: out of bounds

entry update (xs: *[]i32) (i: u8) = xs with [i] = 0

-- A gradient through i32-indexed reads.
-- ==
-- entry: grad
-- input { [1.0, 2.0, 3.0] 1i32 } output { [0.0, 4.0, 0.0] }

def square_at (i: i32) (xs: []f64) = xs[i] * xs[i]

entry grad (xs: []f64) (i: i32) = vjp (square_at i) xs 1.0
