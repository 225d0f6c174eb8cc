//! `sparse_jacobian` and `sparse_hessian` of an entry point, on demand.
//!
//! **Takes** a compiled [`Program`] that remembers its source, an entry point, and the
//! position of its point `x`: a rank-1 float parameter. A Jacobian needs one float result of
//! rank 0 or 1; a Hessian one float scalar result. **Guarantees** either a clear
//! [`DeriveError`] or a [`SparseDerived`] whose calls take the entry's arguments and return
//! the derivative as compressed sparse rows `(values, columns, offsets)`: rows in order,
//! columns ascending within a row, every entry of the pattern listed, also where its value
//! is zero at this point.
//!
//! A call:
//! 1. finds the pattern by tracing the entry (for a Hessian, its gradient) with index sets
//!    ([`super::trace`]); the pattern, its colouring and the seeds are kept per value of the
//!    arguments other than `x` and per length of `x`, so later calls skip this step;
//! 2. colours the pattern ([`super::colour`]): for a Jacobian the columns (one Jacobian–vector
//!    product per colour) or, where that takes fewer colours, the rows (one vector–Jacobian
//!    product per colour); for a Hessian a star colouring of the symmetric pattern;
//! 3. runs the compressed products as one entry point of a derived program (`jmp`, `mjp`, or
//!    `jmp` of the gradient), on the program's backend;
//! 4. recovers the entries from the products.

use super::Traced;
use super::colour::{self, Colouring};
use super::csr::Pattern;
use super::trace::TraceError;
use crate::core::external::{CallError, EntryPoint, ExternalType};
use crate::derive::{Derivative, DeriveError, compile_entries, param_type};
use crate::program::Program;
use crate::value::{Array, Buffer, PrimType, Scalar, Value};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// Which sparse derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SparseKind {
    /// The Jacobian of a vector (or scalar) result.
    Jacobian,
    /// The Hessian of a scalar result.
    Hessian,
}

impl SparseKind {
    /// `sparse_jacobian` or `sparse_hessian`.
    pub fn name(self) -> &'static str {
        match self {
            SparseKind::Jacobian => "sparse_jacobian",
            SparseKind::Hessian => "sparse_hessian",
        }
    }

    /// The kind of this name.
    pub fn from_name(name: &str) -> Option<SparseKind> {
        [SparseKind::Jacobian, SparseKind::Hessian]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// How the entries are computed for one pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Products {
    /// One Jacobian–vector product per colour of the columns.
    Columns,
    /// One vector–Jacobian product per colour of the rows.
    Rows,
    /// One Hessian–vector product per colour of a star colouring.
    Star,
}

/// A pattern with what is needed to compute its entries.
pub struct SparsePlan {
    /// The pattern (`m` rows, `n` columns).
    pub pattern: Pattern,
    /// How the entries are computed.
    pub products: Products,
    /// The colouring used.
    pub colouring: Colouring,
    /// Seconds taken by the trace.
    pub trace_seconds: f64,
    /// Seconds taken by the colouring.
    pub colour_seconds: f64,
    seeds: Value,
}

/// A sparse derivative of an entry point: call it with the entry's arguments.
pub struct SparseDerived {
    kind: SparseKind,
    entry: EntryPoint,
    point: usize,
    elem: PrimType,
    traced: Traced,
    /// The derived program: the entry point itself (to report its errors) and the products.
    program: Program,
    columns_entry: String,
    rows_entry: Option<String>,
    plans: Mutex<HashMap<u64, Arc<SparsePlan>>>,
}

