-- An interpreter for arithmetic expressions stored as an array of sum-typed nodes, evaluated
-- by a loop over the nodes (each node refers to earlier ones by index), and differentiated
-- with `vjp` and `jvp` with respect to the variables' values and to the constants.
--
-- The expression used by the cases is ((sin (x * y)) + 2.5 * x) * x, whose derivatives are
-- d/dx = sin(xy) + xy cos(xy) + 5x, d/dy = x² cos(xy), and d/d(2.5) = x²; the expected
-- values were computed from these formulas with Python's math module.
type node = #const f64 | #var i64 | #add i64 i64 | #mul i64 i64 | #sin i64

-- Entry points cannot take sums, so the nodes come encoded as arrays: a kind (0 constant,
-- 1 variable, 2 sum, 3 product, 4 sine), two operand indices and a constant.
def decode (k: i64) (a: i64) (b: i64) (c: f64) : node =
  match k
  case 0 -> #const c
  case 1 -> #var a
  case 2 -> #add a b
  case 3 -> #mul a b
  case _ -> #sin a

def eval [n] [m] (nodes: [n]node) (vars: [m]f64) : f64 =
  let vals =
    loop vals = replicate n 0f64 for i < n do
      let v =
        match nodes[i]
        case #const c -> c
        case #var j -> vars[j]
        case #add a b -> vals[a] + vals[b]
        case #mul a b -> vals[a] * vals[b]
        case #sin a -> f64.sin vals[a]
      in vals with [i] = v
  in vals[n - 1]

def nodes_of [n] (ks: [n]i64) (as: [n]i64) (bs: [n]i64) (cs: [n]f64) : [n]node =
  map4 decode ks as bs cs

-- ==
-- entry: value
-- input { [1i64, 1, 3, 4, 0, 3, 2, 3] [0i64, 1, 0, 2, 0, 0, 3, 6] [0i64, 0, 1, 0, 0, 4, 5, 0]
--         [1.0, 1.0, 1.0, 1.0, 2.5, 1.0, 1.0, 1.0] [0.5, 1.5] }
-- output { 0.965819380011667 }
-- input { [1i64, 1, 3, 4, 0, 3, 2, 3] [0i64, 1, 0, 2, 0, 0, 3, 6] [0i64, 0, 1, 0, 0, 4, 5, 0]
--         [1.0, 1.0, 1.0, 1.0, 2.5, 1.0, 1.0, 1.0] [-1.25, 2.0] }
-- output { 4.654340180129946 }

entry value [n] [m] (ks: [n]i64) (as: [n]i64) (bs: [n]i64) (cs: [n]f64) (vars: [m]f64) =
  eval (nodes_of ks as bs cs) vars

-- ==
-- entry: gradient
-- input { [1i64, 1, 3, 4, 0, 3, 2, 3] [0i64, 1, 0, 2, 0, 0, 3, 6] [0i64, 0, 1, 0, 0, 4, 5, 0]
--         [1.0, 1.0, 1.0, 1.0, 2.5, 1.0, 1.0, 1.0] [0.5, 1.5] }
-- output { [3.7304054116786998, 0.18292221721845522] }
-- input { [1i64, 1, 3, 4, 0, 3, 2, 3] [0i64, 1, 0, 2, 0, 0, 3, 6] [0i64, 0, 1, 0, 0, 4, 5, 0]
--         [1.0, 1.0, 1.0, 1.0, 2.5, 1.0, 1.0, 1.0] [-1.25, 2.0] }
-- output { [-4.845613105236622, -1.251786899292084] }

entry gradient [n] [m] (ks: [n]i64) (as: [n]i64) (bs: [n]i64) (cs: [n]f64) (vars: [m]f64) =
  let nodes = nodes_of ks as bs cs
  in vjp (eval nodes) vars 1

-- The derivative with respect to the constants goes through the construction of the nodes
-- (`#const c`) as well: only the node holding 2.5 has a non-zero one.
-- ==
-- entry: constant_gradient
-- input { [1i64, 1, 3, 4, 0, 3, 2, 3] [0i64, 1, 0, 2, 0, 0, 3, 6] [0i64, 0, 1, 0, 0, 4, 5, 0]
--         [1.0, 1.0, 1.0, 1.0, 2.5, 1.0, 1.0, 1.0] [0.5, 1.5] }
-- output { [0.0, 0.0, 0.0, 0.0, 0.25, 0.0, 0.0, 0.0] }

entry constant_gradient [n] [m] (ks: [n]i64) (as: [n]i64) (bs: [n]i64) (cs: [n]f64) (vars: [m]f64) =
  vjp (\cs' -> eval (nodes_of ks as bs cs') vars) cs 1

-- ==
-- entry: directional
-- input { [1i64, 1, 3, 4, 0, 3, 2, 3] [0i64, 1, 0, 2, 0, 0, 3, 6] [0i64, 0, 1, 0, 0, 4, 5, 0]
--         [1.0, 1.0, 1.0, 1.0, 2.5, 1.0, 1.0, 1.0] [0.5, 1.5] }
-- output { 3.3645609772417894 }

entry directional [n] [m] (ks: [n]i64) (as: [n]i64) (bs: [n]i64) (cs: [n]f64) (vars: [m]f64) =
  jvp (eval (nodes_of ks as bs cs)) vars (map (\i -> if i == 0 then 1 else -2) (indices vars))
