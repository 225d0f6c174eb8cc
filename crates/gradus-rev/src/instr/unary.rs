//! The non-accumulating instructions (docs/reversible.md §Instructions): `SWAP`, `NEG`, `INC`,
//! `DEC`, `FLIP`, `CONJ`, `ROT`, `IROT`. Each is a bijection; on `GVar`s each transforms the value
//! and the gradient as docs/reversible.md §Adjoint rules says.

use crate::scalar::{Arg, RevReal};
use gradus_num::Real;

/// `SWAP(a, b)`: exchange two values (with their gradients). Its own inverse.
#[inline(always)]
pub fn swap<T>(a: &mut T, b: &mut T) {
    std::mem::swap(a, b);
}

/// `NEG(a)`: `a ← −a` (value and gradient). Its own inverse.
#[diagnostic::on_unimplemented(
    message = "GR011: `NEG` is not a reversible instruction on `{Self}`",
    note = "NEG needs a signed number type"
)]
pub trait NegInstr {
    /// `self ← −self`.
    fn neg_instr(&mut self);
}

/// `INC(a)` / `DEC(a)`: `a ← a ± 1` (wrapping for integers; the gradient is unchanged).
#[diagnostic::on_unimplemented(message = "GR011: `INC`/`DEC` is not an instruction on `{Self}`")]
pub trait IncDec {
    /// `self ← self + 1`.
    fn inc(&mut self);
    /// `self ← self − 1`.
    fn dec(&mut self);
}

impl<T: RevReal> NegInstr for T {
    #[inline(always)]
    fn neg_instr(&mut self) {
        let v = self.val();
        *self.val_mut() = -v;
        self.neg_grad();
    }
}
impl<T: RevReal> IncDec for T {
    #[inline(always)]
    fn inc(&mut self) {
        *self.val_mut() += T::Val::one();
    }
    #[inline(always)]
    fn dec(&mut self) {
        *self.val_mut() -= T::Val::one();
    }
}

macro_rules! int_unary {
    (signed $($i:ty),*) => {$(
        impl NegInstr for $i {
            #[inline(always)]
            fn neg_instr(&mut self) { *self = self.wrapping_neg(); }
        }
        int_unary!($i);
    )*};
    ($($i:ty),*) => {$(
        impl IncDec for $i {
            #[inline(always)]
            fn inc(&mut self) { *self = self.wrapping_add(1); }
            #[inline(always)]
            fn dec(&mut self) { *self = self.wrapping_sub(1); }
        }
    )*};
}
int_unary!(signed i8, i16, i32, i64, i128, isize);
int_unary!(u8, u16, u32, u64, u128, usize);

/// `NEG(a)`.
#[inline(always)]
pub fn neg<T: NegInstr>(a: &mut T) {
    a.neg_instr();
}
/// `INC(a)`.
#[inline(always)]
pub fn inc<T: IncDec>(a: &mut T) {
    a.inc();
}
/// `DEC(a)`.
#[inline(always)]
pub fn dec<T: IncDec>(a: &mut T) {
    a.dec();
}
/// `FLIP(b)`: `b ← !b`.
#[inline(always)]
pub fn flip(b: &mut bool) {
    *b = !*b;
}

/// `ROT(a, b, θ)`: `(a, b) ← (a cos θ − b sin θ, a sin θ + b cos θ)`. On `GVar`s the
/// gradients rotate with the values and `θ̄ −= a·b̄ − b·ā` (the inverse of the backward rule
/// of `IROT`, docs/reversible.md §Adjoint rules).
#[inline(always)]
pub fn rot<T: RevReal, A: Arg<Scalar = T>>(a: &mut T, b: &mut T, theta: &mut A) {
    rotate(a, b, theta, false);
}

/// `IROT(a, b, θ)`: rotation by `−θ`; the inverse of [`rot`]. On `GVar`s `θ̄ += a·b̄ − b·ā`.
#[inline(always)]
pub fn irot<T: RevReal, A: Arg<Scalar = T>>(a: &mut T, b: &mut T, theta: &mut A) {
    rotate(a, b, theta, true);
}

#[inline(always)]
fn rotate<T: RevReal, A: Arg<Scalar = T>>(a: &mut T, b: &mut T, theta: &mut A, inverse: bool) {
    let t = theta.get();
    let (c, s) = (t.cos(), if inverse { -t.sin() } else { t.sin() });
    let (x, y) = (a.val(), b.val());
    let (nx, ny) = (c * x - s * y, s * x + c * y);
    *a.val_mut() = nx;
    *b.val_mut() = ny;
    if T::HAS_GRAD {
        T::rot_grad(a, b, c, s);
        // θ̄ ∓= a·b̄ − b·ā (the cross product is invariant under the rotation).
        if inverse {
            theta.pull(b, nx);
            theta.pull(a, -ny);
        } else {
            theta.pull(b, -nx);
            theta.pull(a, ny);
        }
    }
}
