-- jmp in vector mode: the primal once, every tangent with the directions innermost (for a
-- constant number of directions). One entry per construct with a lane rule; the expected Jacobians were computed one direction at a time
-- (a jvp per seed) and agree with finite differences (checked for every AD program).

def eye (n: i64) : [n][n]f64 = tabulate_2d n n (\i j -> f64.bool (i == j))

-- Primitive operations: products, quotients, min/max, select, conversions, powers.
def prims (x: [4]f64) : [6]f64 =
  let a = x[0] * x[1] - x[2] / x[3]
  let b = f64.max x[0] x[1] + f64.min x[2] (x[3] * 2)
  let c = if x[0] > 0.5 then f64.sin x[1] else f64.cos x[2]
  let d = f64.f32 (f32.f64 x[3] * 2f32)
  let e = x[0] ** x[1] + f64.sqrt (x[2] * x[2] + 1)
  let f = f64.atan2 x[1] x[3] + f64.exp (-x[0]) * f64.log x[3]
  in [a, b, c, d, e, f]

-- ==
-- entry: prims_jac
-- input { [0.7, 1.3, -0.4, 2.5] }
-- output { [[1.3f64, 0.7f64, -0.4f64, -0.064f64], [0.0f64, 1.0f64, 1.0f64, 0.0f64], [0.0f64, 0.26749882862458735f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 2.0f64], [1.1680804743278317f64, -0.22433655875981934f64, -0.3713906763541037f64, 0.0f64], [-0.4550165114489803f64, 0.3148614609571788f64, 0.0f64, 0.03490616181883083f64]] }
-- input { [0.2, 0.9, 1.4, 0.3] }
-- output { [[0.9f64, 0.2f64, -3.3333333333333335f64, 15.555555555555555f64], [0.0f64, 1.0f64, 0.0f64, 2.0f64], [0.0f64, 0.0f64, -0.9854497299884601f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 2.0f64], [1.057157048779217f64, -0.3780952519338261f64, 0.813733471206735f64, 0.0f64], [0.9857295607711833f64, 0.3333333333333333f64, 0.0f64, 1.7291025102599393f64]] }

entry prims_jac (x: [4]f64) = transpose (jmp prims x (eye 4))

-- Arrays: map, reduce, scan, rotate, reverse, concat, reshape, transpose, update, replicate.
def arrays [n] (x: [n]f64) : []f64 =
  let sq = map (\t -> t * t + 1) x
  let s = reduce (+) 0 sq
  let m = reduce f64.max (-f64.inf) x
  let pre = scan (*) 1 x
  let rot = rotate 1 pre
  let rev = reverse sq
  let both = concat rot rev
  let mat = unflatten (both :> [n * 2]f64)
  let t = flatten (transpose mat)
  let u = copy t with [0] = s * m
  let r = replicate 2 (x[1] / s)
  in concat u r

-- ==
-- entry: arrays_jac
-- input { [0.5, -1.5, 2.0, 0.25] }
-- output { [[2.0f64, -6.0f64, 18.5625f64, 1.0f64], [-0.75f64, 0.25f64, -0.1875f64, -1.5f64], [0.0f64, 0.0f64, 0.0f64, 0.5f64], [-0.0f64, -3.0f64, -0.0f64, -0.0f64], [-3.0f64, 1.0f64, -0.75f64, 0.0f64], [1.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 4.0f64, 0.0f64], [1.0f64, 0.0f64, 0.0f64, 0.0f64], [0.013444907391197787f64, 0.05433983403942439f64, 0.05377962956479115f64, 0.006722453695598893f64], [0.013444907391197787f64, 0.05433983403942439f64, 0.05377962956479115f64, 0.006722453695598893f64]] }

entry arrays_jac (x: [4]f64) = transpose (jmp arrays x (eye 4))

-- Loops and branches, with a loop-carried array.
def loops [n] (x: [n]f64) : [n]f64 =
  let ys = loop ys = x for i < 3 do
             map2 (\y j -> if j % 2 == 0 then y * ys[(j + i) % n] else y + f64.f64 (f64.i64 i) * y)
                  ys (iota n)
  let (z, _) = loop (z, k) = (ys[0], 0) while k < 4 do (z * 0.5 + ys[k % n], k + 1)
  in map (\y -> y * z) ys

