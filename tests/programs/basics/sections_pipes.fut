-- Operator sections, pipes, composition and backticked functions.
def plus (a: i32) (b: i32) = a + b

-- ==
-- input { [1, 2, 3] } output { [0, 1, 2] [9, 8, 7] 12 [2, 4, 6] [6, 9, 12] 5 }

entry main (xs: []i32) =
  (map (\x -> x - 1) xs,
   map (10 -) xs,
   xs |> map (* 2) |> reduce (+) 0,
   map (2 *) xs,
   map ((+ 1) >-> (* 3)) xs,
   2 `plus` 3)

-- ==
-- entry: backwards
-- input { 4 } output { 9 }

entry backwards (x: i32) = (+ 1) <| x * 2
