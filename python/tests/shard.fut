-- Entry points for gradus.mpi's tests: a least-squares loss with a prior that must be counted
-- once, its gradient, the residuals (rows), a mix of kinds, a maximum and a minimum over the
-- rows, and the difference of the two, which does not shard.

def loss [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : f64 =
  let fit = f64.sum (map2 (\xi yi -> let r = f64.sum (map2 (*) w xi) - yi in r * r) x y)
  in fit + 0.5 * f64.sum (map (\v -> v * v) w)

entry objective [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : f64 = loss w x y

entry gradient [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : []f64 = vjp (\w -> loss w x y) w 1.0

entry residuals [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : []f64 =
  map2 (\xi yi -> f64.sum (map2 (*) w xi) - yi) x y

entry summary [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : (f64, []f64, i64, []f32) =
  (loss w x y, residuals w x y, length y, map (\v -> f32.f64 (2 * v)) w)

entry largest [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : f64 =
  f64.maximum (residuals w x y)

entry smallest [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : (f64, f64) =
  (f64.minimum (residuals w x y), loss w x y)

entry spread [n][d] (w: [d]f64) (x: [n][d]f64) (y: [n]f64) : f64 =
  let r = residuals w x y in f64.maximum r - f64.minimum r
