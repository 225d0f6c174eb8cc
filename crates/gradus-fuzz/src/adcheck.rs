//! AD checks on random smooth programs.
//!
//! A smooth body `B` over a constant `c: [n][m]f64` and the differentiated input
//! `(x: [n]f64, s: f64)` (from [`crate::generate::Gen::smooth_body`]) becomes a function
//! `f_K c (x, s) = B` and entry points calling `jvp`, `vjp`, `jmp`, `mjp` and `jvp ∘ vjp` on
//! it. On the reference interpreter, with the input and the output flattened to vectors:
//!
//! * `jvp` agrees with central finite differences of the primal,
//! * `vjp` agrees with finite differences (a gradient of `<ybar, f>` by coordinates),
//! * the transposition identity `<vjp ybar, dx> = <ybar, jvp dx>` holds to rounding,
//! * `jmp` gives the `jvp` of each direction and `mjp` the `vjp` of each cotangent,
//! * `jvp (vjp f · ybar)` agrees with finite differences of `vjp`.
//! * `sparse_jacobian` of `f` over the flattened input (docs/sparse.md) is well-formed
//!   compressed sparse rows whose entries are the `jvp`s of the unit directions, and every
//!   entry it leaves out is zero there: no non-zero of the Jacobian is missed.
//!
//! The same program, with the same inputs, is also a subject of the differential runs, so the
//! derivative code is compared across every backend.

use crate::ast::{Exp, Ty};
use crate::diff::{self, Case, Config, Failure, Kind, Subject};
use crate::generate::{self, Gen, Mode};
use gradus::program::Program;
use gradus::value::{Array, Buffer, PrimType, Scalar, Value};
use gradus_check::{Tolerance, fd};
use rand::Rng;
use rand_pcg::Pcg64;
use std::fmt::Write;

/// Finite differences against exact derivatives (generous: the functions compose several
/// transcendental functions).
const FD_TOLERANCE: Tolerance = Tolerance {
    abs: 1e-5,
    rel: 1e-4,
};

/// Two exact derivatives computed differently.
const EXACT_TOLERANCE: Tolerance = Tolerance {
    abs: 1e-9,
    rel: 1e-8,
};

/// One differentiated function and the point and directions it is checked at.
#[derive(Clone, Debug)]
pub struct AdFunction {
    /// The body.
    pub body: Exp,
    /// Its type.
    pub result: Ty,
    /// Sizes `n`, `m`.
    pub n: usize,
    /// Second size.
    pub m: usize,
    /// The constant.
    pub c: Value,
    /// The point, `x` then `s`, flattened.
    pub point: Vec<f64>,
    /// Two tangent directions, flattened like the point.
    pub directions: [Vec<f64>; 2],
    /// Two cotangents, flattened like the result.
    pub cotangents: [Vec<f64>; 2],
}

fn result_len(ty: &Ty, n: usize, m: usize) -> usize {
    match ty.rank() {
        0 => 1,
        1 => n,
        _ => n * m,
    }
}

fn result_type_text(ty: &Ty) -> &'static str {
    match ty.rank() {
        0 => "f64",
        1 => "[n]f64",
        _ => "[n][m]f64",
    }
}

fn result_shape(ty: &Ty, n: usize, m: usize) -> Vec<usize> {
    match ty.rank() {
        0 => vec![],
        1 => vec![n],
        _ => vec![n, m],
    }
}

pub(crate) fn f64s(shape: &[usize], data: &[f64]) -> Value {
    if shape.is_empty() {
        return Value::Scalar(Scalar::F64(data[0]));
    }
    let mut b = Buffer::with_capacity(PrimType::F64, data.len());
    for &v in data {
        b.push(Scalar::F64(v));
    }
    Value::Array(Array::new(shape.to_vec(), b).expect("shape matches"))
}

/// Every float of a value, in row-major order.
pub fn flatten(v: &Value) -> Vec<f64> {
    match v {
        Value::Scalar(s) => vec![s.to_f64()],
        Value::Array(a) => (0..a.len()).map(|i| a.buffer().get(i).to_f64()).collect(),
    }
}

impl AdFunction {
    /// A random smooth function with a random point, directions and cotangents.
    pub fn generate(rng: &mut Pcg64, depth: usize) -> (AdFunction, generate::Coverage) {
        AdFunction::generate_with(rng, depth, false)
    }

