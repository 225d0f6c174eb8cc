//! Sparsity patterns by tracing the lowered program with index sets.
//!
//! **Takes** an entry point of a lowered program ([`imp::Function`], lowered sequentially),
//! its arguments, and which parameter is the point `x` (a flat array of floats).
//! **Guarantees** for every element of every result the set of elements of `x` it may
//! depend on, conservatively: never missing an input that a derivative at some point could
//! read, as long as the program's loops run a number of times that does not depend on `x`
//! (otherwise an error says so).
//!
//! How: the program runs as the C code would, on the given arguments, and every value also
//! carries the set of elements of `x` it depends on ([`sets`]). A float operation's set is
//! the union of its float operands', also for `floor`, `round`, `sgn` and the like: their
//! derivative is zero, but their value depends on `x` and may steer a branch or an index
//! later, and a set does not tell the two apart (the pattern lists such entries, as zeros).
//! An integer or `bool`'s set records that it depends on `x`, which matters only where it
//! steers control or indexing:
//! - an `if` on a condition that depends on `x` takes both branches. The branch not taken at
//!   `x` runs first in *shadow*: its scalars compute (and are restored afterwards), arrays it
//!   allocates are its own, and what it writes to older memory only adds index sets, never
//!   values. Then the branch taken runs, adding its sets to the older memory and variables
//!   instead of replacing them. A check that fails in the shadow branch, on a condition that
//!   does not depend on `x`, fails wherever that branch is taken, so the branch is left there.
//!   An integer or `bool` that either branch leaves in older memory or variables (an index, a
//!   loop count) depends on which branch ran: it gets the condition's set as well.
//! - an element read or written at an index that depends on `x` may be any element: the read
//!   gets the union of the whole buffer's sets, the write adds to every element's.
//! - a loop count or `while` condition that depends on `x` is refused.
//!
//! The pattern found is the same for every `x` of this shape and every value of the other
//! arguments that steer control and indexing the same way (the caller caches it per value of
//! the other arguments).

mod memory;
pub(crate) mod sets;

use crate::backend::lower::imp::{self, Ex, IdxOp, Stm, Ty};
use crate::core::prim::PrimOp;
use crate::core::scalar::{PrimType, Scalar};
use memory::{ArrVar, Block};
use rustc_hash::FxHashMap as HashMap;
use sets::Deps;

/// Why no pattern came out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TraceError {
    /// The program fails at this point (a check failed): the caller reports the program's
    /// own error by running it.
    Fails,
    /// Something the tracer does not know.
    Unsupported(String),
    /// A loop whose number of iterations depends on the point: the pattern could differ from
    /// one point to the next. `at` is the source loop, where the lowering kept it.
    LoopCount {
        /// What kind of loop (`for` or `loop ... while`).
        what: &'static str,
        /// Where it is in the source.
        at: Option<crate::diag::Span>,
    },
}

impl TraceError {
    /// The reason, with the loop's location (rendered by `location`) where there is one.
    pub(crate) fn reason(&self, location: impl Fn(crate::diag::Span) -> String) -> String {
        match self {
            TraceError::Fails => "the program fails at this point".into(),
            TraceError::Unsupported(m) => m.clone(),
            TraceError::LoopCount { what, at } => {
                let m = format!("{what} runs a number of times that depends on the point");
                match at {
                    Some(span) => format!("{m} (at {})", location(*span)),
                    None => m,
                }
            }
        }
    }
}

/// What stopped a statement list: an error, or a check failing in a shadow branch.
enum Stop {
    Error(TraceError),
    Abandon,
}

impl From<TraceError> for Stop {
    fn from(e: TraceError) -> Self {
        Stop::Error(e)
    }
}

type R<T> = Result<T, Stop>;

