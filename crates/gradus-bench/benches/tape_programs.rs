//! The six programs of TAPE.md §11 on gradus-tape and its peers (`reverse`, `ad_trait`'s
//! reverse-mode `adr`, and forward mode with gradus-num's `Dual` and `num-dual`), plus the
//! primal in `f64` as the baseline.
//!
//! Each program is written once over the bench-local trait `Sc` (a local adapter trait, since
//! the orphan rule forbids implementing gradus's `Real` for the peers' types here), so every
//! engine performs the same operations. One iteration is one full differentiation: recording
//! plus pullback(s) (reverse mode), or one forward pass per input (forward mode). Tapes and
//! graphs are reused between iterations by every reverse engine (`Tape::grad_into`,
//! `reverse::Tape::clear`, `adr`'s global graph reset).
//!
//! Run: `cargo bench -p gradus-bench --bench tape_programs`. Before measuring, each engine's
//! gradient is checked against the primal's finite differences (the program would panic).

#![allow(clippy::type_complexity)]

use ad_trait::reverse_ad::adr::{GlobalComputationGraph, adr};
use criterion::{Criterion, criterion_group, criterion_main};
use gradus_num::Dual;
use gradus_tape::{Adjoints, ReverseOptions, Tape, Var};
use num_dual::{Dual64, DualNum};
use reverse::Gradient;
use std::hint::black_box;
use std::ops::{Add, Div, Mul, Sub};
use std::time::Duration;

/// The operations the benchmark programs need.
trait Sc:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    fn val(self) -> f64;
    fn mulc(self, c: f64) -> Self;
    fn exp(self) -> Self;
}

impl Sc for f64 {
    #[inline]
    fn val(self) -> f64 {
        self
    }
    #[inline]
    fn mulc(self, c: f64) -> Self {
        self * c
    }
    #[inline]
    fn exp(self) -> Self {
        f64::exp(self)
    }
}
impl Sc for Var<'_> {
    #[inline]
    fn val(self) -> f64 {
        self.value()
    }
    #[inline]
    fn mulc(self, c: f64) -> Self {
        self * c
    }
    #[inline]
    fn exp(self) -> Self {
        Var::exp(self)
    }
}
impl Sc for Dual<f64> {
    #[inline]
    fn val(self) -> f64 {
        self.v
    }
    #[inline]
    fn mulc(self, c: f64) -> Self {
        self * c
    }
    #[inline]
    fn exp(self) -> Self {
        gradus_num::Real::exp(self)
    }
}
impl Sc for reverse::Var<'_> {
    #[inline]
    fn val(self) -> f64 {
        self.val
    }
    #[inline]
    fn mulc(self, c: f64) -> Self {
        self * c
    }
    #[inline]
    fn exp(self) -> Self {
        reverse::Var::exp(&self)
    }
}
impl Sc for adr {
    #[inline]
    fn val(self) -> f64 {
        self.value()
    }
    #[inline]
    fn mulc(self, c: f64) -> Self {
        self * ad_trait::F64(c)
    }
    #[inline]
    fn exp(self) -> Self {
        ad_trait::nalgebra::ComplexField::exp(self)
    }
}
impl Sc for Dual64 {
    #[inline]
    fn val(self) -> f64 {
        self.re
    }
    #[inline]
    fn mulc(self, c: f64) -> Self {
        self * c
    }
    #[inline]
    fn exp(self) -> Self {
        DualNum::exp(&self)
    }
}

// ---- the programs ------------------------------------------------------------------------

fn fmult<S: Sc>(x: &[S]) -> S {
    x[0] * x[1]
}

fn dot<S: Sc>(u: &[S], v: &[S]) -> S {
    let mut acc = u[0] * v[0];
    for i in 1..u.len() {
        acc = acc + u[i] * v[i];
    }
    acc
}

fn fdotprod<S: Sc>(x: &[S]) -> S {
    let (u, v) = x.split_at(x.len() / 2);
    dot(u, v)
}

fn fsummatvec<S: Sc>(x: &[S], n: usize) -> S {
    let (m, v) = x.split_at(n * n);
    let mut total = dot(&m[..n], v);
    for r in 1..n {
        total = total + dot(&m[r * n..(r + 1) * n], v);
    }
    total
}

fn frotvecquat<S: Sc>(x: &[S]) -> [S; 3] {
    let (v, u, s) = ([x[0], x[1], x[2]], [x[3], x[4], x[5]], x[6]);
    let uv = u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
    let cross = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let k = s * s - uu;
    let uv2 = uv.mulc(2.0);
    let s2 = s.mulc(2.0);
    std::array::from_fn(|i| uv2 * u[i] + k * v[i] + s2 * cross[i])
}