    /// A random function as [`AdFunction::generate`] writes, with control flow and indexing
    /// that depend on float values where `value_control` ([`Gen::value_control`]): for the
    /// sparse checks only, since it is not smooth.
    pub fn generate_with(
        rng: &mut Pcg64,
        depth: usize,
        value_control: bool,
    ) -> (AdFunction, generate::Coverage) {
        let mut g = Gen::new(rng, Mode::Smooth);
        g.value_control = value_control;
        let (body, result) = g.smooth_body(depth);
        let coverage = g.coverage;
        let n = rng.random_range(1..=3);
        let m = rng.random_range(1..=3);
        let c = generate::value(rng, PrimType::F64, &[n, m], Mode::Smooth);
        let mut vector =
            |len: usize| -> Vec<f64> { (0..len).map(|_| rng.random_range(-1.5..1.5)).collect() };
        let point = vector(n + 1);
        let directions = [vector(n + 1), vector(n + 1)];
        let len = result_len(&result, n, m);
        let cotangents = [vector(len), vector(len)];
        (
            AdFunction {
                body,
                result,
                n,
                m,
                c,
                point,
                directions,
                cotangents,
            },
            coverage,
        )
    }

    /// The function alone, `f{k}`.
    pub fn def_source(&self, k: usize) -> String {
        format!(
            "def f{k} [n] [m] (c: [n][m]f64) (x: [n]f64, s: f64) : {} =\n  {}\n\n",
            result_type_text(&self.result),
            self.body.print()
        )
    }

    /// The function and its entry points, suffixed with `k`.
    pub fn source(&self, k: usize) -> String {
        let r = result_type_text(&self.result);
        let rs = |q: &str| format!("[{q}]{r}");
        let common = "[n] [m] (c: [n][m]f64) (x: [n]f64) (s: f64)";
        let mut o = self.def_source(k);
        let _ = writeln!(o, "entry primal{k} {common} = f{k} c (x, s)\n");
        let _ = writeln!(
            o,
            "entry jvp{k} {common} (dx: [n]f64) (ds: f64) = jvp (f{k} c) (x, s) (dx, ds)\n"
        );
        let _ = writeln!(
            o,
            "entry vjp{k} {common} (ybar: {r}) = vjp (f{k} c) (x, s) ybar\n"
        );
        let _ = writeln!(
            o,
            "entry jmp{k} [q] {common} (dxs: [q][n]f64) (dss: [q]f64) = jmp (f{k} c) (x, s) (zip dxs dss)\n"
        );
        let _ = writeln!(
            o,
            "entry mjp{k} [q] {common} (ybars: {}) = unzip (mjp (f{k} c) (x, s) ybars)\n",
            rs("q")
        );
        let _ = writeln!(
            o,
            "entry hvp{k} {common} (ybar: {r}) (dx: [n]f64) (ds: f64) =\n  jvp (\\(x', s') -> vjp (f{k} c) (x', s') ybar) (x, s) (dx, ds)\n"
        );
        o
    }

    /// The entry point `sparse{k}`: `sparse_jacobian` of the function over its input
    /// flattened to `[n + 1]` (`x` then `s`), with its result flattened. Compiled for the
    /// interpreter only ([`check_all`]), to keep the differential runs as they are.
    pub fn sparse_source(&self, k: usize) -> String {
        let flat = match self.result.rank() {
            0 => "[y]",
            1 => "y",
            _ => "flatten y",
        };
        format!(
            "entry sparse{k} [n] [m] (c: [n][m]f64) (x: [n]f64) (s: f64) =\n  let g (v: [n + 1]f64) = let y = f{k} c (take n v, v[n]) in {flat}\n  in sparse_jacobian g (concat x [s])\n\n"
        )
    }

    fn x_s(&self, flat: &[f64]) -> Vec<Value> {
        vec![
            f64s(&[self.n], &flat[..self.n]),
            Value::Scalar(Scalar::F64(flat[self.n])),
        ]
    }

    fn cot(&self, flat: &[f64]) -> Value {
        f64s(&result_shape(&self.result, self.n, self.m), flat)
    }

    fn base(&self, point: &[f64]) -> Vec<Value> {
        let mut v = vec![self.c.clone()];
        v.extend(self.x_s(point));
        v
    }

    /// The calls the differential runs make.
    pub fn cases(&self, k: usize) -> Vec<Case> {
        let p = &self.point;
        let case = |entry: &str, extra: Vec<Value>| {
            let mut args = self.base(p);
            args.extend(extra);
            Case {
                entry: format!("{entry}{k}"),
                args,
            }
        };
        let [d0, d1] = &self.directions;
        let [y0, y1] = &self.cotangents;
        let rows = |vs: &[&Vec<f64>], shape: &[usize]| {
            let mut all = Vec::new();
            for v in vs {
                all.extend_from_slice(v);
            }
            let mut s = vec![vs.len()];
            s.extend_from_slice(shape);
            f64s(&s, &all)
        };
        let n = self.n;
        let rshape = result_shape(&self.result, self.n, self.m);
        vec![
            case("primal", vec![]),
            case("jvp", self.x_s(d0)),
            case("vjp", vec![self.cot(y0)]),
            case(
                "jmp",
                vec![
                    rows(&[&d0[..n].to_vec(), &d1[..n].to_vec()], &[n]),
                    f64s(&[2], &[d0[n], d1[n]]),
                ],
            ),
            case("mjp", vec![rows(&[y0, y1], &rshape)]),
            case("hvp", {
                let mut v = vec![self.cot(y0)];
                v.extend(self.x_s(d0));
                v
            }),
        ]
    }

