-- ADBench D-LSTM: a diagonal LSTM predicting a bit sequence (benchmarks/README.md §LSTM), its
-- loss and the gradient with respect to the weights.
--
-- Inputs: main [2l][4b] (row 2i: layer i's weights, row 2i+1: its biases, each row four
-- length-b blocks in the gate order forget, input, output, candidate), extra [3][b] (input
-- scaling, output scaling, output bias), state [2l][b] (initial hidden and cell states, rows
-- 2i and 2i+1), seq [c][b] (the text, one character per row as b bits).

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

-- ==
-- entry: objective
-- input @ data/lstm_l2_c1024.in.gz
-- output { 6.666651796e-01 }

entry objective [l2] [w] [b] [c] (main: [l2][w]f64) (extra: [3][b]f64) (state: [l2][b]f64)
                                 (seq: [c][b]f64) : f64 =
  lstm_loss main extra state seq

-- The gradient by one vjp: d main [2l][4b], then d extra [3][b] (flattened and concatenated,
-- ADBench's 8lb + 3b vector).
entry gradient [l2] [w] [b] [c] (main: [l2][w]f64) (extra: [3][b]f64) (state: [l2][b]f64)
                                (seq: [c][b]f64) : ([l2][w]f64, [3][b]f64) =
  vjp (\(m, e) -> lstm_loss m e state seq) (main, extra) 1

-- The derivative in one direction (forward mode).
entry directional [l2] [w] [b] [c] (main: [l2][w]f64) (extra: [3][b]f64) (state: [l2][b]f64)
                                   (seq: [c][b]f64) (dmain: [l2][w]f64) (dextra: [3][b]f64)
                                   : f64 =
  jvp (\(m, e) -> lstm_loss m e state seq) (main, extra) (dmain, dextra)

-- The whole gradient by forward mode, one jvp per weight (8lb + 3b passes).
entry gradient_fwd [l2] [w] [b] [c] (main: [l2][w]f64) (extra: [3][b]f64) (state: [l2][b]f64)
                                    (seq: [c][b]f64) : ([l2][w]f64, [3][b]f64) =
  let f = \(m, e) -> lstm_loss m e state seq
  let zm = replicate l2 (replicate w 0f64)
  let ze = replicate 3 (replicate b 0f64)
  in (tabulate_2d l2 w (\i j -> jvp f (main, extra) (copy zm with [i, j] = 1, ze)),
      tabulate_2d 3 b (\i j -> jvp f (main, extra) (zm, copy ze with [i, j] = 1)))

-- ==
-- entry: gradient_summary
-- input @ data/lstm_l2_c1024.in.gz
-- output { [[8.950566563e-06, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, -1.736839660e-04, -3.219795644e-04,
--            7.719255477e-06, -2.988072241e-05, -1.117388545e-05, -2.925054119e-06,
--            -2.041872813e-06],
--           [1.140427482e-02, 9.939473891e-03, 4.538767974e-03, 1.467535851e-03, 1.595785016e-02,
--            7.132159961e-03, 2.521206444e-03, -1.799902398e-02, -2.626596141e-02, 2.442939921e-03,
--            -3.670747149e-03, -1.314444811e-02, -4.549998920e-03, -1.092709838e-02],
--           [2.173486628e-02, 1.828573755e-02, 1.118874419e-02, 8.976729200e-03, 2.398538932e-02,
--            1.208003752e-02, 1.486387886e-02, -3.023246901e-02, -5.001167754e-02, 4.466209428e-03,
--            -5.236024060e-03, -1.793162852e-02, -7.731671065e-03, -2.002256909e-02]]
--          -3.819500097e-02 5.504392892e-01 9.474138011e-02 }

-- The extra part of the gradient and the sum, sum of magnitudes and Euclidean norm of the
-- whole gradient (the reference values give these in full).
entry gradient_summary [l2] [w] [b] [c] (main: [l2][w]f64) (extra: [3][b]f64)
                                        (state: [l2][b]f64) (seq: [c][b]f64)
                                        : ([3][b]f64, f64, f64, f64) =
  let (dm, de) = gradient main extra state seq
  let all = flatten dm ++ flatten de
  in (de, f64.sum all, f64.sum (map f64.abs all), f64.sqrt (f64.sum (map (\g -> g * g) all)))