/// The index sets of every element of every result of `f`: per result, one set per element
/// in row-major order (one for a scalar). `args` are the size arguments then the parameters'
/// values, as the generated C takes them (scalars, or arrays as their flat elements); the
/// elements of argument `point` are the inputs, numbered from 0.
pub(crate) fn trace(
    f: &imp::Function,
    args: Vec<Arg>,
    point: usize,
) -> Result<Vec<Vec<Deps>>, TraceError> {
    let mut t = Tracer::default();
    if args.len() != f.inputs.len() {
        return Err(TraceError::Unsupported(format!(
            "internal error: {} arguments for {} inputs",
            args.len(),
            f.inputs.len()
        )));
    }
    for (k, ((name, ty), arg)) in f.inputs.iter().zip(args).enumerate() {
        match (ty, arg) {
            (Ty::Prim(_), Arg::Scalar(s)) => t.declare(name, s, None),
            (Ty::Array(_) | Ty::Ptr(_), Arg::Array(vals)) => {
                let block = Block::borrowed(vals);
                if k == point {
                    let mut b = block.borrow_mut();
                    for (j, d) in b.deps.iter_mut().enumerate() {
                        *d = sets::single(j as u32);
                    }
                }
                t.arrays.insert(
                    name.clone(),
                    ArrVar {
                        block: Some(block),
                        off: 0,
                        owns: false,
                    },
                );
            }
            _ => {
                return Err(TraceError::Unsupported(format!(
                    "internal error: argument {k} does not fit input `{name}`"
                )));
            }
        }
    }
    match t.stms(&f.body) {
        Ok(()) => {}
        Err(Stop::Error(e)) => return Err(e),
        Err(Stop::Abandon) => return Err(TraceError::Fails),
    }
    f.results
        .iter()
        .map(|r| t.result(r))
        .collect::<R<Vec<_>>>()
        .map_err(|s| match s {
            Stop::Error(e) => e,
            Stop::Abandon => TraceError::Fails,
        })
}

/// An argument of the traced function.
pub(crate) enum Arg {
    Scalar(Scalar),
    Array(Vec<Scalar>),
}

/// A scalar variable: its value, its index set and when it was declared.
struct Slot {
    val: Scalar,
    deps: Deps,
    born: u64,
}

/// An `if` whose condition depends on `x`, while one of its branches runs: memory and
/// variables made before `start` are older than the branch; `cond` is the condition's set.
struct Region {
    start: u64,
    shadow: bool,
    cond: Deps,
}

/// How a write to memory or a variable made at some time behaves in the current regions.
#[derive(PartialEq, Eq)]
enum WriteMode {
    /// Replace value and set.
    Normal,
    /// Replace the value, add the set.
    Union,
    /// Keep the value, add the set (a shadow branch writing older memory).
    UnionOnly,
}

#[derive(Default)]
struct Tracer {
    scalars: HashMap<String, Slot>,
    arrays: HashMap<String, ArrVar>,
    seq: u64,
    regions: Vec<Region>,
}

fn unsupported<T>(m: impl Into<String>) -> R<T> {
    Err(Stop::Error(TraceError::Unsupported(m.into())))
}

impl Tracer {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    fn in_shadow(&self) -> bool {
        self.regions.iter().any(|r| r.shadow)
    }

    fn write_mode(&self, born: u64) -> WriteMode {
        let mut mode = WriteMode::Normal;
        for r in self.regions.iter().rev() {
            if r.start <= born {
                break;
            }
            if r.shadow {
                return WriteMode::UnionOnly;
            }
            mode = WriteMode::Union;
        }
        mode
    }

    /// The sets of the conditions of the regions that a write to something made at `born`
    /// crosses: an integer or `bool` written there depends on which branch ran, so on `x`.
    fn control(&self, born: u64) -> Deps {
        let mut out: Deps = None;
        for r in self.regions.iter().rev() {
            if r.start <= born {
                break;
            }
            out = sets::union(&out, &r.cond);
        }
        out
    }

    fn declare(&mut self, name: &str, val: Scalar, deps: Deps) {
        let born = self.next_seq();
        match self.scalars.get_mut(name) {
            // Declared again (a loop body's variable): no new allocation for the name.
            Some(slot) => *slot = Slot { val, deps, born },
            None => {
                self.scalars
                    .insert(name.to_string(), Slot { val, deps, born });
            }
        }
    }

    fn array(&self, name: &str) -> R<&ArrVar> {
        match self.arrays.get(name) {
            Some(a) => Ok(a),
            None => unsupported(format!("internal error: unknown array `{name}`")),
        }
    }

    fn result(&self, r: &imp::EntryResult) -> R<Vec<Deps>> {
        if r.dims.is_empty() {
            return Ok(vec![self.ex(&r.value)?.1]);
        }
        let mut count = 1usize;
        for d in &r.dims {
            count = count.saturating_mul(self.index(d)?.0);
        }
        let Ex::Var(name) = &r.value else {
            return unsupported("internal error: an array result is not a variable");
        };
        let a = self.array(name)?;
        let Some(b) = &a.block else {
            return Ok(vec![None; count]);
        };
        let b = b.borrow();
        match b.deps.get(a.off..a.off + count) {
            Some(d) => Ok(d.to_vec()),
            None => unsupported("internal error: a result is larger than its buffer"),
        }
    }