    /// Runs the checks on the interpreter (`prog`, optimised); the first failure.
    /// `unoptimised` is the same program unoptimised: a function that fails there at the
    /// point is not checked, since the optimiser may have removed the failing part from the
    /// primal but not from the derivatives (docs/language.md §Evaluation order allows either).
    pub fn check(&self, prog: &Program, unoptimised: &Program, k: usize) -> Result<(), String> {
        if unoptimised
            .call(&format!("primal{k}"), self.base(&self.point))
            .is_err()
        {
            return Ok(());
        }
        let call = |entry: &str, args: Vec<Value>| -> Result<Vec<Vec<f64>>, String> {
            prog.call(&format!("{entry}{k}"), args)
                .map(|vs| vs.iter().map(flatten).collect())
                .map_err(|e| format!("{entry}{k}: {e}"))
        };
        let with = |point: &[f64], extra: Vec<Value>| {
            let mut a = self.base(point);
            a.extend(extra);
            a
        };
        let primal = |v: &[f64]| call("primal", with(v, vec![])).map(|r| r[0].clone());
        let p = &self.point;
        // A run-time error (an unguarded index) makes the function unfit for checking.
        if primal(p).is_err() {
            return Ok(());
        }
        let primal_or_nan =
            |v: &[f64]| primal(v).unwrap_or_else(|_| vec![f64::NAN; self.cotangents[0].len()]);
        let n = self.n;
        let join = |r: &[Vec<f64>]| -> Vec<f64> { r.concat() };
        let mut ydots = Vec::new();
        for d in &self.directions {
            let ydot = call("jvp", with(p, self.x_s(d)))?.concat();
            let fd_ydot = fd::jvp_extrapolated(p, d, primal_or_nan);
            gradus_check::compare(&ydot, &fd_ydot, FD_TOLERANCE)
                .map_err(|m| format!("jvp{k} against finite differences: {m}"))?;
            ydots.push(ydot);
        }
        let mut xbars = Vec::new();
        for (j, y) in self.cotangents.iter().enumerate() {
            let xbar = join(&call("vjp", with(p, vec![self.cot(y)]))?);
            let fd_xbar = fd::vjp(p, y, primal_or_nan);
            gradus_check::compare(&xbar, &fd_xbar, FD_TOLERANCE)
                .map_err(|m| format!("vjp{k} against finite differences: {m}"))?;
            for (d, ydot) in self.directions.iter().zip(&ydots) {
                gradus_check::check_transposition(&xbar, d, y, ydot, EXACT_TOLERANCE)
                    .map_err(|e| format!("jvp{k}/vjp{k} (cotangent {j}): {e}"))?;
            }
            xbars.push(xbar);
        }
        // jmp: one row per direction.
        let cases = self.cases(k);
        let jmp = call("jmp", with(p, cases[3].args[3..].to_vec()))?;
        let per = ydots[0].len();
        for (j, ydot) in ydots.iter().enumerate() {
            let row = &jmp[0][j * per..(j + 1) * per];
            gradus_check::compare(row, ydot, EXACT_TOLERANCE)
                .map_err(|m| format!("jmp{k} row {j} against jvp{k}: {m}"))?;
        }
        // mjp: the rows of x's cotangents and the s cotangents.
        let mjp = call("mjp", with(p, cases[4].args[3..].to_vec()))?;
        for (j, xbar) in xbars.iter().enumerate() {
            let mut row = mjp[0][j * n..(j + 1) * n].to_vec();
            row.push(mjp[1][j]);
            gradus_check::compare(&row, xbar, EXACT_TOLERANCE)
                .map_err(|m| format!("mjp{k} row {j} against vjp{k}: {m}"))?;
        }
        // Second order: jvp of vjp against finite differences of vjp.
        let y0 = self.cot(&self.cotangents[0]);
        let d0 = &self.directions[0];
        let hvp = join(&call("hvp", {
            let mut e = vec![y0.clone()];
            e.extend(self.x_s(d0));
            with(p, e)
        })?);
        let vjp_at = |v: &[f64]| {
            call("vjp", with(v, vec![y0.clone()]))
                .map(|r| r.concat())
                .unwrap_or_else(|_| vec![f64::NAN; n + 1])
        };
        let fd_hvp = fd::jvp_extrapolated(p, d0, vjp_at);
        gradus_check::compare(&hvp, &fd_hvp, FD_TOLERANCE)
            .map_err(|m| format!("hvp{k} (jvp of vjp) against finite differences of vjp: {m}"))?;
        Ok(())
    }

