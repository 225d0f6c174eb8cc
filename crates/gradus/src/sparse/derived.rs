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
use crate::value::{Array, Buffer, PrimType, Scalar, Value, ValueRef, ViewData};
use std::collections::HashMap;
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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
    /// Where each entry lies in the products (row-major, one row per colour).
    sources: Vec<usize>,
    /// The pattern's columns and row offsets as the results give them.
    columns: Value,
    offsets: Value,
}

/// A sparse derivative of an entry point: call it with the entry's arguments.
pub struct SparseDerived {
    kind: SparseKind,
    entry: EntryPoint,
    point: usize,
    elem: PrimType,
    traced: Traced,
    /// For a Hessian, the gradient its pattern is traced on (to report its errors).
    gradient: Option<crate::derive::Derived>,
    /// The derived program: the entry point itself (to report its errors) and the products.
    program: Program,
    columns_entry: String,
    rows_entry: Option<String>,
    plans: Mutex<Vec<(Vec<ArgKey>, Arc<SparsePlan>)>>,
    /// The products' entry points for a known number of colours, compiled on first use
    /// (`None` where that failed: the entry points for any number serve then).
    with_lanes: Mutex<LanePrograms>,
}

type LanePrograms = HashMap<(Products, usize), Option<Arc<(Program, String)>>>;

/// Up to how many colours the products are compiled for their number of colours (as lanes
/// of one forward sweep); beyond, one sweep per colour.
pub const MAX_LANES: usize = 32;

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
    let gradient = match kind {
        SparseKind::Jacobian => None,
        SparseKind::Hessian => Some(prog.derive(Derivative::Grad, entry, Some(&[point]))?),
    };
    let traced = match &gradient {
        None => Traced::new(prog, entry),
        Some(g) => Traced::new(g.program(), g.entry()),
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
        gradient,
        program,
        columns_entry,
        rows_entry,
        plans: Mutex::new(Vec::new()),
        with_lanes: Mutex::new(HashMap::new()),
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
    let fresh = fresh_names(prog);
    match kind {
        SparseKind::Jacobian => {
            let cols = fresh(format!("sparse_jvps_{}", ep.name));
            let rows = fresh(format!("sparse_vjps_{}", ep.name));
            let source = format!(
                "{}\n{}",
                product_entry(&cols, Products::Columns, ep, point, None)?,
                product_entry(&rows, Products::Rows, ep, point, None)?
            );
            Ok((source, cols, Some(rows)))
        }
        SparseKind::Hessian => {
            let hvps = fresh(format!("sparse_hvps_{}", ep.name));
            let source = product_entry(&hvps, Products::Star, ep, point, None)?;
            Ok((source, hvps, None))
        }
    }
}

/// A name made unique among the program's entry points (by appending `_`).
fn fresh_names(prog: &Program) -> impl Fn(String) -> String {
    let taken: Vec<String> = prog.entry_points().into_iter().map(|e| e.name).collect();
    move |base: String| {
        let mut name = base;
        while taken.contains(&name) {
            name.push('_');
        }
        name
    }
}

/// The source of entry point `name` computing `products` of `ep` at its parameter `point`
/// for seeds `[lanes][n]` (`[][n]` without `lanes`: any number of them; with a number known
/// to the compiler, `jmp` carries the directions as lanes of one forward sweep).
fn product_entry(
    name: &str,
    products: Products,
    ep: &EntryPoint,
    point: usize,
    lanes: Option<usize>,
) -> Result<String, DeriveError> {
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
    let count = lanes.map_or(String::new(), |c| c.to_string());
    let seeds = format!("(seeds: [{count}][]{})", elem.name());
    let params = params.join(" ");
    let p = format!("x{point}");
    let body = match products {
        Products::Columns => format!("jmp {lam} {p} seeds"),
        // A scalar result has one row: its seeds are scalars.
        Products::Rows => match &ep.results[0] {
            ExternalType::Value { rank: 0, .. } => {
                format!("mjp {lam} {p} (map (\\s -> s[0]) seeds)")
            }
            _ => format!("mjp {lam} {p} seeds"),
        },
        Products::Star => format!("jmp (\\v -> vjp {lam} v 1) {p} seeds"),
    };
    Ok(format!("entry {name} {params} {seeds} =\n  {body}\n"))
}

impl SparsePlan {
    /// The entries, in the pattern's order, from the products (row-major, one per colour).
    fn recover(&self, products: &[f64]) -> Vec<f64> {
        self.sources
            .iter()
            .map(|&k| products.get(k).copied().unwrap_or(f64::NAN))
            .collect()
    }
}

