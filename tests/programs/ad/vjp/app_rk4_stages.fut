-- Classical Runge-Kutta steps for y0' = x0, yi' = xi y(i-1) (GradBench's ode with a given initial
-- state): each stage reads the previous one at the previous row, and the return sweep splits the
-- scalings of one cotangent among the stages' adjoints.

def ode_fun [n] (x: [n]f64) (y: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1])

def rk4 [n] (s: i64) (x: [n]f64) (y0: [n]f64) : [n]f64 =
  let h = 2 / f64.i64 s
  in loop y = y0 for _step < s do
       let k1 = ode_fun x y
       let k2 = ode_fun x (map2 (\yi k -> yi + h * k / 2) y k1)
       let k3 = ode_fun x (map2 (\yi k -> yi + h * k / 2) y k2)
       let k4 = ode_fun x (map2 (\yi k -> yi + h * k) y k3)
       in map5 (\yi a b c d -> yi + h * (a + 2 * b + 2 * c + d) / 6) y k1 k2 k3 k4

-- ==
-- entry: final
-- input { [0.5, -1.25, 2.0, 0.75, -0.3] [0.1, 0.2, -0.4, 0.3, 1.5] 3i64 }
-- output { [1.0999999999999999, -1.2999999999999998, -1.7666666666666662, -0.575, 1.4915740740740742] }
-- input { [1.5, 0.25, -0.5, 1.0, 2.0, -1.0, 0.6] [1.0, -1.0, 0.5, 0.25, -0.125, 2.0, 0.3] 4i64 }
-- output { [4.0, 0.25, 1.0, 1.958333333333333, 3.942057291666666, -0.6508789062499999, 1.9091308593750003] }
entry final [n] (x: [n]f64) (y0: [n]f64) (s: i64) : [n]f64 = rk4 s x y0

-- ==
-- entry: grad
-- input { [0.5, -1.25, 2.0, 0.75, -0.3] [0.1, 0.2, -0.4, 0.3, 1.5] 3i64 }
-- output { [-17.259259259259256, 9.953703703703702, -2.6210648148148143, -3.522839506172839, 0.14043209876543195] [-27.124999999999996, 22.999999999999996, 6.750000000000001, 0.9999999999999999, 5.0] }
-- input { [1.5, 0.25, -0.5, 1.0, 2.0, -1.0, 0.6] [1.0, -1.0, 0.5, 0.25, -0.125, 2.0, 0.3] 4i64 }
-- output { [1.9907877604166664, -3.0951171874999996, -10.554524739583336, 6.977262369791667, -1.8280354817708324, 21.441357421874997, 18.773193359375] [0.24003906249999968, -6.551041666666667, 9.400000000000002, -11.199999999999998, -15.399999999999999, 14.399999999999993, 7.0] }
entry grad [n] (x: [n]f64) (y0: [n]f64) (s: i64) : ([n]f64, [n]f64) =
  vjp (\(x, y0) -> rk4 s x y0) (x, y0) (tabulate n (\i -> f64.i64 (i + 1)))
