//! The small examples of docs/reversible.md §Examples and tests (core milestone): values, round
//! trips, gradients.

use gradus_rev::prelude::*;

/// y ← y + a·b
#[reversible(loss = y)]
fn mul_acc<T: RevReal>(y: &mut T, a: &mut T, b: &mut T) {
    y += a * b;
}

/// res ← res + sqrt(y + Σ x[i]²), with y ← y + Σ x[i]².
#[reversible(loss = res)]
fn norm<T: RevReal>(res: &mut T, y: &mut T, x: &mut [T]) {
    for i in 0..x.len() {
        y += square(x[i]);
    }
    res += sqrt(y);
}

/// (a, b) ← (F(n), F(n+1)) when called with (0, 1).
#[reversible]
fn fib_steps(a: &mut u64, b: &mut u64, n: usize) {
    for _ in 0..n {
        a += b;
        SWAP(a, b);
    }
}

/// out ← out + F(n), recursively (calls, recursion, `if`).
#[reversible]
fn fib_rec(out: &mut u64, n: u64) {
    if n <= 2 {
        INC(out);
    } else {
        fib_rec(out, constant!(n - 1));
        fib_rec(out, constant!(n - 2));
    }
}

/// Make x non-negative and remember whether it was negated. `neg` must be false on entry.
#[reversible]
fn abs_in_place(x: &mut i64, neg: &mut bool) {
    if (x < 0, neg) {
        NEG(x);
        neg ^= true;
    }
}

/// n ← the least n with n·n ≥ target. Requires n == 0 on entry.
#[reversible]
fn ceil_sqrt(n: &mut u64, target: u64) {
    while (n * n < target, n != 0) {
        INC(n);
    }
}

/// y ← y + log(x) for complex x.
#[reversible(loss = y_re_dummy)]
fn log_acc<T: RevReal>(y_re_dummy: &mut T, y: &mut Complex<T>, x: &mut Complex<T>) {
    routine! {
        let mut r = T::zero();
        r += abs(x);
    }
    y.re += ln(r);
    y.im += arg(x);
    unroutine!();
    y_re_dummy += y.re;
}

#[test]
fn mul_acc_anchor() {
    let (mut y, mut a, mut b) = (1.0, 4.0, 6.0);
    mul_acc(&mut y, &mut a, &mut b).unwrap();
    assert_eq!(y, 25.0);
    mul_acc_inv(&mut y, &mut a, &mut b).unwrap();
    assert_eq!(y, 1.0);
    let g = mul_acc_grad(&mut y, &mut a, &mut b).unwrap();
    assert_eq!(y, 25.0);
    assert_eq!(g, (1.0, 6.0, 4.0));
}

#[test]
fn norm_anchor() {
    let (mut res, mut y, mut x) = (0.0f64, 0.0, vec![2.0, 3.0, 6.0]);
    norm(&mut res, &mut y, &mut x).unwrap();
    assert_eq!((res, y), (7.0, 49.0));
    norm_inv(&mut res, &mut y, &mut x).unwrap();
    assert_eq!((res, y), (0.0, 0.0));
    let (d_res, d_y, d_x) = norm_grad(&mut res, &mut y, &mut x).unwrap();
    assert_eq!((res, y), (7.0, 49.0));
    assert_eq!(d_res, 1.0);
    assert!((d_y - 1.0 / 14.0).abs() < 1e-15);
    for (g, e) in d_x.iter().zip([2.0 / 7.0, 3.0 / 7.0, 6.0 / 7.0]) {
        assert!((g - e).abs() < 1e-15);
    }
}

#[test]
fn fib_anchor() {
    let (mut a, mut b) = (0u64, 1u64);
    fib_steps(&mut a, &mut b, 90).unwrap();
    assert_eq!(a, 2880067194370816120);
    fib_steps_inv(&mut a, &mut b, 90).unwrap();
    assert_eq!((a, b), (0, 1));
}

#[test]
fn abs_in_place_round_trip() {
    for v in [-5i64, 0, 7, i64::MIN + 1] {
        let (mut x, mut neg) = (v, false);
        abs_in_place(&mut x, &mut neg).unwrap();
        assert_eq!(x, v.abs());
        assert_eq!(neg, v < 0);
        abs_in_place_inv(&mut x, &mut neg).unwrap();
        assert_eq!((x, neg), (v, false));
    }
}

#[test]
fn ceil_sqrt_anchor() {
    let mut n = 0u64;
    ceil_sqrt(&mut n, 50).unwrap();
    assert_eq!(n, 8);
    ceil_sqrt_inv(&mut n, 50).unwrap();
    assert_eq!(n, 0);
}

#[test]
fn log_acc_anchor() {
    let (mut d, mut y, mut x) = (0.0, Complex::new(0.0, 0.0), Complex::new(1.0, 1.2));
    log_acc(&mut d, &mut y, &mut x).unwrap();
    assert!((y.re - 0.44599901965255523f64).abs() < 1e-15);
    assert!((y.im - 0.8760580505981934f64).abs() < 1e-15);
    let (_, _, gx) = log_acc_grad(&mut d, &mut y, &mut x).unwrap();
    // d re(log x)/d x.re = x.re / |x|², d/d x.im = x.im / |x|²
    assert!((gx.re - 1.0 / 2.44).abs() < 1e-14);
    assert!((gx.im - 1.2 / 2.44).abs() < 1e-14);
}

#[test]
fn fib_rec_matches_fib_steps_and_round_trips() {
    let mut out = 7u64;
    fib_rec(&mut out, 20).unwrap();
    let (mut a, mut b) = (0u64, 1u64);
    fib_steps(&mut a, &mut b, 20).unwrap();
    assert_eq!(out, 7 + a);
    assert_eq!(a, 6765);
    fib_rec_inv(&mut out, 20).unwrap();
    assert_eq!(out, 7);
}
