//! Derivative checking: an entry point's forward derivatives against central finite
//! differences (`gradus check`).
//!
//! For an entry point `f` of a program, [`check_jvp`] compiles the program with an extra
//! entry `jvp (\(a0, ..) -> f a0 ..) (x0, ..) (t0, ..)`, and for each floating-point input
//! separately draws a random direction, computes the derivative with gradus and with central
//! finite differences (step scaled to the input's magnitude, extrapolated from steps h and h/2,
//! [`gradus_check::fd::jvp_extrapolated`]), and
//! records the worst error of every floating-point output. Integer and boolean inputs are not
//! perturbed (their derivatives are exact by construction and finite differences do not apply
//! to them).
//!
//! The error of a pair is `|ad - fd| / max(1, |fd|)` per element, the worst element counting.
//!
//! [`check_vjp`] checks reverse mode: it adds entries for `vjp` and `jvp` of `f`, draws
//! a random direction `xdot` for all floating-point inputs and a random adjoint `ybar` for all
//! floating-point outputs, and compares `⟨vjp f x ybar, xdot⟩` with `⟨ybar, jvp f x xdot⟩`
//! (the transposition identity) and with `⟨ybar, fd(xdot)⟩` (finite differences). Integer and
//! boolean leaves get zero directions and adjoints.
//!
//! Both come in a `_with` form taking [`CheckOptions`]. The names before the shared
//! vocabulary (`docs/vocabulary.md`), `check_entry`, `check_entry_with`, `check_entry_vjp`,
//! `check_entry_vjp_with` and `CheckReport`, are deprecated aliases.

use crate::diag::Diagnostics;
use crate::program::{CallError, EntryPoint, ExternalType, Program};
use crate::value::{Array, Buffer, PrimType, Scalar, Value};
use gradus_check::SplitMix64;
use std::fmt;

/// The worst error of one (input, output) pair.
#[derive(Clone, Debug, PartialEq)]
pub struct PairError {
    /// Index of the entry's parameter that was perturbed.
    pub input: usize,
    /// Index of the entry's result.
    pub output: usize,
    /// The worst `|ad - fd| / max(1, |fd|)` over the output's elements.
    pub error: f64,
    /// Whether the input or the output is single precision (`f32`), where finite
    /// differences are only accurate to about 1e-3.
    pub single_precision: bool,
}

/// The outcome of checking one entry point's forward derivative at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct JvpReport {
    /// The entry point.
    pub entry: String,
    /// One line per (floating-point input, floating-point output) pair.
    pub pairs: Vec<PairError>,
}

/// Deprecated name of [`JvpReport`].
#[deprecated(note = "use JvpReport")]
pub type CheckReport = JvpReport;

impl JvpReport {
    /// The worst error over all pairs (0 when there is nothing to check).
    pub fn worst(&self) -> f64 {
        self.pairs.iter().map(|p| p.error).fold(0.0, f64::max)
    }

    /// Whether every pair is within `tolerance` (`tolerance_f32` for pairs involving `f32`).
    pub fn passes(&self, tolerance: f64, tolerance_f32: f64) -> bool {
        self.pairs.iter().all(|p| {
            p.error
                <= if p.single_precision {
                    tolerance_f32
                } else {
                    tolerance
                }
        })
    }
}

impl fmt::Display for JvpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.pairs {
            writeln!(
                f,
                "{}: input #{} -> output #{}: worst relative error {:.3e}",
                self.entry, p.input, p.output, p.error
            )?;
        }
        Ok(())
    }
}

/// Why a check could not be done.
#[derive(Debug)]
pub enum CheckError {
    /// The program (with the derivative entry) did not compile.
    Compile(Box<Diagnostics>),
    /// Running the entry or its derivative failed.
    Call(CallError),
    /// The entry cannot be checked (opaque parameter types, unknown entry).
    Unsupported(String),
    /// The chosen backend could not be set up (no C compiler, compilation failure).
    Backend(crate::program::BackendError),
}

/// How the programs of a check are compiled and run: the optimiser's options and the backend
/// (the interpreter, or native code), so `gradus check --backend c --no-opt` checks the
/// derivative that backend computes from unoptimised code.
#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// The optimiser's options.
    pub opt: crate::opt::OptOptions,
    /// The backend every program of the check runs on.
    pub backend: crate::program::Backend,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            opt: crate::opt::OptOptions::default(),
            backend: crate::program::Backend::Interpreter,
        }
    }
}