fn layer<S: Sc>(w: &[S], b: &[S], x: &[S]) -> Vec<S> {
    w.chunks_exact(x.len())
        .zip(b)
        .map(|(row, &bi)| {
            let z = dot(row, x) + bi;
            if z.val() >= 0.0 { z } else { z.mulc(0.0) }
        })
        .collect()
}

fn fneural<S: Sc>(p: &[S]) -> S {
    let (x, rest) = p.split_at(50);
    let (w1, rest) = rest.split_at(5000);
    let (b1, rest) = rest.split_at(100);
    let (w2, b2) = rest.split_at(5000);
    let h2 = layer(w2, b2, &layer(w1, b1, x));
    let mut m = h2[0].mulc(0.0);
    for &h in &h2 {
        if h.val() > m.val() {
            m = h;
        }
    }
    let e: Vec<S> = h2.iter().map(|&h| (h - m).exp()).collect();
    let mut total = e[0];
    for &ei in &e[1..] {
        total = total + ei;
    }
    let mut out = e[0] / total;
    for &ei in &e[1..] {
        out = out + ei / total;
    }
    out
}

fn fparticles<S: Sc>(x: &[S], steps: usize) -> S {
    let mut out: Option<S> = None;
    for s in x.chunks_exact(4) {
        let (mut px, mut py, mut vx, mut vy) = (s[0], s[1], s[2], s[3]);
        for _ in 0..steps {
            let ax = px.mulc(-0.5) - vx.mulc(0.2);
            let ay = py.mulc(-0.5) - vy.mulc(0.2);
            px = px + vx.mulc(0.05);
            py = py + vy.mulc(0.05);
            vx = vx + ax.mulc(0.05);
            vy = vy + ay.mulc(0.05);
        }
        let y = px * py;
        out = Some(match out {
            None => y,
            Some(o) => o + y,
        });
    }
    out.unwrap()
}

// ---- the engines -------------------------------------------------------------------------

/// A scalar program: a name, its inputs, and its instances for every engine.
struct Program {
    name: String,
    x: Vec<f64>,
    f64_fn: Box<dyn Fn(&[f64]) -> f64>,
    gradus: Box<dyn Fn(&mut Tape, &[f64], &mut [f64]) -> f64>,
    reverse: Box<dyn Fn(&reverse::Tape, &[f64]) -> (f64, Vec<f64>)>,
    adr: Box<dyn Fn(&[f64]) -> (f64, Vec<f64>)>,
    forward: Option<(
        Box<dyn Fn(&[Dual<f64>]) -> Dual<f64>>,
        Box<dyn Fn(&[Dual64]) -> Dual64>,
    )>,
}

macro_rules! program {
    ($name:expr, $x:expr, $f:expr, forward = $fwd:expr) => {{
        let forward: Option<(
            Box<dyn Fn(&[Dual<f64>]) -> Dual<f64>>,
            Box<dyn Fn(&[Dual64]) -> Dual64>,
        )> = if $fwd {
            Some((
                Box::new(|x: &[Dual<f64>]| $f(x)),
                Box::new(|x: &[Dual64]| $f(x)),
            ))
        } else {
            None
        };
        Program {
            name: $name,
            x: $x,
            f64_fn: Box::new(|x: &[f64]| $f(x)),
            gradus: Box::new(|tape: &mut Tape, x: &[f64], g: &mut [f64]| {
                tape.grad_into(x, |v| $f(v), g)
            }),
            reverse: Box::new(|tape: &reverse::Tape, x: &[f64]| {
                tape.clear();
                let vars = tape.add_vars(x);
                let y = $f(&vars);
                (y.val, y.grad().wrt(&vars))
            }),
            adr: Box::new(|x: &[f64]| {
                GlobalComputationGraph::get().reset();
                let vars: Vec<adr> = x.iter().map(|&v| adr::new_variable(v, false)).collect();
                let y = $f(&vars);
                let g = y.get_backwards_mode_grad();
                (y.value(), vars.iter().map(|v| g.wrt(v)).collect())
            }),
            forward,
        }
    }};
}

fn forward_gradient<D: Copy>(
    x: &[f64],
    make: impl Fn(f64, f64) -> D,
    f: &dyn Fn(&[D]) -> D,
    tangent: impl Fn(D) -> f64,
) -> Vec<f64> {
    let mut xs: Vec<D> = x.iter().map(|&v| make(v, 0.0)).collect();
    (0..x.len())
        .map(|i| {
            xs[i] = make(x[i], 1.0);
            let d = tangent(f(&xs));
            xs[i] = make(x[i], 0.0);
            d
        })
        .collect()
}

