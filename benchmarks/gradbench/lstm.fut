-- GradBench `lstm`: ADBench's diagonal LSTM predicting a text, one character per time step
-- as b bits; the loss (`objective`) and its gradient with respect to the parameters by one
-- vjp (`jacobian`: d main_params then d extra_params, each flattened row by row).
--
-- main_params [2l][4b]: row 2i holds layer i's weights, row 2i+1 its biases, each row four
-- length-b blocks (forget, input, output, candidate gates); extra_params [3][b]: input
-- scaling, output scaling, output bias; state [2l][b]: initial hidden (row 2i) and cell
-- (row 2i+1) states of layer i; sequence [c][b].

def sigmoid (x: f64) : f64 = 1 / (1 + f64.exp (-x))

-- One layer, one time step: the new (hidden, cell).
def lstm_cell [b] (w: [4][b]f64) (bias: [4][b]f64) (hidden: [b]f64) (cell: [b]f64) (x: [b]f64)
                  : ([b]f64, [b]f64) =
  let forget = map3 (\xi wf bf -> sigmoid (xi * wf + bf)) x w[0] bias[0]
  let ingate = map3 (\hi wi bi -> sigmoid (hi * wi + bi)) hidden w[1] bias[1]
  let outgate = map3 (\xi wo bo -> sigmoid (xi * wo + bo)) x w[2] bias[2]
  let change = map3 (\hi wg bg -> f64.tanh (hi * wg + bg)) hidden w[3] bias[3]
  let cell' = map4 (\s f i g -> s * f + i * g) cell forget ingate change
  let hidden' = map2 (\o s -> o * f64.tanh s) outgate cell'
  in (hidden', cell')

-- All layers, one time step: the prediction and the new state.
def predict [l2] [b] (main: [l2][4][b]f64) (extra: [3][b]f64) (state: [l2][b]f64) (x: [b]f64)
                     : ([b]f64, [l2][b]f64) =
  let x0 = map2 (*) x extra[0]
  let (state', xl) =
    loop (s, xi) = (copy state, x0) for i < l2 / 2 do
      let (h, c) = lstm_cell main[2 * i] main[2 * i + 1] s[2 * i] s[2 * i + 1] xi
      let s = s with [2 * i] = h
      let s = s with [2 * i + 1] = c
      in (s, h)
  in (map3 (\xi wo bo -> xi * wo + bo) xl extra[1] extra[2], state')

def lstm_loss [l2] [w] [b] [c] (main: [l2][w]f64) (extra: [3][b]f64) (state: [l2][b]f64)
                               (seq: [c][b]f64) : f64 =
  let main4 = map (\row -> unflatten (row :> [4 * b]f64)) main
  let (_, total) =
    loop (s, total) = (state, 0) for t < c - 1 do
      let (y, s') = predict main4 extra s seq[t]
      let lse = f64.log (2 + f64.sum (map f64.exp y))
      in (s', total + f64.sum (map2 (\target yi -> target * (yi - lse)) seq[t + 1] y))
  in -total / (f64.i64 (c - 1) * f64.i64 b)

entry objective [l2] [w] [b] [c] (main_params: [l2][w]f64) (extra_params: [3][b]f64)
                                 (state: [l2][b]f64) (sequence: [c][b]f64) : f64 =
  lstm_loss main_params extra_params state sequence

-- One layer, b = 1, two characters with a zero target: the loss is 0.
-- ==
-- entry: objective
-- input { [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]] [[1.0], [1.0], [0.0]] [[0.0], [0.0]]
--         [[1.0], [0.0]] }
-- output { -0.0 }

entry jacobian [l2] [w] [b] [c] (main_params: [l2][w]f64) (extra_params: [3][b]f64)
                                (state: [l2][b]f64) (sequence: [c][b]f64) : []f64 =
  let (dm, de) = vjp (\(m, e) -> lstm_loss m e state sequence) (main_params, extra_params) 1
  in flatten dm ++ flatten de
