//! The Bessel function `J_ν(z)` of integer order by its power series (docs/reversible.md §Examples
//! and tests): `J_ν(z) = Σ_k (−1)^k (z/2)^{2k+ν} / (k! (k+ν)!)`, with the term magnitudes kept as
//! `ULog` (each is the previous one times `(z/2)² / (k (k+ν))`, so terms are uncomputed
//! arithmetically) and a `while` with pre- and post-condition that stops below `1e-18`.
//! The Hessian (here the second derivative) comes from running the gradient on `Dual`s.

#![allow(dead_code)]

use gradus_rev::prelude::*;

/// `y += J_ν(z)` for `z > 0`.
#[reversible(loss = y)]
pub fn besselj<T: RevReal>(y: &mut T, z: &mut T, nu: u32) {
    routine! {
        let mut lz = ULog::<T>::one();
        lz *= ulog(z);
        lz /= ulog(2.0);
        let mut lz2 = ULog::<T>::one();
        lz2 *= powf(lz, 2.0);
        let mut term = ULog::<T>::one();
        for i in 1..=nu {
            term *= lz;
            term /= ulog(constant!(T::from_f64(i as f64)));
        }
        let mut k = 0u32;
        let mut s = T::zero();
        s += real(term);
        while (term.to_f64() > 1e-18, k != 0) {
            INC(k);
            term *= lz2;
            term /= ulog(constant!(T::from_f64((k * (k + nu)) as f64)));
            if (k % 2 == 0) {
                s += real(term);
            } else {
                s -= real(term);
            }
        }
    }
    y += s;
    unroutine!();
}

fn main() {
    let (mut y, mut z) = (0.0f64, 1.0f64);
    let (_, dz) = besselj_grad(&mut y, &mut z, 2).expect("reversible");
    println!("J2(1) = {y}, J2'(1) = {dz}");
}
