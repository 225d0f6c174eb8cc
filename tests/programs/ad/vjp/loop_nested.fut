-- Nested for loops: an inner loop over a row, the outer loop over rows, with carried state.

-- ==
-- entry: grid
-- input { [[0.02, 0.9, -0.71], [0.9, -0.38, -0.15], [0.66, -0.18, 0.1]] }
-- output { [[0.017218688400000008, 0.9619082100000003, 0.8853510600000002], [0.9619082100000003, -0.4986360000000001, -0.29322000000000004], [-0.9524231100000001, -0.24435, 0.2]] }
-- input { [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]] }
-- output { [[0.8609344200000003, 4.275147600000001, 9.390087000000001], [2.1375738000000006, 6.561000000000002, 13.032], [4.024323000000001, 9.774000000000001, 18.0]] }
entry grid (m: [3][3]f64) = vjp (\a -> loop s = 0 for i < 3 do loop t = s for j < 3 do t * 0.9 + a[i, j] * a[j, i]) m 1

-- ==
-- entry: powers
-- input { 2.0 }
-- output { 17.0 }
-- input { -1.0 }
-- output { 2.0 }
-- input { 0.0 }
-- output { 1.0 }
entry powers (x: f64) = vjp (\t -> loop s = 0 for i < 4 do s + (loop p = 1 for _j < i do p * t)) x 1

-- ==
-- entry: matpow
-- input { [[-0.48, -0.4], [0.63, -0.82]] }
-- output { [[0.3951999999999999, -3.0002], [2.568, 3.6223999999999994]] }
entry matpow (m: [2][2]f64) = vjp (\a ->
    let r = loop r = [[1.0, 0.0], [0.0, 1.0]] for _k < 3 do
              tabulate_2d 2 2 (\i j -> loop s = 0 for l < 2 do s + r[i, l] * a[l, j])
    in r[0, 0] + r[1, 1] * 2 + r[0, 1]) m 1
