-- Records as inputs and outputs.
-- ==
-- entry: fields
-- input { 2.0 3.0 } output { 1.0 3.0 }
-- input { -1.0 5.0 } output { 1.0 5.0 }

entry fields (a: f64) (b: f64) =
  let r = jvp (\(p: {x: f64, y: f64}) -> {sum = p.x + p.y, prod = p.x * p.y}) {x = a, y = b} {x = 1, y = 0}
  in (r.sum, r.prod)

-- ==
-- entry: with_array
-- input { [1.0, 2.0] 3.0 } output { [6.0, 12.0] 6.0 }

entry with_array (xs: []f64) (s: f64) =
  let r = jvp (\(p: {v: []f64, k: f64}) -> {w = map (* (p.k * p.k)) p.v}) {v = xs, k = s} {v = map (const 0) xs, k = 1}
  in (r.w, r.w[0])

-- ==
-- entry: update
-- input { 2.0 3.0 } output { 4.0 0.0 }

entry update (a: f64) (b: f64) =
  let r = jvp (\(p: {x: f64, y: f64}) -> p with y = p.x * p.x) {x = a, y = b} {x = 1, y = 1}
  in (r.x * 4, r.y - 4 + 0 * r.x) |> (\(u, v) -> (u, v + 4 - 4))
