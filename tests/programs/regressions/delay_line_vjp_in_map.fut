-- Neural-mass models stepping a delay line updated in place inside a loop, with negated
-- state variables, differentiated with `vjp` inside a `map` over parameter records: the
-- shape of program whose generated C was reported to name an undeclared `neg_N`.
-- ==
-- entry: wilson_cowan
-- input { [0.1f32, 0.2f32, 0.3f32, 0.1f32, 0.0f32, -0.1f32, 0.2f32, 0.25f32] [1.0f32, 2.0f32, 0.5f32] [0.5f32, 0.7f32, 0.1f32] }
-- output { [0.00540716f32, 0.0041934894f32, 0.009709118f32] [-0.1059881f32, -0.083889775f32, -0.16813612f32] }

type wc = {wee: f32, wei: f32, wie: f32, wii: f32, tau_e: f32, tau_i: f32, theta: f32}

def sig (x: f32) : f32 = 1f32 / (1f32 + f32.exp (-x))

def wilson_cowan_loss [n] (data: [n]f32) (p: wc) : f32 =
  let d = 5i64
  let dt = 0.1f32
  let (_, _, _, loss) =
    loop (e, i, hist, loss) = (0.1f32, 0.05f32, replicate d 0f32, 0f32) for t < n do
      let e_del = hist[(t + 1) % d]
      let de = (-e + sig (p.wee * e_del - p.wei * i - p.theta)) / p.tau_e
      let di = (f32.neg i + sig (p.wie * e - p.wii * i)) / p.tau_i
      let e' = e + dt * de
      let i' = i + dt * di
      let hist = hist with [t % d] = e'
      let r = e' - data[t]
      in (e', i', hist, loss + r * r)
  in loss

entry wilson_cowan [n] [k] (data: [n]f32) (wees: [k]f32) (thetas: [k]f32) : ([k]f32, [k]f32) =
  let ps = map2 (\w th -> {wee = w, wei = 1.5f32, wie = 1.2f32, wii = 0.3f32,
                           tau_e = 1f32, tau_i = 2f32, theta = th}) wees thetas
  let gs = map (\p -> vjp (wilson_cowan_loss data) p 1f32) ps
  in (map (.wee) gs, map (.theta) gs)

-- ==
-- entry: branches
-- input { [0.5f32, 0.2f32, -0.3f32, -0.5f32, 0.1f32, 0.3f32, 0.2f32] [1.0f32, 2.0f32] }
-- output { [-0.01119668f32, -0.0052140583f32] [0.020951949f32, 0.006806422f32] }

type abc = {a: f32, b: f32, c: f32}

def branches_loss [n] (data: [n]f32) (p: abc) : f32 =
  let d = 4
  let (x, y, _, l) =
    loop (x, y, hist, l) = (0.1f32, 0.2f32, replicate d 0f32, 0f32) for t < n do
      let past = if t < d then -x else hist[(t + 1) % d]
      let nx = f32.neg x
      let ny = -y
      let x' = x + 0.1f32 * (p.a * nx + p.b * past - ny * p.c)
      let y' = if x' > 0f32 then y + 0.1f32 * nx else y - 0.1f32 * x' * ny
      let hist = hist with [t % d] = if t % 2 == 0 then -x' else f32.neg y'
      in (x', y', hist, l + (x' - data[t]) * (x' - data[t]))
  in l + x * y

entry branches [n] [k] (data: [n]f32) (as: [k]f32) : ([k]f32, [k]f32) =
  let gs = map (\a -> vjp (branches_loss data) {a, b = 0.5f32, c = 0.3f32} 1f32) as
  in (map (.a) gs, map (.c) gs)

-- ==
-- entry: while_loop
-- input { [0.5f32, 0.2f32, -0.3f32, -0.5f32, 0.1f32, 0.3f32, 0.2f32] [1.0f32, 2.0f32] }
-- output { [-0.014371611f32, -0.007580405f32] [0.00984283f32, 0.00792086f32] }

