//! Running products with logarithmic numbers (docs/reversible.md §Numeric types, §Examples and
//! tests): `y += xⁿ` with O(1) extra memory, on floats (`power_acc`) and on fixed point
//! (`power_fixed`, where every step is exactly invertible).

#![allow(dead_code)]

use gradus_rev::prelude::*;

/// `y ← y + xⁿ` for `x > 0`.
#[reversible(loss = y)]
pub fn power_acc<T: RevReal>(y: &mut T, x: &mut T, n: u32) {
    routine! {
        let mut lx = ULog::<T>::one();
        let mut ly = ULog::<T>::one();
        lx *= ulog(x);
        for _ in 0..n {
            ly *= lx;
        }
    }
    y += real(ly);
    unroutine!();
}

/// `y ← y + xⁿ` on fixed point by repeated fixed-point multiplication into a chain of
/// ancillas: `p[i+1] += p[i] · x`. Exact: the round trip restores every bit.
#[reversible]
pub fn power_fixed(y: &mut I21F43, x: &mut I21F43, p: &mut [I21F43], n: usize) {
    routine! {
        p[0] += 1.0;
        for i in 0..n {
            p[i + 1] += p[i] * x;
        }
    }
    y += p[n];
    unroutine!();
}

fn main() {
    let (mut y, mut x) = (0.0, 1.5);
    let (_, dx) = power_acc_grad(&mut y, &mut x, 5).expect("reversible");
    println!("1.5^5 = {y}, d/dx = {dx}");
}
