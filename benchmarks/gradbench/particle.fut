-- GradBench `particle` (Siskind and Pearlmutter): a charged particle starts at (0, 8) with
-- velocity (0.75, 0) and moves in the field of two unit charges at (10, 10 - w) and (10, 0);
-- its path is integrated by Euler's method (time step 0.1, the acceleration being minus the
-- gradient of the potential, an inner derivative) until it crosses the x axis, where linear
-- interpolation gives the crossing point x_f. The control w is found by gradient descent on
-- x_f², starting at the given w: an outer derivative through a while loop that takes inner
-- derivatives. The four entries differ in the mode of the outer (first letter) and inner
-- (second letter) derivatives: forward (jvp) or reverse (vjp).

type v2 = (f64, f64)

def potential (w: f64) (x: v2) : f64 =
  let dist (c: v2) = f64.sqrt ((x.0 - c.0) * (x.0 - c.0) + (x.1 - c.1) * (x.1 - c.1))
  in 1 / dist (10, 10 - w) + 1 / dist (10, 0)

def grad_fwd (h: v2 -> f64) (x: v2) : v2 = (jvp h x (1, 0), jvp h x (0, 1))

def grad_rev (h: v2 -> f64) (x: v2) : v2 = vjp h x 1

-- x_f² for the control w, the gradient of the potential taken with `inner`.
def naive_euler (inner: (v2 -> f64) -> v2 -> v2) (w: f64) : f64 =
  let dt = 0.1
  let (_, _, result, _) =
    loop (x, xdot, result, done) = ((0f64, 8f64), (0.75f64, 0f64), 0f64, false) while !done do
      let g = inner (potential w) x
      let xddot = (-g.0, -g.1)
      let x' = (x.0 + dt * xdot.0, x.1 + dt * xdot.1)
      in if x'.1 < 0 then
           let dt_f = -x.1 / xdot.1
           let x_f = x.0 + dt_f * xdot.0
           in (x, xdot, x_f * x_f, true)
         else (x', (xdot.0 + dt * xddot.0, xdot.1 + dt * xddot.1), result, false)
  in result

-- One-dimensional gradient descent with an adaptive step: the step grows after ten accepted
-- steps in a row and shrinks after a rejected one; stops when the derivative or the step is
-- small.
def argmin (obj: f64 -> f64) (deriv: f64 -> f64) (x0: f64) : f64 =
  let (x, _, _, _, _, _) =
    loop (x, fx, gx, eta, i, done) = (x0, obj x0, deriv x0, 1e-5f64, 0i64, false) while !done do
      if f64.abs gx <= 1e-5 then (x, fx, gx, eta, i, true)
      else if i == 10 then (x, fx, gx, eta * 2, 0, false)
      else
        let x' = x - eta * gx
        in if f64.abs (x - x') <= 1e-5 then (x, fx, gx, eta, i, true)
           else let fx' = obj x'
                in if fx' < fx then (x', fx', deriv x', eta, i + 1, false)
                   else (x, fx, gx, eta / 2, 0, false)
  in x

def deriv_fwd (h: f64 -> f64) (w: f64) : f64 = jvp h w 1

def deriv_rev (h: f64 -> f64) (w: f64) : f64 = vjp h w 1

def particle (outer: (f64 -> f64) -> f64 -> f64) (inner: (v2 -> f64) -> v2 -> v2) (w0: f64) : f64 =
  let obj = naive_euler inner
  in argmin obj (outer obj) w0

entry ff (w: f64) : f64 = particle deriv_fwd grad_fwd w
entry fr (w: f64) : f64 = particle deriv_fwd grad_rev w
entry rf (w: f64) : f64 = particle deriv_rev grad_fwd w
entry rr (w: f64) : f64 = particle deriv_rev grad_rev w

-- ==
-- entry: ff fr rf rr
-- input { 0.0 }
-- output { 0.2071918746486116 }
