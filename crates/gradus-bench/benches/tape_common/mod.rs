//! Shared by the `tape_*` benchmarks: the six docs/tape.md §Tests and benchmarks programs over the
//! bench-local trait `Sc`, its implementations for every engine, and one full differentiation per
//! engine.

#![allow(dead_code, clippy::type_complexity)]

use ad_trait::reverse_ad::adr::{GlobalComputationGraph, adr};
use gradus_num::Dual;
use gradus_tape::{Tape, Var};
use num_dual::{Dual64, DualNum};
use reverse::Gradient;
use std::ops::{Add, Div, Mul, Sub};

/// The operations the benchmark programs need.
pub trait Sc:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self>
{
    fn val(self) -> f64;
    fn mulc(self, c: f64) -> Self;
    fn exp(self) -> Self;
    /// A dot product as the engine's vector operation where it has one (gradus-tape's `dot`,
    /// one node); the scalar loop [`dot`] otherwise.
    fn vdot(u: &[Self], v: &[Self]) -> Self {
        dot(u, v)
    }
    /// One Euler step of [`fparticles`] as the engine's statements where it has them
    /// (gradus-tape's `statement`, one node per assignment); the scalar operations otherwise.
    fn step(s: [Self; 4]) -> [Self; 4] {
        euler_step(s)
    }
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
    fn vdot(u: &[Self], v: &[Self]) -> Self {
        gradus_tape::dot(u, v)
    }
    fn step([px, py, vx, vy]: [Self; 4]) -> [Self; 4] {
        use gradus_tape::statement;
        // The same operations in the same order as `euler_step`, one record per state variable.
        [
            statement([px, vx], |[p, v]| p + v * 0.05),
            statement([py, vy], |[p, v]| p + v * 0.05),
            statement([vx, px], |[v, p]| v + (p * -0.5 - v * 0.2) * 0.05),
            statement([vy, py], |[v, p]| v + (p * -0.5 - v * 0.2) * 0.05),
        ]
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

pub fn fmult<S: Sc>(x: &[S]) -> S {
    x[0] * x[1]
}

pub fn dot<S: Sc>(u: &[S], v: &[S]) -> S {
    let mut acc = u[0] * v[0];
    for i in 1..u.len() {
        acc = acc + u[i] * v[i];
    }
    acc
}

/// The scalar loop [`dot`], or the engine's vector operation [`Sc::vdot`] when `V`.
fn dot_as<S: Sc, const V: bool>(u: &[S], v: &[S]) -> S {
    if V { S::vdot(u, v) } else { dot(u, v) }
}

pub fn fdotprod<S: Sc>(x: &[S]) -> S {
    fdotprod_as::<S, false>(x)
}

pub fn fdotprod_as<S: Sc, const V: bool>(x: &[S]) -> S {
    let (u, v) = x.split_at(x.len() / 2);
    dot_as::<S, V>(u, v)
}

pub fn fsummatvec<S: Sc>(x: &[S], n: usize) -> S {
    fsummatvec_as::<S, false>(x, n)
}

pub fn fsummatvec_as<S: Sc, const V: bool>(x: &[S], n: usize) -> S {
    let (m, v) = x.split_at(n * n);
    let mut total = dot_as::<S, V>(&m[..n], v);
    for r in 1..n {
        total = total + dot_as::<S, V>(&m[r * n..(r + 1) * n], v);
    }
    total
}

pub fn frotvecquat<S: Sc>(x: &[S]) -> [S; 3] {
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

fn layer<S: Sc, const V: bool>(w: &[S], b: &[S], x: &[S]) -> Vec<S> {
    w.chunks_exact(x.len())
        .zip(b)
        .map(|(row, &bi)| {
            let z = dot_as::<S, V>(row, x) + bi;
            if z.val() >= 0.0 { z } else { z.mulc(0.0) }
        })
        .collect()
}

pub fn fneural<S: Sc>(p: &[S]) -> S {
    fneural_as::<S, false>(p)
}

pub fn fneural_as<S: Sc, const V: bool>(p: &[S]) -> S {
    let (x, rest) = p.split_at(50);
    let (w1, rest) = rest.split_at(5000);
    let (b1, rest) = rest.split_at(100);
    let (w2, b2) = rest.split_at(5000);
    let h2 = layer::<S, V>(w2, b2, &layer::<S, V>(w1, b1, x));
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

/// One explicit Euler step of a particle `(px, py, vx, vy)`.
pub fn euler_step<S: Sc>([px, py, vx, vy]: [S; 4]) -> [S; 4] {
    let ax = px.mulc(-0.5) - vx.mulc(0.2);
    let ay = py.mulc(-0.5) - vy.mulc(0.2);
    [
        px + vx.mulc(0.05),
        py + vy.mulc(0.05),
        vx + ax.mulc(0.05),
        vy + ay.mulc(0.05),
    ]
}

pub fn fparticles<S: Sc>(x: &[S], steps: usize) -> S {
    fparticles_as::<S, false>(x, steps)
}

/// [`fparticles`], each step by [`euler_step`], or by the engine's [`Sc::step`] when `V`.
pub fn fparticles_as<S: Sc, const V: bool>(x: &[S], steps: usize) -> S {
    let mut out: Option<S> = None;
    for s in x.chunks_exact(4) {
        let mut state = [s[0], s[1], s[2], s[3]];
        for _ in 0..steps {
            state = if V { S::step(state) } else { euler_step(state) };
        }
        let y = state[0] * state[1];
        out = Some(match out {
            None => y,
            Some(o) => o + y,
        });
    }
    out.unwrap()
}

// ---- the engines -------------------------------------------------------------------------

/// A scalar program: a name, its inputs, and its instances for every engine.
pub struct Program {
    pub name: String,
    pub x: Vec<f64>,
    pub f64_fn: Box<dyn Fn(&[f64]) -> f64>,
    pub gradus: Box<dyn Fn(&mut Tape, &[f64], &mut [f64]) -> f64>,
    pub reverse: Box<dyn Fn(&reverse::Tape, &[f64]) -> (f64, Vec<f64>)>,
    pub adr: Box<dyn Fn(&[f64]) -> (f64, Vec<f64>)>,
    pub forward: Option<(
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

pub fn forward_gradient<D: Copy>(
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

pub fn programs() -> Vec<Program> {
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
    // The same programs with gradus-tape's vector operation `dot` (one node per dot product);
    // the other engines run their scalar loop, as in the rows above.
    for n in [1000usize, 100_000] {
        ps.push(program!(
            format!("fdotprod/{n} +dot"),
            gradus_tape::programs::dotprod_inputs(n),
            fdotprod_as::<_, true>,
            forward = false
        ));
    }
    ps.push(program!(
        "fsummatvec/316 +dot".to_string(),
        gradus_tape::programs::summatvec_inputs(316),
        |x| fsummatvec_as::<_, true>(x, 316),
        forward = false
    ));
    ps.push(program!(
        "fneural +dot".to_string(),
        gradus_tape::programs::neural_inputs(),
        fneural_as::<_, true>,
        forward = false
    ));
    ps.push(program!(
        "fparticles".to_string(),
        gradus_tape::programs::particles_inputs(),
        |x| fparticles(x, 1000),
        forward = true
    ));
    ps.push(program!(
        "fparticles +stmt".to_string(),
        gradus_tape::programs::particles_inputs(),
        |x| fparticles_as::<_, true>(x, 1000),
        forward = false
    ));
    ps
}

pub fn check(name: &str, engine: &str, g: &[f64], reference: &[f64]) {
    let tol = gradus_check::Tolerance::new(1e-9, 1e-9);
    if let Err(m) = gradus_check::compare(g, reference, tol) {
        panic!("{name}: {engine} gradient disagrees with gradus-tape: {m}");
    }
}