/// The entry point `entry` of `plain`, refused when it is missing or has an opaque parameter
/// or result (whose values cannot be perturbed or compared).
fn checkable_entry(plain: &Program, entry: &str) -> Result<EntryPoint, CheckError> {
    let ep = plain
        .entry_points()
        .into_iter()
        .find(|e| e.name == entry)
        .ok_or_else(|| CheckError::Unsupported(format!("no entry point named \"{entry}\"")))?;
    if let Some(ExternalType::Opaque(t)) = ep
        .params
        .iter()
        .chain(&ep.results)
        .find(|t| matches!(t, ExternalType::Opaque(_)))
    {
        return Err(CheckError::Unsupported(format!(
            "entry point \"{entry}\" has an opaque parameter or result type {t}"
        )));
    }
    Ok(ep)
}

/// Compiles `source` under `opts` and loads it on `opts`'s backend.
fn build(path: &str, source: &str, opts: &CheckOptions) -> Result<Program, CheckError> {
    Program::from_source_with(path, source, &opts.opt)
        .map_err(|d| CheckError::Compile(Box::new(d)))?
        .with_backend(opts.backend)
        .map_err(CheckError::Backend)
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckError::Compile(d) => write!(f, "{}", d.render()),
            CheckError::Call(e) => write!(f, "{e}"),
            CheckError::Unsupported(m) => f.write_str(m),
            CheckError::Backend(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CheckError {}

/// The name of the derivative entry added for `entry`.
fn jvp_entry_name(entry: &str) -> String {
    format!("gradus_check_jvp_{entry}")
}

/// The source with a derivative entry for `entry` of `arity` parameters appended.
pub fn with_jvp_entry(source: &str, entry: &str, arity: usize) -> String {
    let xs: Vec<String> = (0..arity).map(|i| format!("gradus_x{i}")).collect();
    let ts: Vec<String> = (0..arity).map(|i| format!("gradus_t{i}")).collect();
    let xa: Vec<String> = (0..arity).map(|i| format!("gradus_a{i}")).collect();
    let tuple = |v: &[String]| {
        if v.len() == 1 {
            v[0].clone()
        } else {
            format!("({})", v.join(", "))
        }
    };
    format!(
        "{source}\n\nentry {} {} {} = jvp (\\{} -> {entry} {}) {} {}\n",
        jvp_entry_name(entry),
        xs.join(" "),
        ts.join(" "),
        tuple(&xa),
        xa.join(" "),
        tuple(&xs),
        tuple(&ts),
    )
}

fn float_values(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(s) if s.prim_type().is_float() => vec![s.to_f64()],
        Value::Array(a) => match a.buffer() {
            Buffer::F64(x) => x.clone(),
            Buffer::F32(x) => x.iter().map(|v| *v as f64).collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

fn with_floats(template: &Value, xs: &[f64]) -> Value {
    match template {
        Value::Scalar(s) => Value::Scalar(Scalar::from_f64(s.prim_type(), xs[0])),
        Value::Array(a) => {
            let buf = match a.elem_type() {
                PrimType::F32 => Buffer::F32(xs.iter().map(|x| *x as f32).collect()),
                _ => Buffer::F64(xs.to_vec()),
            };
            match Array::new(a.shape().to_vec(), buf) {
                Some(arr) => Value::Array(arr),
                None => template.clone(),
            }
        }
    }
}

fn zero_like(v: &Value) -> Value {
    match v {
        Value::Scalar(s) => Value::Scalar(Scalar::zero(s.prim_type())),
        Value::Array(a) => {
            let buf = Buffer::filled(Scalar::zero(a.elem_type()), a.len());
            Value::Array(Array::new(a.shape().to_vec(), buf).unwrap_or_else(|| a.clone()))
        }
    }
}

/// Checks the forward derivatives of `entry` at `args` against finite differences.
pub fn check_jvp(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
) -> Result<JvpReport, CheckError> {
    check_jvp_with(path, source, entry, args, seed, &CheckOptions::default())
}

/// Deprecated name of [`check_jvp`].
#[deprecated(note = "use check_jvp")]
pub fn check_entry(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
) -> Result<JvpReport, CheckError> {
    check_jvp(path, source, entry, args, seed)
}

/// Deprecated name of [`check_jvp_with`].
#[deprecated(note = "use check_jvp_with")]
pub fn check_entry_with(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
    opts: &CheckOptions,
) -> Result<JvpReport, CheckError> {
    check_jvp_with(path, source, entry, args, seed, opts)
}

/// [`check_jvp`] compiled and run under `opts`.
pub fn check_jvp_with(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
    opts: &CheckOptions,
) -> Result<JvpReport, CheckError> {
    let plain = build(path, source, opts)?;
    checkable_entry(&plain, entry)?;
    let mut report = JvpReport {
        entry: entry.to_string(),
        pairs: Vec::new(),
    };
    if args.is_empty() {
        return Ok(report);
    }
    let augmented = with_jvp_entry(source, entry, args.len());
    let prog = build(path, &augmented, opts)?;
    let mut rng = SplitMix64::new(seed);
    for (i, x) in args.iter().enumerate() {
        if !x.elem_type().is_float() {
            continue;
        }
        let n = float_values(x).len();
        if n == 0 {
            continue;
        }
        let dir = rng.vector(n, -1.0, 1.0);
        let mut call_args = args.to_vec();
        for a in args {
            call_args.push(zero_like(a));
        }
        call_args[args.len() + i] = with_floats(x, &dir);
        let ad = prog
            .call(&jvp_entry_name(entry), call_args)
            .map_err(CheckError::Call)?;
        let base = float_values(x);
        let f = |xs: &[f64]| -> Vec<Vec<f64>> {
            let mut a = args.to_vec();
            a[i] = with_floats(x, xs);
            match plain.call(entry, a) {
                Ok(out) => out.iter().map(float_values).collect(),
                Err(_) => Vec::new(),
            }
        };
        // One finite-difference evaluation pair for all outputs.
        let outputs = ad.len();
        let flat = |xs: &[f64]| f(xs).concat();
        let single_input = x.elem_type() == PrimType::F32;
        let fd = if single_input {
            // In f32 the step must be much larger for rounding not to dominate.
            let scale = base.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            let h = 1e-3 * scale;
            let plus: Vec<f64> = base.iter().zip(&dir).map(|(b, d)| b + h * d).collect();
            let minus: Vec<f64> = base.iter().zip(&dir).map(|(b, d)| b - h * d).collect();
            let (fp, fm) = (flat(&plus), flat(&minus));
            fp.iter()
                .zip(&fm)
                .map(|(a, b)| (a - b) / (2.0 * h))
                .collect()
        } else {
            gradus_check::fd::jvp_extrapolated(&base, &dir, flat)
        };
        let mut offset = 0;
        for (j, out) in ad.iter().enumerate().take(outputs) {
            let a = float_values(out);
            if a.is_empty() || !out.elem_type().is_float() {
                continue;
            }
            let Some(fd_j) = fd.get(offset..offset + a.len()) else {
                break;
            };
            offset += a.len();
            let error = a
                .iter()
                .zip(fd_j)
                .map(|(ad, fd)| (ad - fd).abs() / fd.abs().max(1.0))
                .fold(0.0, f64::max);
            report.pairs.push(PairError {
                input: i,
                output: j,
                error,
                single_precision: single_input || out.elem_type() == PrimType::F32,
            });
        }
    }
    Ok(report)
}

/// The outcome of checking one entry point's reverse derivative at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct VjpReport {
    /// The entry point.
    pub entry: String,
    /// `⟨vjp f x ybar, xdot⟩`.
    pub reverse: f64,
    /// `⟨ybar, jvp f x xdot⟩`.
    pub forward: f64,
    /// `⟨ybar, fd(xdot)⟩`, central finite differences.
    pub finite_difference: f64,
    /// Whether an input or output is single precision.
    pub single_precision: bool,
}

impl VjpReport {
    /// `|reverse - forward| / max(1, |forward|)`: the error in the transposition identity.
    pub fn transposition_error(&self) -> f64 {
        (self.reverse - self.forward).abs() / self.forward.abs().max(1.0)
    }
    /// `|reverse - fd| / max(1, |fd|)`.
    pub fn fd_error(&self) -> f64 {
        (self.reverse - self.finite_difference).abs() / self.finite_difference.abs().max(1.0)
    }
    /// Whether both errors are within `tolerance` (`tolerance_f32` in single precision).
    pub fn passes(&self, tolerance: f64, tolerance_f32: f64) -> bool {
        let tol = if self.single_precision {
            tolerance_f32
        } else {
            tolerance
        };
        self.transposition_error() <= tol && self.fd_error() <= tol
    }
}

impl fmt::Display for VjpReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: <vjp, xdot> = {:.9e}, <ybar, jvp> = {:.9e} (error {:.3e}), <ybar, fd> = {:.9e} (error {:.3e})",
            self.entry,
            self.reverse,
            self.forward,
            self.transposition_error(),
            self.finite_difference,
            self.fd_error()
        )
    }
}

