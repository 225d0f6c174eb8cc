-- concat / (++) of vectors and matrices.
-- ==
-- entry: vecs
-- input { [1.0, 2.0] [3.0] } output { [2.0, 4.0, 1.0] }

entry vecs (a: []f64) (b: []f64) =
  jvp (\(x, y) -> map (\t -> t * t) x ++ y) (a, b) (map (const 1) a, map (const 1) b)

-- ==
-- entry: mats
-- input { [[1.0, 2.0]] [[3.0, 4.0], [5.0, 6.0]] }
-- output { [[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0]] }

entry mats (a: [][2]f64) (b: [][2]f64) =
  jvp (\y -> concat a (concat y a)) b (map (map (const 1)) b)

-- ==
-- entry: self_concat
-- input { [1.0, 2.0] [3.0, 4.0] } output { [3.0, 4.0, 6.0, 8.0] }

entry self_concat (x: []f64) (dx: []f64) = jvp (\v -> v ++ map (* 2) v) x dx
