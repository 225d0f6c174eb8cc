-- Operator parameters and projection sections.

-- An insertion sort parameterised by its comparison, passed as an operator.
def sort 'a [n] ((<=): a -> a -> bool) (xs: [n]a) : [n]a =
  loop xs = copy xs for i in 1..<n do
    (loop (xs, j) = (xs, i) while j > 0 && !(xs[j - 1] <= xs[j]) do
       let t = xs[j]
       let xs[j] = xs[j - 1]
       let xs[j - 1] = t
       in (xs, j - 1)).0

def combine 't ((+): t -> t -> t) (a: t) (b: t) (c: t) = a + b + c

-- ==
-- input { [3, 1, 2] } output { [1, 2, 3] [3, 2, 1] 6 24 }

entry main (xs: []i32) = (sort (<=) xs, sort (>=) xs, combine (+) 1 2 3, combine (*) 2 3 4)

-- ==
-- entry: projections
-- input { [1.0, 2.0] [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]] 1i32 }
-- output { [1.0, 2.0] [10.0, 20.0] [2.0, 4.0] [2.0, 5.0] [[2.0, 3.0], [5.0, 6.0]] [[1.0], [4.0]] }

entry projections (xs: []f64) (m: [][]f64) (i: i32) =
  let ps = map (\x -> {x, y = {z = 10 * x}}) xs
  let ts = map (\x -> (x, 2 * x)) xs
  in (map (.x) ps, map (.y.z) ps, map (.1) ts, map (.[i]) m, map (.[1:]) m, map (.[:i]) m)

-- A derivative through a projection section and an index section.
-- ==
-- entry: grad
-- input { [[1.0, 2.0], [3.0, 4.0]] } output { [[0.0, 4.0], [0.0, 8.0]] }

entry grad (m: [][]f64) = vjp (\a -> f64.sum (map (\x -> x * x) (map (.[1]) a))) m 1

-- Negative literals of unsigned types wrap around in input values.
-- ==
-- entry: wrap
-- input { -1u8 -2u32 } output { 255u8 4294967294u32 }

entry wrap (a: u8) (b: u32) = (a, b)