/// The name of the reverse-derivative entry added for `entry`.
fn vjp_entry_name(entry: &str) -> String {
    format!("gradus_check_vjp_{entry}")
}

/// The source with `jvp` and `vjp` entries for `entry` (`arity` parameters, `results`
/// results) appended.
pub fn with_vjp_entries(source: &str, entry: &str, arity: usize, results: usize) -> String {
    let names = |p: &str, k: usize| -> Vec<String> { (0..k).map(|i| format!("{p}{i}")).collect() };
    let tuple = |v: &[String]| {
        if v.len() == 1 {
            v[0].clone()
        } else {
            format!("({})", v.join(", "))
        }
    };
    let (xs, ys, xa) = (
        names("gradus_x", arity),
        names("gradus_y", results),
        names("gradus_a", arity),
    );
    format!(
        "{}entry {} {} {} = vjp (\\{} -> {entry} {}) {} {}\n",
        with_jvp_entry(source, entry, arity),
        vjp_entry_name(entry),
        xs.join(" "),
        ys.join(" "),
        tuple(&xa),
        xa.join(" "),
        tuple(&xs),
        tuple(&ys),
    )
}

fn inner(u: &[Value], v: &[Value]) -> f64 {
    u.iter()
        .zip(v)
        .map(|(a, b)| gradus_check::dot(&float_values(a), &float_values(b)))
        .sum()
}

