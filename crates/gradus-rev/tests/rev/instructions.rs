//! Instruction-level properties (docs/reversible.md §Examples and tests): every instruction
//! followed by its inverse restores its arguments — bit for bit on integers and fixed point, within
//! rounding on floats — and every primitive's `GVar` rule matches central finite differences.

use gradus_check::{SplitMix64, Tolerance, fd};
use gradus_rev::instr::prim::*;
use gradus_rev::instr::{Acc1, Acc2, NegInstr, irot, rot};
use gradus_rev::prelude::*;
use gradus_rev::scalar::Const;
use proptest::prelude::*;

#[reversible]
fn int_prog(a: &mut u64, b: &mut u64, c: &mut i32, k: &mut bool, n: usize) {
    for i in 0..n {
        a += b * constant!(c as u64);
        b ^= a - constant!(i as u64);
        INC(c);
        NEG(c);
        k ^= constant!(a % 2 == 0);
        SWAP(a, b);
    }
}

#[reversible]
fn fixed_prog(a: &mut I21F43, b: &mut I21F43, n: usize) {
    for _ in 0..n {
        a += b * 1.25;
        b += sin(a);
        a -= sqrt(constant!(I21F43::from_num(2)));
        NEG(b);
        SWAP(a, b);
    }
}

#[reversible]
fn float_prog<T: RevReal>(a: &mut T, b: &mut T, th: &mut T, n: usize) {
    for _ in 0..n {
        a += sin(b);
        b -= a * th;
        ROT(a, b, th);
        b += tanh(a);
        NEG(a);
    }
}

proptest! {
    #[test]
    fn integer_programs_restore_bit_for_bit(a in any::<u64>(), b in any::<u64>(), c in any::<i32>(), k in any::<bool>(), n in 0usize..20) {
        let (mut x, mut y, mut z, mut w) = (a, b, c, k);
        int_prog(&mut x, &mut y, &mut z, &mut w, n).unwrap();
        int_prog_inv(&mut x, &mut y, &mut z, &mut w, n).unwrap();
        prop_assert_eq!((x, y, z, w), (a, b, c, k));
    }

    #[test]
    fn fixed_point_programs_restore_bit_for_bit(a in -100.0f64..100.0, b in -100.0f64..100.0, n in 0usize..20) {
        let (a0, b0) = (I21F43::from_num(a), I21F43::from_num(b));
        let (mut x, mut y) = (a0, b0);
        fixed_prog(&mut x, &mut y, n).unwrap();
        fixed_prog_inv(&mut x, &mut y, n).unwrap();
        prop_assert_eq!((x.to_bits(), y.to_bits()), (a0.to_bits(), b0.to_bits()));
    }

    #[test]
    fn float_programs_restore_within_rounding(a in -1.0f64..1.0, b in -1.0f64..1.0, th in -1.0f64..1.0, n in 0usize..5) {
        let (mut x, mut y, mut t) = (a, b, th);
        float_prog(&mut x, &mut y, &mut t, n).unwrap();
        float_prog_inv(&mut x, &mut y, &mut t, n).unwrap();
        prop_assert!((x - a).abs() < 1e-9 && (y - b).abs() < 1e-9, "{x} {a} {y} {b}");
    }

    #[test]
    fn gvar_instructions_are_mutually_inverse(y in -2.0f64..2.0, a in 0.1f64..2.0, b in 0.1f64..2.0, gy in -1.0f64..1.0) {
        let y0 = GVar::with_grad(y, gy);
        let (a0, b0) = (GVar::with_grad(a, 0.5), GVar::with_grad(b, -0.25));
        let (mut yy, mut aa, mut bb) = (y0, a0, b0);
        <Powf as Acc2<_, _, _>>::add(&mut yy, &mut aa, &mut bb);
        <Powf as Acc2<_, _, _>>::sub(&mut yy, &mut aa, &mut bb);
        prop_assert!((yy.x - y0.x).abs() < 1e-12 && (aa.g - a0.g).abs() < 1e-12 && (bb.g - b0.g).abs() < 1e-12);
        let th = GVar::with_grad(0.7, 0.1);
        let (mut p, mut q, mut t) = (a0, b0, th);
        rot(&mut p, &mut q, &mut t);
        irot(&mut p, &mut q, &mut t);
        prop_assert!((p.x - a0.x).abs() < 1e-12 && (q.g - b0.g).abs() < 1e-12 && (t.g - th.g).abs() < 1e-12);
    }
}

/// Gradient of `y += f(a)` through the backward rule (`sub` on `GVar`s) against finite
/// differences, for every one-argument primitive.
fn check1<P: Builtin1>(name: &str, lo: f64, hi: f64, kinks: &[f64]) {
    let mut rng = SplitMix64::new(name.len() as u64);
    for a in rng.vector_avoiding(20, lo, hi, kinks, 0.05) {
        let mut y = GVar::with_grad(0.0, 1.0);
        let mut ga = GVar::new(a);
        <P as Acc1<_, _>>::sub(&mut y, &mut ga);
        let fd = fd::grad(&[a], |x| P::eval(x[0]));
        assert!(
            Tolerance::FINITE_DIFFERENCE.agrees(ga.g, fd[0]),
            "{name} at {a}: {} vs {}",
            ga.g,
            fd[0]
        );
        // A constant argument receives nothing and the value still moves.
        let mut y2 = GVar::with_grad(0.0, 1.0);
        <P as Acc1<_, _>>::add(&mut y2, &mut Const(GVar::new(a)));
        assert_eq!(y2.x, P::eval(a));
    }
}