/// Where each entry of `p` lies in the products of `c`: by columns, element `i` of the
/// product of column `j`'s colour; by rows, element `j` of the product of row `i`'s colour;
/// for a star colouring, as [`colour::star_sources`] says.
fn sources(p: &Pattern, c: &Colouring, products: Products) -> Vec<usize> {
    let mut out = Vec::with_capacity(p.nnz());
    match products {
        Products::Columns => {
            for i in 0..p.nrows {
                out.extend(
                    p.row(i)
                        .iter()
                        .map(|&j| c.colour[j as usize] as usize * p.nrows + i),
                );
            }
        }
        Products::Rows => {
            for i in 0..p.nrows {
                let base = c.colour[i] as usize * p.ncols;
                out.extend(p.row(i).iter().map(|&j| base + j as usize));
            }
        }
        Products::Star => out = colour::star_sources(p, c),
    }
    out
}

impl SparseDerived {
    /// The products' program and entry point for `count` colours, compiled on first use.
    fn lanes_program(&self, products: Products, count: usize) -> Option<Arc<(Program, String)>> {
        if count > MAX_LANES {
            return None;
        }
        let mut cache = self.with_lanes.lock().unwrap_or_else(|p| p.into_inner());
        cache
            .entry((products, count))
            .or_insert_with(|| {
                let name =
                    fresh_names(&self.program)(format!("sparse_{count}_{}", self.entry.name));
                let source =
                    product_entry(&name, products, &self.entry, self.point, Some(count)).ok()?;
                let what = format!("the {} of `{}`", self.kind.name(), self.entry.name);
                let program = compile_entries(&self.program, &source, &[&name], &what).ok()?;
                Some(Arc::new((program, name)))
            })
            .clone()
    }

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
        let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
        self.call_ref(&refs)
    }

    /// [`SparseDerived::call`] with borrowed arguments.
    pub fn call_ref(&self, args: &[ValueRef]) -> Result<Vec<Value>, CallError> {
        let plan = self.plan_ref(args)?;
        let values = if plan.colouring.count == 0 {
            Vec::new()
        } else {
            let lanes = self.lanes_program(plan.products, plan.colouring.count);
            let (program, entry) = match &lanes {
                Some(found) => (&found.0, found.1.as_str()),
                None => (
                    &self.program,
                    match plan.products {
                        Products::Rows => self.rows_entry.as_deref().expect("a Jacobian has rows"),
                        _ => self.columns_entry.as_str(),
                    },
                ),
            };
            let mut refs: Vec<ValueRef> = args.to_vec();
            refs.push(plan.seeds.as_value_ref());
            // The entries are read from the products where the backend left them.
            program.call_with(entry, &refs, |out| match out.first() {
                Some(ValueRef::Array(view)) => match view.data() {
                    ViewData::F64(xs) => plan.recover(xs),
                    ViewData::F32(xs) => {
                        plan.recover(&xs.iter().map(|&x| x as f64).collect::<Vec<_>>())
                    }
                    _ => Vec::new(),
                },
                Some(ValueRef::Scalar(s)) => plan.recover(&[match s {
                    Scalar::F32(x) => *x as f64,
                    Scalar::F64(x) => *x,
                    _ => f64::NAN,
                }]),
                None => Vec::new(),
            })?
        };
        let values = match self.elem {
            PrimType::F32 => {
                Value::from_ndarray(ndarray::Array1::from_iter(values.iter().map(|&x| x as f32)))
            }
            _ => Value::from_ndarray(ndarray::Array1::from(values)),
        };
        Ok(vec![values, plan.columns.clone(), plan.offsets.clone()])
    }

    /// The pattern and colouring for `args`: found once per value of the arguments other
    /// than the point and per length of the point (the last [`KEPT_PLANS`] are kept).
    pub fn plan(&self, args: &[Value]) -> Result<Arc<SparsePlan>, CallError> {
        let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
        self.plan_ref(&refs)
    }

    /// [`SparseDerived::plan`] with borrowed arguments.
    pub fn plan_ref(&self, args: &[ValueRef]) -> Result<Arc<SparsePlan>, CallError> {
        crate::core::external::check_args(
            self.program.prog.entry(&self.entry.name),
            &self.entry.name,
            args,
        )?;
        let found = {
            let plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
            plans
                .iter()
                .find(|(key, _)| {
                    key.len() == args.len()
                        && key
                            .iter()
                            .zip(args)
                            .enumerate()
                            .all(|(k, (a, v))| a.matches(v, k == self.point))
                })
                .map(|(_, p)| p.clone())
        };
        if let Some(p) = found {
            return Ok(p);
        }
        let plan = Arc::new(self.new_plan(args)?);
        let key: Vec<ArgKey> = args
            .iter()
            .enumerate()
            .map(|(k, a)| ArgKey::of(a, k == self.point))
            .collect();
        let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        if plans.len() == KEPT_PLANS {
            plans.remove(0);
        }
        plans.push((key, plan.clone()));
        Ok(plan)
    }

    fn new_plan(&self, args: &[ValueRef]) -> Result<SparsePlan, CallError> {
        let n = args[self.point].shape().iter().product();
        let started = std::time::Instant::now();
        let sets = match self.traced.sets(args, self.point) {
            Ok(s) => s,
            Err(TraceError::Fails) => return Err(self.failure(args)),
            Err(e) => {
                let sources = &self.program.sources;
                return Err(CallError::BadInput(format!(
                    "{} of `{}`: no sparsity pattern: {}",
                    self.kind.name(),
                    self.entry.name,
                    e.reason(|span| sources.short_location(span))
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
                // Rows need at least as many colours as the longest column has entries;
                // they are coloured only where that could beat the columns (colouring the
                // rows of a pattern with long columns, BA's cameras, costs their squares).
                let by_columns = colour::colour_columns(&pattern);
                let longest_column = pattern.transpose().max_row_len();
                match (longest_column < by_columns.count).then(|| colour::colour_rows(&pattern)) {
                    Some(by_rows) if by_rows.count < by_columns.count => (Products::Rows, by_rows),
                    _ => (Products::Columns, by_columns),
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
        let sources = sources(&pattern, &colouring, products);
        let columns = pattern
            .columns
            .iter()
            .map(|&c| c as i64)
            .collect::<Vec<_>>();
        let offsets = pattern
            .offsets
            .iter()
            .map(|&o| o as i64)
            .collect::<Vec<_>>();
        Ok(SparsePlan {
            sources,
            columns: Value::from_ndarray(ndarray::Array1::from(columns)),
            offsets: Value::from_ndarray(ndarray::Array1::from(offsets)),
            pattern,
            products,
            colouring,
            trace_seconds,
            colour_seconds: started.elapsed().as_secs_f64(),
            seeds,
        })
    }

    /// The error of the entry point itself at `args` (the trace found that it fails), or
    /// else of the gradient a Hessian's pattern is traced on: that may fail where the entry
    /// point does not, when the entry point's optimisation removed a failing operation whose
    /// result it does not use (an index out of bounds, say) and the gradient's kept it.
    fn failure(&self, args: &[ValueRef]) -> CallError {
        if let Err(e) = self.program.call_ref(&self.entry.name, args) {
            return e;
        }
        let gradient_error = self
            .gradient
            .as_ref()
            .and_then(|g| g.program().call_ref(g.entry(), args).err());
        match gradient_error {
            Some(e) => e,
            None => CallError::BadInput(format!(
                "internal error: tracing {} of `{}` failed where the entry point does not",
                self.kind.name(),
                self.entry.name
            )),
        }
    }
}

/// How many patterns a [`SparseDerived`] keeps (the most recently found).
pub const KEPT_PLANS: usize = 8;

/// What of an argument decides the pattern: its shape, and its bits unless it is the point.
#[derive(PartialEq, Eq)]
struct ArgKey {
    shape: Vec<usize>,
    bits: Vec<u8>,
}

impl ArgKey {
    fn of(v: &ValueRef, is_point: bool) -> ArgKey {
        ArgKey {
            shape: v.shape().to_vec(),
            bits: if is_point {
                vec![]
            } else {
                bits(v).into_owned()
            },
        }
    }

    /// Whether `v` has this key (without copying it).
    fn matches(&self, v: &ValueRef, is_point: bool) -> bool {
        self.shape == v.shape() && (is_point || self.bits == *bits(v))
    }
}

/// The bytes of a value's elements.
fn bits<'a>(v: &ValueRef<'a>) -> std::borrow::Cow<'a, [u8]> {
    use std::borrow::Cow;
    match v {
        ValueRef::Scalar(s) => Cow::Owned(scalar_bits(*s).to_le_bytes().to_vec()),
        ValueRef::Array(a) => Cow::Borrowed(match a.data() {
            ViewData::Bool(xs) => bytes_of(xs),
            ViewData::I8(xs) => bytes_of(xs),
            ViewData::I16(xs) => bytes_of(xs),
            ViewData::I32(xs) => bytes_of(xs),
            ViewData::I64(xs) => bytes_of(xs),
            ViewData::U8(xs) => bytes_of(xs),
            ViewData::U16(xs) => bytes_of(xs),
            ViewData::U32(xs) => bytes_of(xs),
            ViewData::U64(xs) => bytes_of(xs),
            ViewData::F32(xs) => bytes_of(xs),
            ViewData::F64(xs) => bytes_of(xs),
        }),
    }
}

fn scalar_bits(s: Scalar) -> u64 {
    match s {
        Scalar::F32(x) => x.to_bits() as u64,
        Scalar::F64(x) => x.to_bits(),
        Scalar::Bool(b) => b as u64,
        other => other.as_i64().unwrap_or(0) as u64,
    }
}

/// The bytes of a slice of plain numbers (or `bool`s).
fn bytes_of<T: Copy>(xs: &[T]) -> &[u8] {
    // SAFETY: `T` is a primitive number or `bool` (the element types of `Buffer`): every
    // byte of it is initialised, and the slice covers exactly its elements.
    unsafe { std::slice::from_raw_parts(xs.as_ptr() as *const u8, std::mem::size_of_val(xs)) }
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

fn seed_matrix(elem: PrimType, xs: &[f64], rows: usize, cols: usize) -> Value {
    let a = Array::new(vec![rows, cols], float_buffer(elem, xs))
        .expect("the seeds have rows × cols elements");
    Value::Array(a)
}