fn random_like(v: &Value, rng: &mut SplitMix64) -> Value {
    let n = float_values(v).len();
    if !v.elem_type().is_float() || n == 0 {
        return zero_like(v);
    }
    with_floats(v, &rng.vector(n, -1.0, 1.0))
}

/// Checks the reverse derivative of `entry` at `args` against its forward derivative
/// (transposition identity) and finite differences, in one random direction.
pub fn check_vjp(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
) -> Result<VjpReport, CheckError> {
    check_vjp_with(path, source, entry, args, seed, &CheckOptions::default())
}

/// Deprecated name of [`check_vjp`].
#[deprecated(note = "use check_vjp")]
pub fn check_entry_vjp(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
) -> Result<VjpReport, CheckError> {
    check_vjp(path, source, entry, args, seed)
}

/// Deprecated name of [`check_vjp_with`].
#[deprecated(note = "use check_vjp_with")]
pub fn check_entry_vjp_with(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
    opts: &CheckOptions,
) -> Result<VjpReport, CheckError> {
    check_vjp_with(path, source, entry, args, seed, opts)
}

/// [`check_vjp`] compiled and run under `opts`.
pub fn check_vjp_with(
    path: &str,
    source: &str,
    entry: &str,
    args: &[Value],
    seed: u64,
    opts: &CheckOptions,
) -> Result<VjpReport, CheckError> {
    let plain = build(path, source, opts)?;
    let ep = checkable_entry(&plain, entry)?;
    if args.is_empty() || ep.results.is_empty() {
        return Err(CheckError::Unsupported(format!(
            "entry point \"{entry}\" has no parameters or no results"
        )));
    }
    let augmented = with_vjp_entries(source, entry, args.len(), ep.results.len());
    let prog = build(path, &augmented, opts)?;
    let y = plain.call(entry, args.to_vec()).map_err(CheckError::Call)?;
    let mut rng = SplitMix64::new(seed);
    let xdot: Vec<Value> = args.iter().map(|a| random_like(a, &mut rng)).collect();
    let ybar: Vec<Value> = y.iter().map(|a| random_like(a, &mut rng)).collect();
    let mut jvp_args = args.to_vec();
    jvp_args.extend(xdot.iter().cloned());
    let tangent = prog
        .call(&jvp_entry_name(entry), jvp_args)
        .map_err(CheckError::Call)?;
    let mut vjp_args = args.to_vec();
    vjp_args.extend(ybar.iter().cloned());
    let adjoint = prog
        .call(&vjp_entry_name(entry), vjp_args)
        .map_err(CheckError::Call)?;
    let single_precision = args
        .iter()
        .chain(&y)
        .any(|v| v.elem_type() == PrimType::F32);
    // Finite differences along xdot, all floating-point inputs at once.
    let along = |h: f64| -> Vec<Value> {
        let moved: Vec<Value> = args
            .iter()
            .zip(&xdot)
            .map(|(a, d)| {
                let base = float_values(a);
                if base.is_empty() || !a.elem_type().is_float() {
                    return a.clone();
                }
                let dd = float_values(d);
                let xs: Vec<f64> = base.iter().zip(&dd).map(|(b, d)| b + h * d).collect();
                with_floats(a, &xs)
            })
            .collect();
        plain.call(entry, moved).unwrap_or_default()
    };
    let scale = args
        .iter()
        .flat_map(float_values)
        .fold(1.0f64, |m, v| m.max(v.abs()));
    let h = if single_precision {
        1e-3 * scale
    } else {
        gradus_check::step_for(scale)
    };
    // Central differences at h and h/2, extrapolated (Richardson) to cancel the h² error.
    let central = |h: f64| (inner(&ybar, &along(h)) - inner(&ybar, &along(-h))) / (2.0 * h);
    let finite_difference = if single_precision {
        central(h)
    } else {
        (4.0 * central(h / 2.0) - central(h)) / 3.0
    };
    Ok(VjpReport {
        entry: entry.to_string(),
        reverse: inner(&adjoint, &xdot),
        forward: inner(&ybar, &tangent),
        finite_difference,
        single_precision,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f64s(v: &[f64]) -> Value {
        Value::Array(Array::from_buffer(Buffer::F64(v.to_vec())))
    }

    #[test]
    fn smooth_functions_pass() {
        let src =
            "entry f [n] (xs: [n]f64) (y: f64) = (f64.sum (map (\\x -> f64.sin x * y) xs), y * y)";
        let r = check_jvp(
            "t.fut",
            src,
            "f",
            &[f64s(&[0.1, 0.7, 1.3]), Value::Scalar(Scalar::F64(2.0))],
            1,
        )
        .unwrap();
        assert_eq!(r.pairs.len(), 4);
        assert!(r.worst() < 1e-6, "{r}");
    }

    #[test]
    fn a_function_with_jumps_fails() {
        // Rounding has derivative 0 (docs/language.md §Partial derivatives), but finite differences
        // across the jumps of `round (x * 1e7)` are huge: the check must notice.
        let src = "entry f (x: f64) = f64.round (x * 1e7)";
        let r = check_jvp("t.fut", src, "f", &[Value::Scalar(Scalar::F64(0.3))], 1).unwrap();
        assert!(r.worst() > 0.5, "{r}");
    }

    #[test]
    fn integer_inputs_are_not_perturbed() {
        let src = "entry f (x: f64) (k: i32) = x * f64.i32 k";
        let r = check_jvp(
            "t.fut",
            src,
            "f",
            &[
                Value::Scalar(Scalar::F64(1.5)),
                Value::Scalar(Scalar::I32(3)),
            ],
            1,
        )
        .unwrap();
        assert_eq!(r.pairs.len(), 1);
        assert!(r.worst() < 1e-6);
    }

    #[test]
    #[allow(deprecated)]
    fn deprecated_names_agree_with_check_jvp_and_check_vjp() {
        let src = "entry f (x: f64) (y: f64) = (x * f64.sin y, f64.exp x - y)";
        let args = [
            Value::Scalar(Scalar::F64(0.4)),
            Value::Scalar(Scalar::F64(-1.1)),
        ];
        let jvp = check_jvp("t.fut", src, "f", &args, 5).unwrap();
        assert!(jvp.worst() < 1e-6, "{jvp}");
        let old: CheckReport = check_entry("t.fut", src, "f", &args, 5).unwrap();
        assert_eq!(old, jvp);
        let opts = CheckOptions::default();
        assert_eq!(
            check_entry_with("t.fut", src, "f", &args, 5, &opts).unwrap(),
            jvp
        );
        let vjp = check_vjp("t.fut", src, "f", &args, 5).unwrap();
        assert!(vjp.passes(1e-6, 1e-3), "{vjp}");
        assert_eq!(check_entry_vjp("t.fut", src, "f", &args, 5).unwrap(), vjp);
        assert_eq!(
            check_entry_vjp_with("t.fut", src, "f", &args, 5, &opts).unwrap(),
            vjp
        );
    }
}