fn programs() -> Vec<Program> {
    let mut ps = vec![program!(
        "fmult".to_string(),
        vec![3.0, 4.0],
        fmult,
        forward = true
    )];
    for n in [100usize, 1000, 10_000, 100_000] {
        ps.push(program!(
            format!("fdotprod/{n}"),
            gradus_tape::programs::dotprod_inputs(n),
            fdotprod,
            forward = false
        ));
    }
    ps.push(program!(
        "fsummatvec/100".to_string(),
        gradus_tape::programs::summatvec_inputs(100),
        |x| fsummatvec(x, 100),
        forward = false
    ));
    ps.push(program!(
        "fsummatvec/316".to_string(),
        gradus_tape::programs::summatvec_inputs(316),
        |x| fsummatvec(x, 316),
        forward = false
    ));
    ps.push(program!(
        "fneural".to_string(),
        gradus_tape::programs::neural_inputs(),
        fneural,
        forward = false
    ));
    ps.push(program!(
        "fparticles".to_string(),
        gradus_tape::programs::particles_inputs(),
        |x| fparticles(x, 1000),
        forward = true
    ));
    ps
}

fn check(name: &str, engine: &str, g: &[f64], reference: &[f64]) {
    let tol = gradus_check::Tolerance::new(1e-9, 1e-9);
    if let Err(m) = gradus_check::compare(g, reference, tol) {
        panic!("{name}: {engine} gradient disagrees with gradus-tape: {m}");
    }
}

fn bench_scalar_programs(c: &mut Criterion) {
    let rtape = reverse::Tape::new();
    for p in programs() {
        let mut tape = Tape::new();
        let mut g = vec![0.0; p.x.len()];
        let y = (p.gradus)(&mut tape, &p.x, &mut g);
        assert_eq!(y, (p.f64_fn)(&p.x), "{}: value", p.name);
        // Cross-check every engine against gradus-tape before timing.
        let (yr, gr) = (p.reverse)(&rtape, &p.x);
        assert!((yr - y).abs() <= 1e-9 * y.abs().max(1.0));
        check(&p.name, "reverse", &gr, &g);
        let (ya, ga) = (p.adr)(&p.x);
        assert!((ya - y).abs() <= 1e-9 * y.abs().max(1.0));
        check(&p.name, "ad_trait adr", &ga, &g);

        let mut group = c.benchmark_group(format!("tape/{}", p.name));
        group.bench_function("primal_f64", |b| b.iter(|| (p.f64_fn)(black_box(&p.x))));
        group.bench_function("gradus_tape", |b| {
            b.iter(|| (p.gradus)(&mut tape, black_box(&p.x), &mut g))
        });
        group.bench_function("reverse", |b| {
            b.iter(|| (p.reverse)(&rtape, black_box(&p.x)))
        });
        group.bench_function("ad_trait_adr", |b| b.iter(|| (p.adr)(black_box(&p.x))));
        if let Some((fg, fnd)) = &p.forward {
            let gf = forward_gradient(&p.x, Dual::new, fg.as_ref(), |d| d.d);
            check(&p.name, "gradus-num Dual", &gf, &g);
            let gn = forward_gradient(&p.x, Dual64::new, fnd.as_ref(), |d| d.eps);
            check(&p.name, "num-dual", &gn, &g);
            group.bench_function("gradus_num_dual_fwd", |b| {
                b.iter(|| forward_gradient(black_box(&p.x), Dual::new, fg.as_ref(), |d| d.d))
            });
            group.bench_function("num_dual_fwd", |b| {
                b.iter(|| forward_gradient(black_box(&p.x), Dual64::new, fnd.as_ref(), |d| d.eps))
            });
        }
        group.finish();
    }
}

