-- GradBench `ode` (cmpad's an_ode): y(2) for y₀' = x₀, yᵢ' = xᵢ yᵢ₋₁, y(0) = 0, by s steps of
-- the classical Runge-Kutta method (`primal`), and the gradient of its last element with
-- respect to x (`gradient`).

def ode_fun [n] (x: [n]f64) (y: [n]f64) : [n]f64 =
  tabulate n (\i -> if i == 0 then x[0] else x[i] * y[i - 1])

def rk4 [n] (s: i64) (x: [n]f64) : [n]f64 =
  let h = 2 / f64.i64 s
  in loop y = replicate n 0 for _step < s do
       let k1 = ode_fun x y
       let k2 = ode_fun x (map2 (\yi k -> yi + h * k / 2) y k1)
       let k3 = ode_fun x (map2 (\yi k -> yi + h * k / 2) y k2)
       let k4 = ode_fun x (map2 (\yi k -> yi + h * k) y k3)
       in map5 (\yi a b c d -> yi + h * (a + 2 * b + 2 * c + d) / 6) y k1 k2 k3 k4

entry primal [n] (x: [n]f64) (s: i64) : [n]f64 = rk4 s x

-- ==
-- entry: primal
-- input { [1.0, 1.0] 1i64 }
-- output { [2.0, 2.0] }

entry gradient [n] (x: [n]f64) (s: i64) : [n]f64 =
  vjp (rk4 s) x (tabulate n (\i -> f64.bool (i == n - 1)))

-- ==
-- entry: gradient
-- input { [1.0, 1.0] 1i64 }
-- output { [2.0, 2.0] }
