-- zip and unzip; zipping arrays of different sizes needs a coercion, checked at run time.
-- ==
-- input { [1, 2, 3] [4.0, 5.0, 6.0] } output { [4.0, 5.0, 6.0] [1, 2, 3] }

entry main [n] (xs: [n]i32) (ys: [n]f64) =
  let (a, b) = unzip (zip xs ys)
  in (b, a)

-- ==
-- entry: zip_mismatch
-- input { [1, 2] [1.0] } error: value of shape \[1\] cannot match shape of type "\[2\]f64"

entry zip_mismatch [n] [m] (xs: [n]i32) (ys: [m]f64) = unzip (zip xs (ys :> [n]f64))
