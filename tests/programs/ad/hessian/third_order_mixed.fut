-- Third-order mixed nesting on arrays: jvp of vjp of jvp gives a contraction of the third
-- derivative tensor, T[u, v, .], for f(x) = sum(x)^2 * prod(exp x).

def f [n] (x: [n]f64) : f64 = let s = f64.sum x in s * s * f64.exp s

-- ==
-- entry: t3
-- input { [0.1, 0.2, 0.3] [1.0, 0.0, 0.0] [0.0, 1.0, 0.0] }
-- output { [18.14830325188947, 18.14830325188947, 18.14830325188947] }
-- input { [0.5, -0.5] [1.0, 2.0] [-1.0, 1.0] }
-- output { [0.0, 0.0] }
entry t3 [n] (x: [n]f64) (u: [n]f64) (v: [n]f64) = jvp (\a -> vjp (\b -> jvp f b u) a 1) x v
