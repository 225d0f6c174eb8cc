//! `exp(x)` by its Taylor series (docs/reversible.md §Examples and tests): terms `xⁿ/n!` kept as
//! logarithmic numbers (`ULog`), a `while` with pre- and post-condition that stops when a term
//! falls below a tolerance, and arithmetic uncomputing of the terms: each term is the previous one
//! times `x/n`, so it is recomputed from the previous one instead of being stored.

#![allow(dead_code)]

use gradus_rev::prelude::*;

/// `y += exp(x)` for `x > 0`, summing terms until one falls below `1e-17 · e^x`.
#[reversible(loss = y)]
pub fn exp_series<T: RevReal>(y: &mut T, x: &mut T) {
    routine! {
        let mut lx = ULog::<T>::one();
        lx *= ulog(x);
        let mut term = ULog::<T>::one();
        let mut n = 0u32;
        let mut s = T::zero();
        s += 1.0;
        while (term.to_f64() > tolerance(x), n != 0) {
            INC(n);
            term *= lx;
            term /= ulog(constant!(T::from_f64(n as f64)));
            s += real(term);
        }
    }
    y += s;
    unroutine!();
}

/// The stopping tolerance for `x`: `1e-17 · e^x`.
pub fn tolerance<T: RevReal>(x: T) -> f64 {
    1e-17 * x.to_f64().exp()
}

fn main() {
    let (mut y, mut x) = (0.0, 1.6);
    let (_, dx) = exp_series_grad(&mut y, &mut x).expect("reversible");
    println!("exp(1.6) ≈ {y} (std {}), d/dx = {dx}", 1.6f64.exp());
}
