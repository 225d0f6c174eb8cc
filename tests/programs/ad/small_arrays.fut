-- Small arrays of known size, which the optimiser turns into scalars (under `ad/`, so the
-- property test also checks every entry against finite differences and the transposition
-- identity): literals of literals,
-- maps over rows of a 2×2 matrix, in-place updates of copies, loops and branches returning
-- 3-vectors, and both AD modes through them. Expected values: by hand for `b` and `e`,
-- central differences of the closed form for `d`, the reference interpreter without the
-- optimiser for the others.

def rot (a: f64) : [2][2]f64 = [[f64.cos a, -(f64.sin a)], [f64.sin a, f64.cos a]]
def mv (m: [2][2]f64) (v: [2]f64) : [2]f64 = map (\r -> r[0] * v[0] + r[1] * v[1]) m
def step (v: [3]f64) (i: i64) : [3]f64 =
  let w = copy v
  let w[i % 3] = w[i % 3] * 2 + 1
  in if i % 2 == 0 then w else map (+ 1) w

-- ==
-- entry: a
-- input { [0.1, 0.5, -2.0] }
-- output { [[0.009650341545657248, 0.905487090414906], [0.19907851164308488, 0.6785040502472879],
--           [3.5601859535713296, 0.5701543440099361]] }
entry a (xs: []f64) : [][2]f64 = map (\x -> mv (rot x) [x, 1 - x]) xs

-- ==
-- entry: b
-- input { 5i64 [1.0, 2.0, 3.0] }
-- output { [10.0, 15.0, 10.0] }
entry b (n: i64) (v: [3]f64) : [3]f64 = loop v for i < n do step v i

-- ==
-- entry: c
-- input { [0.1, 0.5, -2.0] }
-- output { [0.9951707486311977, 0.8981570232861698, -1.5068494097214606] }
entry c (xs: []f64) : []f64 =
  map (\x -> let m = rot x
             let m2 = copy m with [1] = [x, x]
             in m2[1, 0] + m2[0, 1] + m[1, 1]) xs

-- ==
-- entry: d
-- input { [0.1, 0.5, -2.0] }
-- output { [-2.0099332891425896, -2.2077355124810896, 3.2335277301203464] }
entry d (xs: []f64) : []f64 =
  map (\x -> vjp (\y -> let v = mv (rot y) [y, 2] in v[0] * v[1]) x 1) xs

-- ==
-- entry: e
-- input { [0.1, 0.5, -2.0] }
-- output { [[1.0, 0.4, 0.0], [1.0, 2.0, 0.0], [1.0, -8.0, 0.0]] }
entry e (xs: []f64) : [][3]f64 = map (\x -> jvp (\y -> step [y, y * y, 1] 4) x 1) xs

-- ==
-- entry: f
-- input { [[1.0, 2.0, 3.0], [-1.0, 2.0, 3.0]] }
-- output { [[3.0, 2.0, 3.0], [-1.0, 2.0, 3.0]] }
entry f (xs: [][3]f64) : [][3]f64 =
  map (\r -> let r2 = copy r
             let r2[0] = r[2]
             in if r[0] > 0 then r2 else r) xs
