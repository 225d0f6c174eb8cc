-- Records with array fields as inputs, outputs and seeds of vjp and mjp.

type params = {w: [3]f64, b: f64}

def model (p: params) : {y: f64, r: f64} =
  let s = f64.sum (map (\t -> t * t) p.w) + p.b
  in {y = f64.tanh s, r = p.b * p.w[0]}

-- ==
-- entry: grad
-- input { [0.1, 0.2, -0.3] 0.5 1.0 0.0 }
-- output { [0.136177699038827, 0.272355398077654, -0.40853309711648095] 0.680888495194135 }
-- input { [0.1, 0.2, -0.3] 0.5 2.0 -1.0 }
-- output { [-0.22764460192234595, 0.544710796155308, -0.8170661942329619] 1.2617769903882698 }
entry grad (w: [3]f64) (b: f64) (yb: f64) (rb: f64) =
  let g = vjp model {w = w, b = b} {y = yb, r = rb}
  in (g.w, g.b)

-- ==
-- entry: batch
-- input { [0.1, 0.2, -0.3] 0.5 }
-- output { [[0.136177699038827, 0.272355398077654, -0.40853309711648095], [0.5, 0.0, 0.0]] [0.680888495194135, 0.1] }
entry batch (w: [3]f64) (b: f64) =
  let gs = mjp model {w = w, b = b} [{y = 1, r = 0}, {y = 0, r = 1}]
  in (map (.w) gs, map (.b) gs)
