//! The instruction set: primitives ([`prim`]), accumulating instructions ([`acc`]) and the
//! non-accumulating ones ([`unary`]). Complex, logarithmic and fixed-point implementations
//! live beside their types (`complex.rs`, `ulog.rs`, `fixed.rs`).

pub mod acc;
pub mod prim;
pub mod unary;

pub use acc::{Acc1, Acc2, IntOps, MulAcc1, MulAcc2, Xor1, Xor2};
pub use prim::*;
pub use unary::{IncDec, NegInstr, dec, flip, inc, irot, neg, rot, swap};
