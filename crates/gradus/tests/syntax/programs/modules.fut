-- The module system.
import "lib/linalg"
module type ring = { type t  val zero : t  val + : t -> t -> t  val * : t -> t -> t }
module poly (R: ring) = {
  type t = R.t
  def eval [n] (cs: [n]t) (x: t) : t =
    loop acc = R.zero for c in reverse cs do R.(acc * x + c)
}
module poly64 = poly { type t = f64  def zero = 0f64  def (+) = (f64.+)  def (*) = (f64.*) }
entry p (x: f64) = poly64.eval [1, 2, 3] x
module type space = {
  type scalar
  type^ fn 'a
  val dot [n] : [n]scalar -> [n]scalar -> scalar
  val (<>) : scalar -> scalar
  module inner : ring
  include ring
}
module mk_space (R: real) : space with scalar = R.t = { open R }
module F (A: ring) (B: ring) = { local def x = 1 }
module G = F X Y
module L = import "linalg"
module H = (\(P: ring) : ring -> P) X
module type functor = (P: ring) -> ring
open import "other"
local open M
def qual = (M.N.x, f64.i64 3, M.(1 + 2), a.b.c.0)
open M
import "after_open"
module K = F (import "arg")