-- ==
-- entry: loops_jac
-- input { [0.5, -1.5, 2.0] }
-- output { [[16.171875f64, -2.09765625f64, 2.302734375f64], [86.0625f64, -50.34375f64, 17.5078125f64], [79.03125f64, -16.78125f64, 18.421875f64]] }

entry loops_jac (x: [3]f64) = transpose (jmp loops x (eye 3))

-- Histograms and scatter, with integer indices computed from the input's shape.
def hists [n] (x: [n]f64) : []f64 =
  let bins = map (\i -> i % 3) (iota n)
  let h = reduce_by_index (replicate 3 0) (+) 0 bins (map (* 2) x)
  let hm = reduce_by_index (replicate 3 (-f64.inf)) f64.max (-f64.inf) bins x
  let s = scatter (replicate 4 1) (map (\i -> (i * 3) % 4) (iota n)) (map f64.exp x)
  in concat (concat h hm) s

-- ==
-- entry: hists_jac
-- input { [0.5, -1.5, 2.0, 0.25, 1.25] }
-- output { [[2.0f64, 0.0f64, 0.0f64, 2.0f64, 0.0f64], [0.0f64, 2.0f64, 0.0f64, 0.0f64, 2.0f64], [0.0f64, 0.0f64, 2.0f64, 0.0f64, 0.0f64], [1.0f64, 0.0f64, 0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 1.0f64], [0.0f64, 0.0f64, 1.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64, 0.0f64, 3.4903429574618414f64], [0.0f64, 0.0f64, 0.0f64, 1.2840254166877414f64, 0.0f64], [0.0f64, 0.0f64, 7.38905609893065f64, 0.0f64, 0.0f64], [0.0f64, 0.22313016014842982f64, 0.0f64, 0.0f64, 0.0f64]] }

entry hists_jac (x: [5]f64) = transpose (jmp hists x (eye 5))

-- Several parameters of different shapes, results of several ranks, seeds not one-hot.
def mixed (a: f64, v: [3]f64, m: [2][3]f64) : (f64, [2]f64, [2][3]f64) =
  let mv = map (\row -> f64.sum (map2 (*) row v)) m
  in (a * mv[0] + mv[1], map (* a) mv, map (map (* a)) m)

-- ==
-- entry: mixed_jac
-- input { 1.5 [1.0, -2.0, 0.5] [[0.5, 1.0, 2.0], [-1.0, 0.25, 3.0]] }
-- output { [-0.5f64, 3.25f64, 6.75f64] [[-0.5f64, 0.0f64], [3.75f64, -0.75f64], [4.25f64, 3.75f64]] [[[0.5f64, 1.0f64, 2.0f64], [-1.0f64, 0.25f64, 3.0f64]], [[0.0f64, 0.0f64, 0.0f64], [0.0f64, 0.0f64, 0.0f64]], [[1.75f64, 0.5f64, 1.0f64], [-0.5f64, 0.125f64, 0.0f64]]] }

entry mixed_jac (a: f64) (v: [3]f64) (m: [2][3]f64) =
  let seeds = [(1, [0, 0, 0], [[0, 0, 0], [0, 0, 0]]),
               (0, [1, 2, 0], [[0, 0, 0], [0, 0, 0]]),
               (0.5, [0, 0, 1], [[1, 0, 0], [0, 0, -1]])]
  let (da, dv, dm) = unzip3 (jmp mixed (a, v, m) seeds)
  in (da, dv, dm)

-- A map of jvp over seeds, as a user writes it, is the same vector mode.
-- ==
-- entry: map_of_jvp
-- input { [0.7, 1.3, -0.4, 2.5] }
-- output { [[1.3f64, 0.0f64, 0.0f64, 0.0f64, 1.1680804743278317f64, -0.4550165114489803f64], [0.7f64, 1.0f64, 0.26749882862458735f64, 0.0f64, -0.22433655875981934f64, 0.3148614609571788f64], [-0.4f64, 1.0f64, 0.0f64, 0.0f64, -0.3713906763541037f64, 0.0f64], [-0.064f64, 0.0f64, 0.0f64, 2.0f64, 0.0f64, 0.03490616181883083f64]] }

entry map_of_jvp (x: [4]f64) = map (\s -> jvp prims x s) (eye 4)