    /// A non-negative `i64` value and its set.
    fn index(&self, e: &Ex) -> R<(usize, Deps)> {
        let (v, d) = self.ex(e)?;
        match v.as_i64() {
            Some(n) => Ok((n.max(0) as usize, d)),
            None => unsupported("internal error: an index is not an integer"),
        }
    }

    fn ex(&self, e: &Ex) -> R<(Scalar, Deps)> {
        match e {
            Ex::Var(v) => match self.scalars.get(v) {
                Some(s) => Ok((s.val, s.deps.clone())),
                None => unsupported(format!("internal error: unknown scalar `{v}`")),
            },
            Ex::Const(c) => Ok((*c, None)),
            Ex::Prim(op, args) => {
                // Primitive operations take at most three operands.
                let mut vals = [Scalar::Bool(false); 3];
                let mut deps: [Deps; 3] = Default::default();
                let n = args.len().min(3);
                for (k, a) in args.iter().take(3).enumerate() {
                    (vals[k], deps[k]) = self.ex(a)?;
                }
                Ok(prim(*op, &vals[..n], &deps[..n]))
            }
            Ex::Idx(op, a, b) => {
                let (x, dx) = self.ex(a)?;
                let (y, dy) = self.ex(b)?;
                Ok((idx_op(*op, x, y), sets::union(&dx, &dy)))
            }
            Ex::Load { arr, idx, elem } => self.load(arr, idx, *elem),
            Ex::Not(a) => {
                let (v, d) = self.ex(a)?;
                Ok((Scalar::Bool(!matches!(v, Scalar::Bool(true))), d))
            }
        }
    }

    /// Element `idx` of `arr` (of type `elem`) and what it depends on. Out of range (in a
    /// shadow region, or at an index that depends on the inputs, where the run does not
    /// fail at this point), the element is a zero that may depend on any element of the
    /// array.
    fn load(&self, arr: &str, idx: &Ex, elem: PrimType) -> R<(Scalar, Deps)> {
        let (i, di) = self.index(idx)?;
        let a = self.array(arr)?;
        let Some(b) = &a.block else {
            return unsupported(format!("internal error: `{arr}` is read before it is set"));
        };
        let b = b.borrow();
        let pos = a.off + i;
        let (val, in_range) = match b.vals.get(pos) {
            Some(v) => (*v, true),
            None if self.in_shadow() || di.is_some() => (Scalar::zero(elem), false),
            None => return unsupported(format!("internal error: `{arr}` read out of range")),
        };
        let deps = if di.is_some() {
            let all = b.all_deps();
            if val.prim_type().is_float() {
                all
            } else {
                sets::union(&all, &di)
            }
        } else if in_range {
            b.deps[pos].clone()
        } else {
            b.all_deps()
        };
        Ok((val, deps))
    }

    fn stms(&mut self, body: &[Stm]) -> R<()> {
        for s in body {
            self.stm(s)?;
        }
        Ok(())
    }

