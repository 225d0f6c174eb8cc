-- reduce_by_index starts from the destination's values.
-- ==
-- input { [10, 20, 30] [0i64, 2, 0, 3] [1, 2, 3, 4] } output { [14, 20, 32] }

entry main [n] (dest: *[]i32) (is: [n]i64) (vs: [n]i32) = reduce_by_index dest (+) 0 is vs
