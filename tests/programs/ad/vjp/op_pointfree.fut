-- Point-free and partially applied vjp: `entry grad = vjp f`, a gradient function passed to map.

def f (x: f64) : f64 = x * x * f64.exp x

-- ==
-- entry: grad
-- input { 1.0 1.0 }
-- output { 8.154845485377136 }
-- input { -2.0 3.0 }
-- output { 0.0 }
entry grad : f64 -> f64 -> f64 = vjp f

def gradient = \x -> vjp f x 1

-- ==
-- entry: per_element
-- input { [0.0, 1.0, -1.0, 0.5] }
-- output { [0.0, 8.154845485377136, -0.36787944117144233, 2.0609015883751605] }
entry per_element (xs: [4]f64) = map gradient xs

-- ==
-- entry: composed
-- input { [0.5, 2.0, -3.0] }
-- output { [2.0609015883751605, 59.1124487914452, 0.14936120510359183] }
entry composed (xs: [3]f64) = vjp (map f >-> f64.sum) xs 1