def while_loss [n] (data: [n]f32) (p: abc) : f32 =
  let d = 4
  let (_, _, _, _, l) =
    loop (x, y, hist, t, l) = (0.1f32, 0.2f32, replicate d 0f32, 0, 0f32)
    while t < n && -x < 10f32 do
      let past = hist[(t + 1) % d]
      let x' = x + 0.1f32 * (-p.a * x + p.b * past - f32.neg y * p.c)
      let y' = y - 0.1f32 * x'
      let hist = hist with [t % d] = -x'
      in (x', y', hist, t + 1, l + (x' - data[t]) * (x' - data[t]))
  in l

entry while_loop [n] [k] (data: [n]f32) (as: [k]f32) : ([k]f32, [k]f32) =
  let gs = map (\a -> vjp (while_loss data) {a, b = 0.5f32, c = 0.3f32} 1f32) as
  in (map (.a) gs, map (.b) gs)

-- ==
-- entry: network
-- input { [[0.0f32, 1.0f32], [0.5f32, 0.0f32]] [[0.1f32, 0.2f32], [0.3f32, 0.1f32], [0.0f32, -0.1f32], [0.2f32, 0.2f32]] [1.0f32, 2.0f32, 3.0f32] }
-- output { [-0.00020338414f32, 0.00050467846f32, 0.00045256887f32] [-0.013081389f32, 0.013586463f32, 0.016292678f32] }

type jr = {a: f32, g: f32, tau: f32}

def network_loss [n] [m] (w: [m][m]f32) (data: [n][m]f32) (p: jr) : f32 =
  let d = 3i64
  let (_, _, _, loss) =
    loop (x, v, hist, loss) =
      (replicate m 0.1f32, replicate m 0f32, replicate d (replicate m 0f32), 0f32)
    for t < n do
      let delayed = hist[(t + 1) % d]
      let input = map (\row -> f32.sum (map2 (*) row delayed)) w
      let dv = map3 (\xi vi ii -> p.a * sig (p.g * ii) - 2f32 * p.a * vi - p.a * p.a * xi) x v input
      let x' = map2 (\xi vi -> xi + p.tau * vi) x v
      let v' = map2 (\vi dvi -> vi + p.tau * dvi) v dv
      let hist = hist with [t % d] = map (\xi -> -xi) x'
      let r = f32.sum (map2 (\xi di -> (xi - di) * (xi - di)) x' data[t])
      in (x', v', hist, loss + r)
  in loss

entry network [n] [m] [k] (w: [m][m]f32) (data: [n][m]f32) (as: [k]f32) : ([k]f32, [k]f32) =
  let gs = map (\a -> vjp (network_loss w data) {a, g = 1.5f32, tau = 0.1f32} 1f32) as
  in (map (.a) gs, map (.tau) gs)

-- ==
-- entry: oscillator
-- input { [0.5, 0.2, -0.3, -0.5, 0.1, 0.3, 0.2] [1.0, 2.0] }
-- output { [0.0019897458836550808, 0.002988229498529233] [-0.0015063892468198032, -0.0029789807278741863] }

def oscillator_loss [n] (data: [n]f64) (p: {a: f64, b: f64}) : f64 =
  let d = 3
  let st = loop st = {x = 0.1, v = 0.0, hist = replicate d 0f64, l = 0f64} for t < n do
    let past = st.hist[(t + 1) % d]
    let acc = -p.a * st.x - p.b * st.v + past
    let x = st.x + 0.1 * st.v
    let v = st.v + 0.1 * acc
    in st with x = x with v = v with hist = (st.hist with [t % d] = -x)
          with l = st.l + (x - data[t]) ** 2
  in st.l

entry oscillator [n] [k] (data: [n]f64) (as: [k]f64) : ([k]f64, [k]f64) =
  let gs = map (\a -> vjp (oscillator_loss data) {a, b = 0.5} 1) as
  in (map (.a) gs, map (.b) gs)

-- The losses themselves, for `gradus check` against finite differences.
entry oscillator_at [n] (data: [n]f64) (a: f64) (b: f64) : f64 = oscillator_loss data {a, b}
