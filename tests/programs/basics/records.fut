-- Records: construction, field access, functional update.
type point = {x: f64, y: f64}

def norm2 (p: point) = p.x * p.x + p.y * p.y

-- ==
-- input { 3.0 4.0 } output { 25.0 4.0 1.0 }

entry main (a: f64) (b: f64) =
  let p = {x = a, y = b}
  let q = p with x = 1.0
  in (norm2 p, q.y, q.x)
