#![allow(clippy::needless_range_loop, clippy::result_large_err)]
//! Programs written only against the API as docs/reversible.md documents it (§A first example, §The
//! statement language, §At run time, §Differentiation, §API): the prelude, `#[reversible]` with its
//! attribute arguments, `f`/`f_inv`/`f_grad`, `GVar`, `Mat`, `#[derive(GradParam)]`,
//! `Primitive1<T>`, `stdlib`, the drivers `jacobian` and `hessian` (formerly `jacobian_rows` and
//! `hessian_columns`, renamed to the shared vocabulary) and the fields of `InvertibilityError`.
//! None of these functions is one of the crate's examples; their gradients are checked against
//! finite differences and the tape (`gradus-tape`) on native versions.

use gradus_check::{Tolerance, compare, fd};
use gradus_rev::prelude::*;
use gradus_rev::{GradParam, Mat, Real, hessian, jacobian, stdlib};

/// y ← y + Σᵢ (1 − xᵢ)² + 100 (xᵢ₊₁ − xᵢ²)².
#[reversible(loss = y)]
fn rosenbrock<T: RevReal>(y: &mut T, x: &mut [T]) {
    for i in 0..x.len() - 1 {
        routine! {
            let mut a = T::zero();
            let mut sq = T::zero();
            let mut b = T::zero();
            a += 1.0;
            a -= x[i];
            sq += square(x[i]);
            b += x[i + 1] - sq;
        }
        y += square(a);
        routine! {
            let mut b2 = T::zero();
            b2 += square(b);
        }
        y += b2 * 100.0;
        unroutine!();
        unroutine!();
    }
}

fn rosenbrock_native<R: Real>(x: &[R]) -> R {
    let mut y = R::zero();
    for i in 0..x.len() - 1 {
        let a = R::one() - x[i];
        let b = x[i + 1] - x[i] * x[i];
        y += a * a + R::from_f64(100.0) * b * b;
    }
    y
}

#[test]
fn rosenbrock_gradient_hessian_and_round_trip() -> Result<(), InvertibilityError> {
    let x0 = vec![-1.2, 1.0, 0.3, 0.8];
    let (mut y, mut x) = (0.0, x0.clone());
    rosenbrock(&mut y, &mut x)?;
    assert!((y - rosenbrock_native(&x0)).abs() < 1e-12);
    rosenbrock_inv(&mut y, &mut x)?;
    assert!(y.abs() < 1e-12 && x == x0);
    let (dy, g) = rosenbrock_grad(&mut y, &mut x)?;
    assert_eq!(dy, 1.0);
    let (_, gt) = gradus_tape::grad(&x0, |v| rosenbrock_native(v));
    compare(&g, &gt, Tolerance::new(1e-12, 1e-12)).unwrap();
    compare(
        &g,
        &fd::grad(&x0, rosenbrock_native),
        Tolerance::FINITE_DIFFERENCE,
    )
    .unwrap();
    // Forward over reverse, one column per unit seed.
    let h = hessian(&x0, |xd| {
        let mut xd = xd.to_vec();
        let mut yd = Dual::constant(0.0);
        rosenbrock_grad(&mut yd, &mut xd).unwrap().1
    });
    let ht = gradus_tape::hessian(&x0, |v| rosenbrock_native(v));
    for i in 0..x0.len() {
        compare(&h[i], &ht[i], Tolerance::new(1e-10, 1e-10)).unwrap();
    }
    Ok(())
}

/// A linear layer followed by the softmax cross entropy, parameters in a user struct.
#[derive(Clone, Debug, GradParam)]
struct Layer<T> {
    w: Mat<T>,
    b: Vec<T>,
    label: String,
}

#[reversible(loss = loss)]
fn layer_loss<T: RevReal>(loss: &mut T, p: &mut Layer<T>, x: &[f64], target: usize) {
    routine! {
        let mut h = vec![T::zero(); p.b.len()];
        for i in 0..p.w.rows() {
            for j in 0..p.w.cols() {
                h[i] += p.w[(i, j)] * constant!(T::from_f64(x[j]));
            }
            h[i] += p.b[i];
        }
    }
    stdlib::softmax_cross_entropy(loss, h, target);
    unroutine!();
}

