//! Complex numbers (docs/reversible.md §Numeric types): `num_complex::Complex<T>` with `T:
//! RevReal`.
//!
//! Complex instructions act on the real and imaginary parts with the real rules, so the
//! adjoint of `Complex<T>` is `Complex<GVar<T>>`, and a gradient with respect to `z = x + iy`
//! is returned as `Complex { re: ∂L/∂x, im: ∂L/∂y }`. For a holomorphic `f` with
//! `f′(w) = p + iq`, the backward rule of `y += f(w)` is `w̄.re += ȳ.re p + ȳ.im q`,
//! `w̄.im += −ȳ.re q + ȳ.im p`.

use crate::instr::acc::{Acc1, Acc2};
use crate::instr::prim::{Abs, Add, Div, Exp, Id, Ln, Mul, NormSqr, Phase, Sub};
use crate::instr::unary::NegInstr;
use crate::scalar::{Const, Release, RevReal};
use gradus_num::Real;
pub use num_complex::Complex;

type C<V> = (V, V);

#[inline(always)]
fn cmul<V: Real>(a: C<V>, b: C<V>) -> C<V> {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
#[inline(always)]
fn cdiv<V: Real>(a: C<V>, b: C<V>) -> C<V> {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}

/// A complex read argument.
pub trait CArg<T: RevReal> {
    /// The value `(re, im)`.
    fn get(&self) -> C<T::Val>;
    /// `re.grad += k · src.grad`.
    fn pull_re(&mut self, src: &T, k: T::Val);
    /// `im.grad += k · src.grad`.
    fn pull_im(&mut self, src: &T, k: T::Val);
}
impl<T: RevReal> CArg<T> for Complex<T> {
    #[inline(always)]
    fn get(&self) -> C<T::Val> {
        (self.re.val(), self.im.val())
    }
    #[inline(always)]
    fn pull_re(&mut self, src: &T, k: T::Val) {
        self.re.pull(src, k)
    }
    #[inline(always)]
    fn pull_im(&mut self, src: &T, k: T::Val) {
        self.im.pull(src, k)
    }
}
impl<T: RevReal> CArg<T> for Const<Complex<T>> {
    #[inline(always)]
    fn get(&self) -> C<T::Val> {
        (self.0.re.val(), self.0.im.val())
    }
    #[inline(always)]
    fn pull_re(&mut self, _: &T, _: T::Val) {}
    #[inline(always)]
    fn pull_im(&mut self, _: &T, _: T::Val) {}
}

/// `y ± f(w)` with `f(w) = v` and `f′(w) = d`; `sign = 1` for `+=`.
#[inline(always)]
fn holo_acc<T: RevReal, A: CArg<T>>(
    y: &mut Complex<T>,
    w: &mut A,
    v: C<T::Val>,
    d: C<T::Val>,
    add: bool,
) {
    if add {
        *y.re.val_mut() += v.0;
        *y.im.val_mut() += v.1;
    } else {
        *y.re.val_mut() -= v.0;
        *y.im.val_mut() -= v.1;
    }
    if T::HAS_GRAD {
        let (p, q) = if add { (-d.0, -d.1) } else { d };
        w.pull_re(&y.re, p);
        w.pull_re(&y.im, q);
        w.pull_im(&y.re, -q);
        w.pull_im(&y.im, p);
    }
}

macro_rules! complex_unary {
    ($($p:ident => |$w:ident| $body:expr;)*) => {$(
        impl<T: RevReal, A: CArg<T>> Acc1<Complex<T>, A> for $p {
            #[inline(always)]
            fn add(y: &mut Complex<T>, a: &mut A) {
                let $w = a.get();
                let (v, d): (C<T::Val>, C<T::Val>) = $body;
                holo_acc(y, a, v, d, true);
            }
            #[inline(always)]
            fn sub(y: &mut Complex<T>, a: &mut A) {
                let $w = a.get();
                let (v, d): (C<T::Val>, C<T::Val>) = $body;
                holo_acc(y, a, v, d, false);
            }
        }
    )*};
}
complex_unary! {
    Id => |w| (w, (T::Val::one(), T::Val::zero()));
    Exp => |w| {
        let e = w.0.exp();
        let v = (e * w.1.cos(), e * w.1.sin());
        (v, v)
    };
    Ln => |w| {
        let v = (w.0.hypot(w.1).ln(), w.1.atan2(w.0));
        (v, cdiv((T::Val::one(), T::Val::zero()), w))
    };
}

macro_rules! complex_binary {
    ($($p:ident => |$a:ident, $b:ident| $body:expr;)*) => {$(
        impl<T: RevReal, A: CArg<T>, B: CArg<T>> Acc2<Complex<T>, A, B> for $p {
            #[inline(always)]
            fn add(y: &mut Complex<T>, a: &mut A, b: &mut B) {
                let ($a, $b) = (a.get(), b.get());
                let (v, da, db): (C<T::Val>, C<T::Val>, C<T::Val>) = $body;
                holo_acc(y, a, v, da, true);
                if T::HAS_GRAD { holo_grad(y, b, db, true); }
            }
            #[inline(always)]
            fn sub(y: &mut Complex<T>, a: &mut A, b: &mut B) {
                let ($a, $b) = (a.get(), b.get());
                let (v, da, db): (C<T::Val>, C<T::Val>, C<T::Val>) = $body;
                holo_acc(y, a, v, da, false);
                if T::HAS_GRAD { holo_grad(y, b, db, false); }
            }
        }
    )*};
}

#[inline(always)]
fn holo_grad<T: RevReal, A: CArg<T>>(y: &Complex<T>, w: &mut A, d: C<T::Val>, add: bool) {
    let (p, q) = if add { (-d.0, -d.1) } else { d };
    w.pull_re(&y.re, p);
    w.pull_re(&y.im, q);
    w.pull_im(&y.re, -q);
    w.pull_im(&y.im, p);
}

complex_binary! {
    Add => |a, b| {
        let (o, z) = (T::Val::one(), T::Val::zero());
        ((a.0 + b.0, a.1 + b.1), (o, z), (o, z))
    };
    Sub => |a, b| {
        let (o, z) = (T::Val::one(), T::Val::zero());
        ((a.0 - b.0, a.1 - b.1), (o, z), (-o, z))
    };
    Mul => |a, b| (cmul(a, b), b, a);
    Div => |a, b| {
        let v = cdiv(a, b);
        let inv_b = cdiv((T::Val::one(), T::Val::zero()), b);
        (v, inv_b, {
            let t = cmul(v, inv_b);
            (-t.0, -t.1)
        })
    };
}

/// Real-valued functions of a complex argument: value and `(∂f/∂re, ∂f/∂im)`.
macro_rules! complex_to_real {
    ($($p:ident => |$w:ident| $body:expr;)*) => {$(
        complex_to_real!(@one $p, Complex<T>, |$w| $body);
        complex_to_real!(@one $p, Const<Complex<T>>, |$w| $body);
    )*};
    (@one $p:ident, $a:ty, |$w:ident| $body:expr) => {
        impl<T: RevReal> Acc1<T, $a> for $p {
            #[inline(always)]
            fn add(y: &mut T, a: &mut $a) {
                let $w = CArg::<T>::get(a);
                let (v, dr, di): (T::Val, T::Val, T::Val) = $body;
                *y.val_mut() += v;
                if T::HAS_GRAD {
                    a.pull_re(y, -dr);
                    a.pull_im(y, -di);
                }
            }
            #[inline(always)]
            fn sub(y: &mut T, a: &mut $a) {
                let $w = CArg::<T>::get(a);
                let (v, dr, di): (T::Val, T::Val, T::Val) = $body;
                *y.val_mut() -= v;
                if T::HAS_GRAD {
                    a.pull_re(y, dr);
                    a.pull_im(y, di);
                }
            }
        }
    };
}
complex_to_real! {
    Abs => |w| {
        let h = w.0.hypot(w.1);
        if h == T::Val::zero() {
            (h, h, h)
        } else {
            (h, w.0 / h, w.1 / h)
        }
    };
    Phase => |w| {
        let h2 = w.0 * w.0 + w.1 * w.1;
        let v = w.1.atan2(w.0);
        if h2 == T::Val::zero() {
            (v, h2, h2)
        } else {
            (v, -w.1 / h2, w.0 / h2)
        }
    };
    NormSqr => |w| {
        let two = T::Val::from_f64(2.0);
        (w.0 * w.0 + w.1 * w.1, two * w.0, two * w.1)
    };
}

impl<T: NegInstr> NegInstr for Complex<T> {
    #[inline(always)]
    fn neg_instr(&mut self) {
        self.re.neg_instr();
        self.im.neg_instr();
    }
}

/// `CONJ(z)`: `z ← conj(z)` (negates `im`, value and gradient). Its own inverse.
#[inline(always)]
pub fn conj<T: NegInstr>(z: &mut Complex<T>) {
    z.im.neg_instr();
}

impl<T: Release> Release for Complex<T> {
    fn release_matches(&self, e: &Self, atol: f64) -> bool {
        self.re.release_matches(&e.re, atol) && self.im.release_matches(&e.im, atol)
    }
    fn release_tolerance(&self, atol: f64) -> f64 {
        self.re.release_tolerance(atol)
    }
}

/// The complex number `re + i·im` of a scalar type.
#[inline]
pub fn complex<T: RevReal>(re: f64, im: f64) -> Complex<T> {
    Complex::new(T::from_f64(re), T::from_f64(im))
}