fn check2<P: Builtin2>(name: &str, lo: f64, hi: f64) {
    let mut rng = SplitMix64::new(7 + name.len() as u64);
    for _ in 0..20 {
        let (a, b) = (rng.uniform(lo, hi), rng.uniform(lo, hi));
        if (a - b).abs() < 0.05 {
            continue;
        }
        let mut y = GVar::with_grad(0.0, 1.0);
        let (mut ga, mut gb) = (GVar::new(a), GVar::new(b));
        <P as Acc2<_, _, _>>::sub(&mut y, &mut ga, &mut gb);
        let fd = fd::grad(&[a, b], |x| P::eval(x[0], x[1]));
        assert!(
            Tolerance::FINITE_DIFFERENCE.agrees(ga.g, fd[0]),
            "{name} ∂a at ({a}, {b})"
        );
        assert!(
            Tolerance::FINITE_DIFFERENCE.agrees(gb.g, fd[1]),
            "{name} ∂b at ({a}, {b})"
        );
        // `+=` pushes the opposite sign.
        let mut y = GVar::with_grad(0.0, 1.0);
        let (mut ga2, mut gb2) = (GVar::new(a), GVar::new(b));
        <P as Acc2<_, _, _>>::add(&mut y, &mut ga2, &mut gb2);
        assert_eq!((ga2.g, gb2.g), (-ga.g, -gb.g));
    }
}

#[test]
fn primitive_table_matches_finite_differences() {
    check1::<Id>("id", -3.0, 3.0, &[]);
    check1::<Sqrt>("sqrt", 0.1, 4.0, &[]);
    check1::<Cbrt>("cbrt", 0.1, 4.0, &[]);
    check1::<Exp>("exp", -2.0, 2.0, &[]);
    check1::<Exp2>("exp2", -2.0, 2.0, &[]);
    check1::<Ln>("ln", 0.1, 4.0, &[]);
    check1::<Log1p>("log1p", -0.5, 2.0, &[]);
    check1::<Expm1>("expm1", -2.0, 2.0, &[]);
    check1::<Sin>("sin", -3.0, 3.0, &[]);
    check1::<Cos>("cos", -3.0, 3.0, &[]);
    check1::<Tan>("tan", -1.2, 1.2, &[]);
    check1::<Asin>("asin", -0.9, 0.9, &[]);
    check1::<Acos>("acos", -0.9, 0.9, &[]);
    check1::<Atan>("atan", -3.0, 3.0, &[]);
    check1::<Sinh>("sinh", -2.0, 2.0, &[]);
    check1::<Cosh>("cosh", -2.0, 2.0, &[]);
    check1::<Tanh>("tanh", -2.0, 2.0, &[]);
    check1::<Abs>("abs", -2.0, 2.0, &[0.0]);
    check1::<Square>("square", -2.0, 2.0, &[]);
    check1::<Recip>("recip", 0.2, 3.0, &[]);
    check2::<Add>("add", -2.0, 2.0);
    check2::<Sub>("sub", -2.0, 2.0);
    check2::<Mul>("mul", -2.0, 2.0);
    check2::<Div>("div", 0.2, 2.0);
    check2::<Atan2>("atan2", 0.2, 2.0);
    check2::<Powf>("powf", 0.2, 2.0);
    check2::<Hypot>("hypot", -2.0, 2.0);
    check2::<Min>("min", -2.0, 2.0);
    check2::<Max>("max", -2.0, 2.0);
    check2::<LogAddExp>("logaddexp", -2.0, 2.0);
}

#[test]
fn sqrt_derivative_at_zero_is_zero() {
    let mut y = GVar::with_grad(0.0, 1.0);
    let mut a = GVar::new(0.0);
    <Sqrt as Acc1<_, _>>::sub(&mut y, &mut a);
    assert_eq!(a.g, 0.0);
}

#[test]
fn rotation_gradient_matches_finite_differences() {
    // L = w1·a' + w2·b' after ROT(a, b, θ).
    let (w1, w2) = (0.3, -1.1);
    let f = |x: &[f64]| {
        let (mut a, mut b, mut t) = (x[0], x[1], x[2]);
        rot(&mut a, &mut b, &mut t);
        w1 * a + w2 * b
    };
    let x = [0.4, -0.8, 0.9];
    let (mut a, mut b, mut t) = (x[0], x[1], x[2]);
    rot(&mut a, &mut b, &mut t);
    let (mut ga, mut gb, mut gt) = (GVar::with_grad(a, w1), GVar::with_grad(b, w2), GVar::new(t));
    irot(&mut ga, &mut gb, &mut gt);
    let fd = fd::grad(&x, f);
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(ga.g, fd[0]));
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(gb.g, fd[1]));
    assert!(Tolerance::FINITE_DIFFERENCE.agrees(gt.g, fd[2]));
    assert!((ga.x - x[0]).abs() < 1e-15 && (gb.x - x[1]).abs() < 1e-15);
}

#[test]
fn neg_on_gvar_negates_gradient() {
    let mut a = GVar::with_grad(2.0, 3.0);
    a.neg_instr();
    assert_eq!((a.x, a.g), (-2.0, -3.0));
}