fn layer_native<R: Real>(v: &[R], x: &[f64], rows: usize, target: usize) -> R {
    let cols = x.len();
    let h: Vec<R> = (0..rows)
        .map(|i| {
            let mut s = v[rows * cols + i];
            for j in 0..cols {
                s += v[i * cols + j] * R::from_f64(x[j]);
            }
            s
        })
        .collect();
    let mut z = R::zero();
    for &t in &h {
        z += t.exp();
    }
    z.ln() - h[target]
}

#[test]
fn struct_parameters_through_derive_grad_param() {
    let (rows, cols) = (3, 4);
    let wv: Vec<f64> = (0..rows * cols).map(|i| (0.3 * i as f64).sin()).collect();
    let bv = vec![0.1, -0.2, 0.05];
    let x = [0.5, -1.0, 2.0, 0.25];
    let p0 = Layer {
        w: Mat::from_vec(rows, cols, wv.clone()).unwrap(),
        b: bv.clone(),
        label: "dense".to_string(),
    };
    let (mut loss, mut p) = (0.0, p0.clone());
    let (dl, gp) = layer_loss_grad(&mut loss, &mut p, &x, 1).unwrap();
    assert_eq!(dl, 1.0);
    assert_eq!(gp.label, "dense");
    let flat: Vec<f64> = [wv, bv].concat();
    assert!((loss - layer_native(&flat, &x, rows, 1)).abs() < 1e-12);
    let g: Vec<f64> = [gp.w.as_slice(), &gp.b[..]].concat();
    let fd = fd::grad(&flat, |v| layer_native(v, &x, rows, 1));
    compare(&g, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
    let (_, gt) = gradus_tape::grad(&flat, |v| layer_native(v, &x, rows, 1));
    compare(&g, &gt, Tolerance::new(1e-12, 1e-12)).unwrap();
    // The wrapped form is the documented one: `Layer<GVar<f64>>`, gradient `Layer<f64>`.
    let wrapped: Layer<GVar<f64>> = GradParam::<f64>::wrap(&p0);
    assert_eq!(wrapped.w[(2, 3)].value(), p0.w[(2, 3)]);
}

/// (x, y) += r (cos θ, sin θ): two outputs.
#[reversible]
fn polar<T: RevReal>(xy: &mut [T; 2], r: &mut T, th: &mut T) {
    routine! {
        let mut c = T::zero();
        let mut s = T::zero();
        c += cos(th);
        s += sin(th);
    }
    xy[0] += r * c;
    xy[1] += r * s;
    unroutine!();
}

#[test]
fn jacobian_by_repeated_reverse_and_batched_gradient_field() {
    let (r0, th0) = (1.5, 0.7);
    let (mut xy, mut r, mut th) = ([0.0; 2], r0, th0);
    polar(&mut xy, &mut r, &mut th).unwrap();
    let fd = fd::jacobian(&[r0, th0], |v| vec![v[0] * v[1].cos(), v[0] * v[1].sin()]);
    let rows = jacobian(2, |ybar| {
        let mut wxy = [
            GVar::with_grad(xy[0], ybar[0]),
            GVar::with_grad(xy[1], ybar[1]),
        ];
        let (mut wr, mut wth) = (GVar::new(r0), GVar::new(th0));
        polar_inv(&mut wxy, &mut wr, &mut wth).unwrap();
        vec![wr.grad(), wth.grad()]
    });
    for i in 0..2 {
        compare(&rows[i], &fd[i], Tolerance::FINITE_DIFFERENCE).unwrap();
    }
    // One sweep with a batched gradient field: column j of the Jacobian per input.
    let mut wxy = [
        GVar::with_grad(xy[0], [1.0, 0.0]),
        GVar::with_grad(xy[1], [0.0, 1.0]),
    ];
    let (mut wr, mut wth): (GVar<f64, [f64; 2]>, GVar<f64, [f64; 2]>) =
        (GVar::new(r0), GVar::new(th0));
    polar_inv(&mut wxy, &mut wr, &mut wth).unwrap();
    for i in 0..2 {
        compare(
            &[wr.grad()[i], wth.grad()[i]],
            &rows[i],
            Tolerance::ROUNDING,
        )
        .unwrap();
    }
    assert!((wr.value() - r0).abs() < 1e-15 && wxy[0].value().abs() < 1e-15);
}

/// Forgets to uncompute its ancilla: the implicit release must fail.
#[reversible]
fn leaky<T: RevReal>(y: &mut T, x: &mut T) {
    let mut t = T::zero();
    t += x;
    y += t;
}

/// Changes what its condition reads inside the branch, with checks on.
#[reversible]
fn flips(x: &mut i64) {
    if (x > 0, x > 0) {
        NEG(x);
    }
}

#[test]
fn invertibility_errors_name_function_direction_location_and_facts() {
    let (mut y, mut x) = (0.0, 2.5);
    let e = leaky(&mut y, &mut x).unwrap_err();
    assert_eq!(e.function, "leaky");
    assert_eq!(e.direction, Direction::Forward);
    assert!(e.file.ends_with("documented_api.rs") && e.line > 0 && e.column > 0);
    match &e.kind {
        InvertibilityErrorKind::AncillaNotRestored {
            name,
            found,
            expected,
            tolerance,
        } => {
            assert_eq!(*name, "t");
            assert_eq!(
                (found.as_str(), expected.as_str(), *tolerance),
                ("2.5", "0.0", 1e-8)
            );
        }
        k => panic!("unexpected kind {k:?}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("leaky") && msg.contains('t'), "{msg}");
    let (mut y, mut x) = (0.0, 0.0);
    leaky(&mut y, &mut x).unwrap();
    leaky_inv(&mut y, &mut x).unwrap();

    let mut v = 3;
    let e = flips(&mut v).unwrap_err();
    assert!(matches!(
        e.kind,
        InvertibilityErrorKind::BranchConditionChanged {
            before: true,
            after: false
        }
    ));
    let err: &dyn std::error::Error = &e;
    assert!(err.to_string().contains("flips"));
}

/// `checks = off`, an explicit `release!` with its own tolerance, `inv!` of a call and of a
/// block, `safe!`, `constant!`, `SWAP`, `NEG`, `ROT`.
#[reversible(loss = y, checks = off)]
fn mixer<T: RevReal>(y: &mut T, a: &mut T, b: &mut T, th: &mut T, k: usize) {
    safe! { assert!(k < 10, "k is small"); }
    ROT(a, b, th);
    let mut t = T::zero();
    t += a * b;
    y += t * constant!(T::from_f64(k as f64));
    t -= a * b;
    release!(t, T::zero(), atol = 1e-12);
    inv!(shift(a, b));
    inv! {
        SWAP(a, b);
        NEG(a);
    }
}

/// a ← a + b, with a per-function release tolerance.
#[reversible(atol = 1e-12)]
fn shift<T: RevReal>(a: &mut T, b: &mut T) {
    a += b;
}

fn mixer_native(v: &[f64], k: usize) -> [f64; 3] {
    let (a, b, th) = (v[0], v[1], v[2]);
    let a1 = a * th.cos() - b * th.sin();
    let b1 = a * th.sin() + b * th.cos();
    let y = k as f64 * a1 * b1;
    let a2 = a1 - b1;
    [y, b1, -a2]
}

#[test]
fn attribute_arguments_calls_and_escapes() {
    let v0 = [0.4, -0.9, 0.3];
    let (mut y, mut a, mut b, mut th) = (0.0, v0[0], v0[1], v0[2]);
    mixer(&mut y, &mut a, &mut b, &mut th, 3).unwrap();
    compare(&[y, a, b], &mixer_native(&v0, 3), Tolerance::ROUNDING).unwrap();
    mixer_inv(&mut y, &mut a, &mut b, &mut th, 3).unwrap();
    compare(
        &[y, a, b, th],
        &[0.0, v0[0], v0[1], v0[2]],
        Tolerance::ROUNDING,
    )
    .unwrap();
    let (dy, da, db, dth) = mixer_grad(&mut y, &mut a, &mut b, &mut th, 3).unwrap();
    assert_eq!(dy, 1.0);
    let fd = fd::grad(&v0, |v| mixer_native(v, 3)[0]);
    compare(&[da, db, dth], &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
}
