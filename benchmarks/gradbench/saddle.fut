-- GradBench `saddle`: the saddle point min_p max_q f(p, q) of
-- f(p, q) = (p₀² + p₁²) - (q₀² + q₁²) by nested gradient descent, every descent starting at
-- the given point: p* = argmin_p max_q f(p, q), then q* = argmax_q f(p*, q); the result is
-- p* and q* concatenated. The gradient of the outer objective differentiates through the
-- inner descent (a while loop that itself takes gradients): nested AD. The four entries
-- differ in the mode of the outer (first letter) and inner (second letter) derivatives:
-- forward (jvp, one per coordinate) or reverse (vjp).

type v2 = (f64, f64)

def f (p: v2) (q: v2) : f64 = (p.0 * p.0 + p.1 * p.1) - (q.0 * q.0 + q.1 * q.1)

-- Gradient descent with an adaptive step: the step grows after ten accepted steps in a row
-- and shrinks after a rejected one; stops when the gradient or the step is small.
def argmin (obj: v2 -> f64) (grad: v2 -> v2) (x0: v2) : v2 =
  let (x, _, _, _, _, _) =
    loop (x, fx, gx, eta, i, done) = (x0, obj x0, grad x0, 1e-5f64, 0i64, false) while !done do
      if f64.sqrt (gx.0 * gx.0 + gx.1 * gx.1) <= 1e-5 then (x, fx, gx, eta, i, true)
      else if i == 10 then (x, fx, gx, eta * 2, 0, false)
      else
        let x' = (x.0 - eta * gx.0, x.1 - eta * gx.1)
        let dx = (x.0 - x'.0, x.1 - x'.1)
        in if f64.sqrt (dx.0 * dx.0 + dx.1 * dx.1) <= 1e-5 then (x, fx, gx, eta, i, true)
           else let fx' = obj x'
                in if fx' < fx then (x', fx', grad x', eta, i + 1, false)
                   else (x, fx, gx, eta / 2, 0, false)
  in x

def argmax (obj: v2 -> f64) (grad: v2 -> v2) (x0: v2) : v2 =
  argmin (\x -> -(obj x)) (\x -> let g = grad x in (-g.0, -g.1)) x0

def grad_fwd (h: v2 -> f64) (x: v2) : v2 = (jvp h x (1, 0), jvp h x (0, 1))

def grad_rev (h: v2 -> f64) (x: v2) : v2 = vjp h x 1

-- The inner maximum max_q f(p, q), the inner gradient taken with `inner`.
def inner_max (inner: (v2 -> f64) -> v2 -> v2) (start: v2) (p: v2) : f64 =
  let q = argmax (f p) (inner (f p)) start
  in f p q

def saddle (outer: (v2 -> f64) -> v2 -> v2) (inner: (v2 -> f64) -> v2 -> v2) (start: v2) : [4]f64 =
  let obj = inner_max inner start
  let p = argmin obj (outer obj) start
  let q = argmax (f p) (outer (f p)) start
  in [p.0, p.1, q.0, q.1]

entry ff (start: [2]f64) : [4]f64 = saddle grad_fwd grad_fwd (start[0], start[1])
entry fr (start: [2]f64) : [4]f64 = saddle grad_fwd grad_rev (start[0], start[1])
entry rf (start: [2]f64) : [4]f64 = saddle grad_rev grad_fwd (start[0], start[1])
entry rr (start: [2]f64) : [4]f64 = saddle grad_rev grad_rev (start[0], start[1])

-- ==
-- entry: ff fr rf rr
-- input { [1.0, 1.0] }
-- output { [8.246324826140356e-06, 8.246324826140356e-06, 8.246324826140356e-06,
--           8.246324826140356e-06] }