    fn stm(&mut self, s: &Stm) -> R<()> {
        match s {
            Stm::Decl { ty, name, init } => self.decl(*ty, name, init.as_ref()),
            Stm::Set { name, val } => self.set(name, val),
            Stm::Store { arr, idx, val, .. } => {
                let (i, di) = self.index(idx)?;
                let (v, dv) = self.ex(val)?;
                self.store(arr, i, di, v, dv, false)
            }
            Stm::AtomicAdd { arr, idx, val, .. } => {
                let (i, di) = self.index(idx)?;
                let (v, dv) = self.ex(val)?;
                self.store(arr, i, di, v, dv, true)
            }
            Stm::Alloc { arr, elem, count } => self.alloc(arr, *elem, count),
            Stm::AllocOrTake {
                arr,
                elem,
                count,
                srcs,
            } => self.alloc_or_take(arr, *elem, count, srcs),
            Stm::SetArr {
                dst,
                src,
                offset,
                share,
            } => self.set_arr(dst, src, offset, *share),
            Stm::Decref(a) => {
                if !self.in_shadow()
                    && let Some(v) = self.arrays.get_mut(a)
                {
                    if v.owns
                        && let Some(b) = &v.block
                    {
                        let mut b = b.borrow_mut();
                        b.refs = b.refs.saturating_sub(1);
                    }
                    v.owns = false;
                }
                Ok(())
            }
            Stm::MakeUnique { arr, count, .. } => self.make_unique(arr, count),
            Stm::Copy {
                dst,
                dst_off,
                src,
                src_off,
                count,
                ..
            } => self.copy(dst, dst_off, src, src_off, count),
            Stm::For {
                var,
                bound,
                down,
                body,
                at,
                ..
            } => self.for_loop(var, bound, *down, body, *at),
            Stm::ParFor {
                var, bound, body, ..
            } => self.for_loop(var, bound, false, body, None),
            Stm::While { cond, body, at } => loop {
                let (c, dc) = self.ex(cond)?;
                if dc.is_some() {
                    return Err(Stop::Error(TraceError::LoopCount {
                        what: "a `loop ... while`",
                        at: *at,
                    }));
                }
                if !matches!(c, Scalar::Bool(true)) {
                    return Ok(());
                }
                self.stms(body)?;
            },
            Stm::If { cond, then, els } => {
                let (c, dc) = self.ex(cond)?;
                let taken = matches!(c, Scalar::Bool(true));
                let (yes, no) = if taken { (then, els) } else { (els, then) };
                if dc.is_none() {
                    self.stms(yes)
                } else {
                    self.both_branches(yes, no, dc)
                }
            }
            Stm::Check { cond, .. } => {
                let (c, dc) = self.ex(cond)?;
                if matches!(c, Scalar::Bool(true)) {
                    Ok(())
                } else if !self.in_shadow() {
                    Err(Stop::Error(TraceError::Fails))
                } else if dc.is_some() {
                    Ok(())
                } else {
                    Err(Stop::Abandon)
                }
            }
            Stm::GroupTree(_) => unsupported("internal error: a GPU reduction tree"),
            Stm::Comment(_) => Ok(()),
        }
    }
}

mod statements;

/// A primitive operation's value and index set.
fn prim(op: PrimOp, vals: &[Scalar], deps: &[Deps]) -> (Scalar, Deps) {
    let rt = op.result_type();
    let val = op.eval(vals).unwrap_or(Scalar::zero(rt));
    let mut out: Deps = None;
    if rt.is_float() {
        for (t, d) in op.operand_types().into_iter().zip(deps) {
            if t.is_float() {
                out = sets::union(&out, d);
            }
        }
    } else {
        for d in deps {
            out = sets::union(&out, d);
        }
    }
    (val, out)
}

/// Whether a float operation's index set is the union of its float operands' (what lets an
/// accumulator's set grow in place).
fn unions_float_operands(op: PrimOp) -> bool {
    op.result_type().is_float()
}

/// [`Ex::Idx`] on `i64` and `bool` values.
fn idx_op(op: IdxOp, x: Scalar, y: Scalar) -> Scalar {
    let int = |s: Scalar| match s {
        Scalar::Bool(b) => b as i64,
        other => other.as_i64().unwrap_or(0),
    };
    let (a, b) = (int(x), int(y));
    match op {
        IdxOp::Add => Scalar::I64(a.wrapping_add(b)),
        IdxOp::Sub => Scalar::I64(a.wrapping_sub(b)),
        IdxOp::Mul => Scalar::I64(a.wrapping_mul(b)),
        IdxOp::Rem => Scalar::I64(if b == 0 { 0 } else { a.wrapping_rem(b) }),
        IdxOp::Lt => Scalar::Bool(a < b),
        IdxOp::Le => Scalar::Bool(a <= b),
        IdxOp::Eq => Scalar::Bool(a == b),
        IdxOp::Ne => Scalar::Bool(a != b),
        IdxOp::And => Scalar::Bool(a != 0 && b != 0),
        IdxOp::Or => Scalar::Bool(a != 0 || b != 0),
    }
}

/// The value of `x + y` at `x`'s type (`or` for `bool`), for accumulator additions.
fn add(x: Scalar, y: Scalar) -> Scalar {
    match x {
        Scalar::Bool(a) => Scalar::Bool(a || matches!(y, Scalar::Bool(true))),
        _ => {
            let t = x.prim_type();
            PrimOp::Bin(crate::core::prim::BinOp::Add, t)
                .eval(&[x, y])
                .unwrap_or(x)
        }
    }
}

#[cfg(test)]
mod tests;