    /// `sparse_jacobian` against the `jvp`s of the unit directions at the point: well-formed
    /// compressed sparse rows, the listed values equal to the Jacobian's, every entry left
    /// out zero.
    pub fn check_sparse(&self, prog: &Program, k: usize) -> Result<(), String> {
        let call = |entry: &str, extra: Vec<Value>| -> Result<Vec<Vec<f64>>, String> {
            let mut args = self.base(&self.point);
            args.extend(extra);
            prog.call(&format!("{entry}{k}"), args)
                .map(|vs| vs.iter().map(flatten).collect())
                .map_err(|e| format!("{entry}{k}: {e}"))
        };
        // A run-time error (an unguarded index) makes the function unfit for checking.
        if call("primal", vec![]).is_err() {
            return Ok(());
        }
        let inputs = self.n + 1;
        let mut columns = Vec::with_capacity(inputs);
        for j in 0..inputs {
            let unit: Vec<f64> = (0..inputs).map(|t| f64::from(u8::from(t == j))).collect();
            columns.push(call("jvp", self.x_s(&unit))?.concat());
        }
        let sparse = call("sparse", vec![])?;
        let [values, cols, offsets] = sparse.as_slice() else {
            return Err(format!("sparse{k}: {} results, not 3", sparse.len()));
        };
        let rows = columns[0].len();
        let bad = |what: String| Err(format!("sparse{k}: {what}"));
        if offsets.len() != rows + 1 || offsets[0] != 0.0 || offsets[rows] != cols.len() as f64 {
            return bad(format!(
                "offsets {offsets:?} for {rows} rows, {} entries",
                cols.len()
            ));
        }
        let mut listed = Vec::new();
        let mut dense = Vec::new();
        for i in 0..rows {
            let (lo, hi) = (offsets[i] as usize, offsets[i + 1] as usize);
            if lo > hi || hi > cols.len() {
                return bad(format!("offsets {offsets:?}"));
            }
            let row: Vec<usize> = cols[lo..hi].iter().map(|&c| c as usize).collect();
            if row.windows(2).any(|w| w[0] >= w[1]) || row.iter().any(|&c| c >= inputs) {
                return bad(format!("columns {row:?} of row {i}"));
            }
            for (j, column) in columns.iter().enumerate() {
                if row.contains(&j) {
                    listed.push(values[lo + row.iter().position(|&c| c == j).unwrap_or(0)]);
                    dense.push(column[i]);
                } else if column[i] != 0.0 {
                    return bad(format!("entry ({i}, {j}) = {} is not listed", column[i]));
                }
            }
        }
        gradus_check::compare(&listed, &dense, EXACT_TOLERANCE)
            .map_err(|m| format!("sparse{k} against jvp{k} of unit directions: {m}"))
    }
}

/// A program of several smooth functions: its subject for the differential runs.
pub fn subject(name: &str, functions: &[AdFunction]) -> Subject {
    let mut source = String::new();
    let mut cases = Vec::new();
    for (k, f) in functions.iter().enumerate() {
        source.push_str(&f.source(k));
        cases.extend(f.cases(k));
    }
    Subject {
        name: name.to_string(),
        source,
        cases,
    }
}

/// Runs the AD checks of every function of the subject on the oracle.
pub fn check_all(subject: &Subject, functions: &[AdFunction]) -> Vec<Failure> {
    let optimised = Config::Interp { opt: true };
    let compiled = diff::compile(subject, optimised)
        .and_then(|p| Ok((p, diff::compile(subject, Config::ORACLE)?)));
    let sparse = Subject {
        name: subject.name.clone(),
        source: functions
            .iter()
            .enumerate()
            .fold(subject.source.clone(), |s, (k, f)| s + &f.sparse_source(k)),
        cases: Vec::new(),
    };
    let compiled = compiled.and_then(|(p, u)| Ok((p, u, diff::compile(&sparse, optimised)?)));
    let (prog, unoptimised, sparse) = match compiled {
        Ok(p) => p,
        Err(f) => return vec![f],
    };
    let mut failures = Vec::new();
    for (k, f) in functions.iter().enumerate() {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            f.check(&prog, &unoptimised, k)?;
            if unoptimised
                .call(&format!("primal{k}"), f.base(&f.point))
                .is_err()
            {
                return Ok(());
            }
            f.check_sparse(&sparse, k)
        }));
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(Failure {
                kind: Kind::Derivative,
                config: Some(optimised),
                case: None,
                detail: e,
            }),
            Err(_) => failures.push(Failure {
                kind: Kind::Panic,
                config: Some(optimised),
                case: None,
                detail: format!("panic while checking f{k}"),
            }),
        }
    }
    failures
}