/// The sparse derivative `kind` of `entry` with respect to parameter `wrt` (default: the only
/// float parameter).
pub(crate) fn derive_sparse(
    prog: &Program,
    kind: SparseKind,
    entry: &str,
    wrt: Option<usize>,
) -> Result<SparseDerived, DeriveError> {
    let ep = prog
        .entry_points()
        .into_iter()
        .find(|e| e.name == entry)
        .ok_or_else(|| DeriveError::new(format!("no entry point named `{entry}`")))?;
    let point = point_position(kind, &ep, wrt)?;
    let ExternalType::Value { elem, .. } = ep.params[point] else {
        unreachable!("point_position checks the type");
    };
    check_result(kind, &ep)?;
    let what = format!("the {} of `{entry}`", kind.name());
    let traced = match kind {
        SparseKind::Jacobian => Traced::new(prog, entry),
        SparseKind::Hessian => {
            let g = prog.derive(Derivative::Grad, entry, Some(&[point]))?;
            Traced::new(g.program(), g.entry())
        }
    }
    .map_err(|m| DeriveError::new(format!("{what}: {m}")))?;
    let (source, columns_entry, rows_entry) = products_source(prog, kind, &ep, point)?;
    let mut keep = vec![entry, columns_entry.as_str()];
    if let Some(r) = &rows_entry {
        keep.push(r);
    }
    let program = compile_entries(prog, &source, &keep, &what)?;
    Ok(SparseDerived {
        kind,
        entry: ep,
        point,
        elem,
        traced,
        program,
        columns_entry,
        rows_entry,
        plans: Mutex::new(HashMap::new()),
    })
}

/// The position of the point: `wrt`, or the only float parameter; a rank-1 float array.
fn point_position(
    kind: SparseKind,
    ep: &EntryPoint,
    wrt: Option<usize>,
) -> Result<usize, DeriveError> {
    let floats: Vec<usize> = (0..ep.params.len())
        .filter(|&k| matches!(&ep.params[k], ExternalType::Value { elem, .. } if elem.is_float()))
        .collect();
    let k = match (wrt, floats.as_slice()) {
        (Some(k), _) => k,
        (None, [k]) => *k,
        (None, _) => {
            return Err(DeriveError::new(format!(
                "{} of `{}`: name the parameter to differentiate (it has {} float parameters)",
                kind.name(),
                ep.name,
                floats.len()
            )));
        }
    };
    match ep.params.get(k) {
        Some(ExternalType::Value { elem, rank: 1, .. }) if elem.is_float() => Ok(k),
        Some(t) => Err(DeriveError::new(format!(
            "{} of `{}` takes a one-dimensional f32 or f64 array, but parameter {k} has type {t}",
            kind.name(),
            ep.name
        ))),
        None => Err(DeriveError::new(format!(
            "`{}` has {} parameter(s): there is no position {k}",
            ep.name,
            ep.params.len()
        ))),
    }
}

fn check_result(kind: SparseKind, ep: &EntryPoint) -> Result<(), DeriveError> {
    let ok = match (kind, ep.results.as_slice()) {
        (SparseKind::Jacobian, [ExternalType::Value { elem, rank, .. }]) => {
            elem.is_float() && *rank <= 1
        }
        (SparseKind::Hessian, [ExternalType::Value { elem, rank, .. }]) => {
            elem.is_float() && *rank == 0
        }
        _ => false,
    };
    if ok {
        return Ok(());
    }
    let want = match kind {
        SparseKind::Jacobian => "one f32 or f64 result of rank 0 or 1",
        SparseKind::Hessian => "one f32 or f64 scalar result",
    };
    Err(DeriveError::new(format!(
        "{} of `{}` needs {want}, but it returns {}",
        kind.name(),
        ep.name,
        crate::derive::results_text(ep)
    )))
}

