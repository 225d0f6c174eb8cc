-- A size parameter that a parameter's type has only inside an expression (`[m + 1]`,
-- `[m - 1]`): it is solved from the argument's size whatever form that size has, also for
-- local functions, where it used to be unbound ("internal compiler error: unbound variable
-- m"), and an argument size `1 + k` no longer binds `m` to the constant 1 (which gave wrong
-- results without any error).

def lengths [m] (offsets: [m + 1]i64) : [m]i64 =
  map (\i -> offsets[i + 1] - offsets[i]) (iota m)

-- ==
-- entry: from_product
-- input { 2i64 } output { [1i64, 3i64, 5i64] }
-- input { 1i64 } output { [1i64] }

entry from_product (o: i64) : []i64 = lengths (map (\i -> i * i) (iota (2 * o)))

-- ==
-- entry: from_flipped_sum
-- input { [5i64, 7i64, 12i64] } output { [5i64, 2i64, 5i64] }
-- input { empty([0]i64) } output { empty([0]i64) }

entry from_flipped_sum [k] (xs: [k]i64) : [k]i64 = lengths (concat [0i64] xs)

-- ==
-- entry: from_two_more
-- input { [5i64, 7i64] } output { [1i64, 4i64, 2i64] }

entry from_two_more [k] (xs: [k]i64) : []i64 = lengths (concat [0i64, 1i64] xs)

-- ==
-- entry: local_plus_one
-- input { 3i64 } output { [2i64, 2i64, 2i64] }

entry local_plus_one (k: i64) : []i64 =
  let local_lengths [m] (offsets: [m + 1]i64) : [m]i64 =
    map (\i -> offsets[i + 1] - offsets[i]) (iota m)
  in local_lengths (map (* 2) (iota (k + 1)))

-- ==
-- entry: local_product
-- input { 2i64 } output { 3i64 9i64 }

entry local_product (o: i64) : (i64, i64) =
  let last_gap [m] (offsets: [m + 1]i64) : (i64, i64) = (m, offsets[m] - offsets[0])
  in last_gap (map (\i -> i * i) (iota (2 * o)))

-- ==
-- entry: minus_one
-- input { 4i64 } output { 5i64 }

def plus_one [m] (_: [m - 1]i64) : i64 = m

entry minus_one (k: i64) : i64 = plus_one (iota k)