/// `frotvecquat`: the full 3 × 7 Jacobian, one recording and three pullbacks (forward mode:
/// seven passes).
fn bench_rotvecquat(c: &mut Criterion) {
    let x = gradus_tape::programs::ROTVECQUAT_INPUTS;
    let mut group = c.benchmark_group("tape/frotvecquat");
    group.bench_function("primal_f64", |b| b.iter(|| frotvecquat(black_box(&x))));
    let mut tape = Tape::new();
    let mut adj = Adjoints::new();
    let options = ReverseOptions::default();
    let mut jac = [[0.0; 7]; 3];
    let mut gradus_jacobian = |x: &[f64], jac: &mut [[f64; 7]; 3]| {
        let rec = tape.record(x, |v| frotvecquat(v).to_vec());
        for (i, row) in jac.iter_mut().enumerate() {
            let mut seed = [0.0; 3];
            seed[i] = 1.0;
            rec.pullback_into(&seed, &options, &mut adj, row).unwrap();
        }
        tape.recycle(rec);
    };
    gradus_jacobian(&x, &mut jac);
    assert_eq!(jac[0], [4.0, -44.0, 118.0, 64.0, 48.0, -16.0, 20.0]);
    group.bench_function("gradus_tape", |b| {
        b.iter(|| gradus_jacobian(black_box(&x), &mut jac))
    });
    let rtape = reverse::Tape::new();
    let reverse_jacobian = |x: &[f64]| {
        rtape.clear();
        let vars = rtape.add_vars(x);
        let y = frotvecquat(&vars);
        y.map(|yi| yi.grad().wrt(&vars))
    };
    assert_eq!(reverse_jacobian(&x)[1], jac[1].to_vec());
    group.bench_function("reverse", |b| b.iter(|| reverse_jacobian(black_box(&x))));
    let adr_jacobian = |x: &[f64]| {
        GlobalComputationGraph::get().reset();
        let vars: Vec<adr> = x.iter().map(|&v| adr::new_variable(v, false)).collect();
        let y = frotvecquat(&vars);
        y.map(|yi| {
            let g = yi.get_backwards_mode_grad();
            vars.iter().map(|v| g.wrt(v)).collect::<Vec<f64>>()
        })
    };
    assert_eq!(adr_jacobian(&x)[2], jac[2].to_vec());
    group.bench_function("ad_trait_adr", |b| b.iter(|| adr_jacobian(black_box(&x))));
    let fwd = |x: &[f64]| {
        let mut cols = [[0.0; 3]; 7];
        for (i, col) in cols.iter_mut().enumerate() {
            let xs: [Dual<f64>; 7] =
                std::array::from_fn(|k| Dual::new(x[k], if k == i { 1.0 } else { 0.0 }));
            *col = frotvecquat(&xs).map(|d| d.d);
        }
        cols
    };
    assert_eq!(fwd(&x)[0][0], 4.0);
    group.bench_function("gradus_num_dual_fwd", |b| b.iter(|| fwd(black_box(&x))));
    let fwd_nd = |x: &[f64]| {
        let mut cols = [[0.0; 3]; 7];
        for (i, col) in cols.iter_mut().enumerate() {
            let xs: [Dual64; 7] =
                std::array::from_fn(|k| Dual64::new(x[k], if k == i { 1.0 } else { 0.0 }));
            *col = frotvecquat(&xs).map(|d| d.eps);
        }
        cols
    };
    assert_eq!(fwd_nd(&x)[0][0], 4.0);
    group.bench_function("num_dual_fwd", |b| b.iter(|| fwd_nd(black_box(&x))));
    group.finish();
}

/// Bytes of tape per recorded operation for each program (printed once).
fn tape_sizes(_: &mut Criterion) {
    let mut tape = Tape::new();
    let rows: Vec<(&str, Vec<f64>, gradus_tape::TapeStats)> = vec![
        {
            let x = gradus_tape::programs::dotprod_inputs(1000);
            let r = tape.record(&x, |v| vec![fdotprod(v)]);
            ("fdotprod/1000", x, r.stats())
        },
        {
            let x = gradus_tape::programs::summatvec_inputs(100);
            let r = tape.record(&x, |v| vec![fsummatvec(v, 100)]);
            ("fsummatvec/100", x, r.stats())
        },
        {
            let x = gradus_tape::programs::ROTVECQUAT_INPUTS.to_vec();
            let r = tape.record(&x, |v| frotvecquat(v).to_vec());
            ("frotvecquat", x, r.stats())
        },
        {
            let x = gradus_tape::programs::neural_inputs();
            let r = tape.record(&x, |v| vec![fneural(v)]);
            ("fneural", x, r.stats())
        },
        {
            let x = gradus_tape::programs::particles_inputs();
            let r = tape.record(&x, |v| vec![gradus_tape::programs::fparticles(v)]);
            ("fparticles (join chain)", x, r.stats())
        },
    ];
    for (name, _, s) in rows {
        eprintln!("tape size {name}: {s}");
    }
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

criterion_group! {
    name = benches;
    config = config();
    targets = tape_sizes, bench_scalar_programs, bench_rotvecquat
}
criterion_main!(benches);