/// The source of the products' entry points: by columns (or Hessian–vector products) and, for
/// a Jacobian, by rows; with their names.
fn products_source(
    prog: &Program,
    kind: SparseKind,
    ep: &EntryPoint,
    point: usize,
) -> Result<(String, String, Option<String>), DeriveError> {
    let mut params = Vec::new();
    for (k, t) in ep.params.iter().enumerate() {
        params.push(format!(
            "(x{k}: {})",
            param_type(t, &format!("parameter {k}"))?
        ));
    }
    let args: Vec<String> = (0..ep.params.len())
        .map(|k| {
            if k == point {
                "w".into()
            } else {
                format!("x{k}")
            }
        })
        .collect();
    let lam = format!("(\\w -> {} {})", ep.name, args.join(" "));
    let ExternalType::Value { elem, .. } = &ep.params[point] else {
        unreachable!("checked by point_position");
    };
    let t = elem.name();
    let taken: Vec<String> = prog.entry_points().into_iter().map(|e| e.name).collect();
    let fresh = |base: String| {
        let mut name = base;
        while taken.contains(&name) {
            name.push('_');
        }
        name
    };
    let seeds = format!("(seeds: [][]{t})");
    let params = params.join(" ");
    let p = format!("x{point}");
    match kind {
        SparseKind::Jacobian => {
            let cols = fresh(format!("sparse_jvps_{}", ep.name));
            let rows = fresh(format!("sparse_vjps_{}", ep.name));
            // A scalar result has one row: its seeds are scalars.
            let row_seeds = match &ep.results[0] {
                ExternalType::Value { rank: 0, .. } => "(map (\\s -> s[0]) seeds)",
                _ => "seeds",
            };
            let source = format!(
                "entry {cols} {params} {seeds} =\n  jmp {lam} {p} seeds\n\n\
                 entry {rows} {params} {seeds} =\n  mjp {lam} {p} {row_seeds}\n"
            );
            Ok((source, cols, Some(rows)))
        }
        SparseKind::Hessian => {
            let hvps = fresh(format!("sparse_hvps_{}", ep.name));
            let source = format!(
                "entry {hvps} {params} {seeds} =\n  jmp (\\v -> vjp {lam} v 1) {p} seeds\n"
            );
            Ok((source, hvps, None))
        }
    }
}

impl SparseDerived {
    /// The kind of derivative.
    pub fn kind(&self) -> SparseKind {
        self.kind
    }

    /// The entry point it is the derivative of.
    pub fn entry_point(&self) -> &EntryPoint {
        &self.entry
    }

    /// The position of the parameter differentiated.
    pub fn point(&self) -> usize {
        self.point
    }

    /// The derivative at `args` (the entry's arguments): `[values, columns, offsets]`.
    pub fn call(&self, args: Vec<Value>) -> Result<Vec<Value>, CallError> {
        let plan = self.plan(&args)?;
        let m = plan.pattern.nrows;
        let count = plan.colouring.count;
        let products = if count == 0 {
            Vec::new()
        } else {
            let entry = match plan.products {
                Products::Rows => self.rows_entry.as_deref().expect("a Jacobian has rows"),
                _ => &self.columns_entry,
            };
            let mut with_seeds = args;
            with_seeds.push(plan.seeds.clone());
            let out = self.program.call(entry, with_seeds)?;
            flat_f64(&out[0])
        };
        let values = match plan.products {
            Products::Columns => {
                colour::recover_by_columns(&plan.pattern, &plan.colouring, &products)
            }
            Products::Rows => colour::recover_by_rows(&plan.pattern, &plan.colouring, &products),
            Products::Star => colour::recover_star(&plan.pattern, &plan.colouring, &products),
        };
        let p = &plan.pattern;
        let columns: Vec<i64> = p.columns.iter().map(|&c| c as i64).collect();
        let offsets: Vec<i64> = p.offsets.iter().map(|&o| o as i64).collect();
        debug_assert_eq!(offsets.len(), m + 1);
        Ok(vec![
            float_vector(self.elem, &values),
            Value::from_ndarray(ndarray::Array1::from(columns)),
            Value::from_ndarray(ndarray::Array1::from(offsets)),
        ])
    }

