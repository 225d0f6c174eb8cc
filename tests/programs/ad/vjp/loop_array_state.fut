-- for loops whose state is an array updated in place, element by element, and a loop whose body
-- maps over the whole array state.

-- ==
-- entry: inplace
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [33.0, 16.0, 15.0, 10.0] }
-- input { [0.5, -1.0, 0.25] }
-- output { [-0.25, 0.625, 0.5] }
-- input { [2.0] }
-- output { [1.0] }
entry inplace [n] (xs: [n]f64) = vjp (\v -> let a = loop a = copy v for i < n - 1 do a with [i + 1] = a[i + 1] * a[i] + 1 in f64.sum a) xs 1

-- ==
-- entry: whole
-- input { [0.1, 1.0, -2.0] [1.0, 1.0, 1.0] }
-- output { [4.742537251092676, 0.0818638641737841, 0.000454352134277523] }
entry whole (xs: [3]f64) (yb: [3]f64) = vjp (\v -> loop a = v for _i < 4 do map (\t -> f64.sin t + t * 0.5) a) xs yb

-- ==
-- entry: prefix
-- input { [1.0, 2.0, 3.0, 4.0] [1.0, 2.0, 3.0, 4.0] }
-- output { [10.0, 9.0, 7.0, 4.0] }
-- input { [1.0, 2.0, 3.0] [0.0, 0.0, 1.0] }
-- output { [1.0, 1.0, 1.0] }
entry prefix [n] (xs: [n]f64) (yb: [n]f64) = vjp (\v -> loop a = copy v for i < n - 1 do a with [i + 1] = a[i] + a[i + 1]) xs yb

-- ==
-- entry: swap
-- input { [1.0, 2.0, 3.0, 4.0] }
-- output { [4.0, 2.0, 2.0, 0.0] }
entry swap (xs: [4]f64) = vjp (\v -> let a = loop a = copy v for i < 3 do let t = a[i] in (a with [i] = a[i + 1] * 2) with [i + 1] = t in a[0] * a[3] + a[1]) xs 1
