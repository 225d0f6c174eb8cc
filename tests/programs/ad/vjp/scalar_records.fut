-- Records as inputs, outputs and seeds of vjp; field order in the type does not matter.

def f (p: {x: f64, y: f64, k: f64}) : {s: f64, t: f64} = {s = p.x * p.k + p.y, t = p.y * p.y * p.k}

-- ==
-- entry: rev
-- input { 1.0 2.0 3.0 1.0 0.0 }
-- output { 3.0 1.0 1.0 }
-- input { 1.0 2.0 3.0 0.0 1.0 }
-- output { 0.0 12.0 4.0 }
-- input { -1.5 0.5 2.0 2.0 -1.0 }
-- output { 4.0 0.0 -3.25 }
entry rev (a: f64) (b: f64) (c: f64) (sb: f64) (tb: f64) =
  let r = vjp f {x = a, y = b, k = c} {t = tb, s = sb}
  in (r.x, r.y, r.k)

-- ==
-- entry: update
-- input { 2.0 3.0 }
-- output { 4.0 2.0 }
-- input { -1.0 0.0 }
-- output { 1.0 -1.0 }
entry update (a: f64) (b: f64) =
  let r = vjp (\(p: {u: f64, v: f64}) -> p with v = p.u * p.v) {u = a, v = b} {u = 1, v = 1}
  in (r.u, r.v)