    /// The pattern and colouring for `args`: found once per value of the arguments other
    /// than the point and per length of the point.
    pub fn plan(&self, args: &[Value]) -> Result<Arc<SparsePlan>, CallError> {
        let refs: Vec<_> = args.iter().map(Value::as_value_ref).collect();
        crate::core::external::check_args(
            self.program.prog.entry(&self.entry.name),
            &self.entry.name,
            &refs,
        )?;
        let key = self.key(args);
        if let Some(p) = self
            .plans
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            return Ok(p.clone());
        }
        let plan = Arc::new(self.new_plan(args)?);
        self.plans
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, plan.clone());
        Ok(plan)
    }

    fn key(&self, args: &[Value]) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for (k, a) in args.iter().enumerate() {
            match a {
                Value::Scalar(s) => hash_scalar(*s, &mut h),
                Value::Array(arr) => {
                    arr.shape().hash(&mut h);
                    if k != self.point {
                        let b = arr.buffer();
                        for i in 0..b.len() {
                            hash_scalar(b.get(i), &mut h);
                        }
                    }
                }
            }
        }
        h.finish()
    }

    fn new_plan(&self, args: &[Value]) -> Result<SparsePlan, CallError> {
        let n = match &args[self.point] {
            Value::Array(a) => a.len(),
            Value::Scalar(_) => 1,
        };
        let started = std::time::Instant::now();
        let sets = match self.traced.sets(args, self.point) {
            Ok(s) => s,
            Err(TraceError::Fails) => return Err(self.failure(args)),
            Err(TraceError::Unsupported(m)) => {
                return Err(CallError::BadInput(format!(
                    "{} of `{}`: no sparsity pattern: {m}",
                    self.kind.name(),
                    self.entry.name
                )));
            }
        };
        let rows: Vec<Vec<u32>> = sets[0]
            .iter()
            .map(|d| d.as_ref().map(|v| v.to_vec()).unwrap_or_default())
            .collect();
        let trace_seconds = started.elapsed().as_secs_f64();
        let started = std::time::Instant::now();
        let mut pattern = Pattern::from_rows(n, &rows);
        let (products, colouring) = match self.kind {
            SparseKind::Hessian => {
                pattern = pattern.symmetrised();
                (Products::Star, colour::colour_star(&pattern))
            }
            SparseKind::Jacobian => {
                let by_columns = colour::colour_columns(&pattern);
                let by_rows = colour::colour_rows(&pattern);
                if by_rows.count < by_columns.count {
                    (Products::Rows, by_rows)
                } else {
                    (Products::Columns, by_columns)
                }
            }
        };
        let len = match products {
            Products::Rows => pattern.nrows,
            _ => n,
        };
        let seeds = seed_matrix(
            self.elem,
            &colour::seeds(&colouring, len),
            colouring.count,
            len,
        );
        Ok(SparsePlan {
            pattern,
            products,
            colouring,
            trace_seconds,
            colour_seconds: started.elapsed().as_secs_f64(),
            seeds,
        })
    }

    /// The error of the entry point itself at `args` (the trace found that it fails).
    fn failure(&self, args: &[Value]) -> CallError {
        match self.program.call(&self.entry.name, args.to_vec()) {
            Err(e) => e,
            Ok(_) => CallError::BadInput(format!(
                "internal error: tracing {} of `{}` failed where the entry point does not",
                self.kind.name(),
                self.entry.name
            )),
        }
    }
}

fn hash_scalar(s: Scalar, h: &mut impl Hasher) {
    match s {
        Scalar::F32(x) => x.to_bits().hash(h),
        Scalar::F64(x) => x.to_bits().hash(h),
        other => other.as_i64().hash(h),
    }
}

/// The elements of a float array, as `f64`.
fn flat_f64(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(a) => {
            let b = a.buffer();
            (0..b.len())
                .map(|i| match b.get(i) {
                    Scalar::F32(x) => x as f64,
                    Scalar::F64(x) => x,
                    _ => f64::NAN,
                })
                .collect()
        }
        Value::Scalar(Scalar::F64(x)) => vec![*x],
        Value::Scalar(Scalar::F32(x)) => vec![*x as f64],
        Value::Scalar(_) => vec![f64::NAN],
    }
}

fn float_buffer(elem: PrimType, xs: &[f64]) -> Buffer {
    let mut b = Buffer::with_capacity(elem, xs.len());
    for &x in xs {
        let s = match elem {
            PrimType::F32 => Scalar::F32(x as f32),
            _ => Scalar::F64(x),
        };
        b.push(s);
    }
    b
}

fn float_vector(elem: PrimType, xs: &[f64]) -> Value {
    Value::Array(Array::from_buffer(float_buffer(elem, xs)))
}

fn seed_matrix(elem: PrimType, xs: &[f64], rows: usize, cols: usize) -> Value {
    let a = Array::new(vec![rows, cols], float_buffer(elem, xs))
        .expect("the seeds have rows × cols elements");
    Value::Array(a)
}
