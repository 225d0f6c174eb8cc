//! Lowering of core IR to the imperative IR of [`imp`].
//!
//! # Contract
//!
//! **Takes** a verified core [`Prog`] after the pre-lowering passes (no fused SOAC whose map
//! returns arrays), whose entry points call no other functions (internalisation inlines every
//! call), and the [`SourceMap`] its spans point into.
//!
//! **Guarantees** an [`imp::Program`] with one [`imp::Function`] per entry point that computes
//! what the interpreter computes:
//!
//! * every array is a buffer with a reference count (see [`imp`]); indexing a row or a
//!   contiguous slice, `reshape` and `coerce` are views that share the buffer; an array that
//!   is consumed (`with`, the destinations of `hist`, `scatter`, `with_acc`) is updated in
//!   place when its buffer is not shared, and copied first otherwise, exactly as the
//!   interpreter's copy-on-write does; `copy x` at the last use of `x` takes `x`'s buffer and
//!   copies the elements only when the buffer is shared or borrowed;
//! * nothing is allocated per iteration of a SOAC or loop except what the program's own
//!   statements build (rows of SOAC inputs are borrowed views, results are written straight
//!   into the output arrays);
//! * with `parallel`, the outermost `map`s become parallel loops, and the outermost `reduce`s
//!   and `scan`s with scalar operands whose work reaches [`PAR_CHUNK_MIN_WORK`] are split
//!   into a fixed number of chunks ([`CHUNKS`], independent of the thread count, so results
//!   do not depend on it) reduced in parallel into per-chunk partial results that are then
//!   combined in order; accumulator updates inside parallel loops are atomic, or go to
//!   per-thread copies summed in thread order when the accumulators are small next to the
//!   loop's work (see [`imp::Stm::ParFor`]); a `hist` with scalar bins, few against its
//!   width, fills one private histogram per chunk, merged bin by bin in chunk order; a scan
//!   with a fused map scans each chunk, then adds the chunk prefixes (the map runs once per
//!   element). Everything nested inside a parallel loop is sequential. Without `parallel`
//!   everything runs left to right like the interpreter, except:
//! * a map of reductions that read a column of a matrix (a `map` over `j` whose lambda is a
//!   `redomap` reading `xs[i][j]`) runs with its loops interchanged, rows outside, in
//!   parallel blocks of `j` where the map is parallel (`columns.rs`): every result
//!   folds the same values in the same order, but when two elements fail, another one may
//!   be reported first;
//! * an `iota` read only as an input of SOACs is never stored: its rows are computed
//!   (`soac::virtual_iotas`);
//! * a `reduce_comm` adding up the rows a `map` computes (what `acc-reduce` makes of a matrix
//!   product's adjoint) is first rewritten into an accumulator the map adds each row into
//!   ([`row_sums`]), so the rows are never stored and a parallel map keeps its parallelism;
//! * a `map` whose body branches on its index being 0 runs iteration 0 first, apart, and
//!   the other iterations in a loop without the branch (`peel.rs`), which the C compiler can
//!   vectorise;
//! * an innermost sequential loop or map none of whose iterations touches memory that
//!   another writes is marked independent ([`imp::Stm::For`]; `independent.rs`), so that the
//!   C compiler vectorises it without run-time checks for overlapping arrays;
//! * with `safe`, every check the interpreter makes (bounds, sizes, division by zero,
//!   assertions, ranges) is a [`imp::Stm::Check`] whose error site has the interpreter's
//!   message and the failing statement's locations; without it only the checks that keep
//!   allocation sizes meaningful (negative counts) remain.
//!
//! **Rejects** (as an `Err` message) what it cannot lower: function calls.
//!
//! # Layout
//!
//! [`lower`] takes a program the pipeline's pre-lowering passes have rewritten ([`row_sums`],
//! [`unfuse`]; run by `crate::pipeline::prepare_for_lowering`), and walks each entry point with one lowering context (`Lw`, defined here with the
//! accessors every construct uses). Its methods are spread over one file per construct:
//!
//! * `control.rs`: entry points, statement sequences, `if`, loops, lambda application;
//! * `memory.rs`: declarations, assignments, moves and releases of variables and buffers;
//! * `runtime_checks.rs`: run-time checks and their error sites;
//! * `basic.rs`: basic operations (array construction, reshaping, accumulator updates);
//! * `slice.rs`: indexing, slicing and in-place updates;
//! * `soac.rs`: what SOACs share (dispatch, rows of inputs, fused maps, chunks, costs);
//! * `map.rs`, `columns.rs` (maps of column reductions), `reduce.rs` (`reduce` and `scan`),
//!   `hist.rs`, `scatter.rs`, `acc.rs` (`with_acc` and accumulator privatisation);
//! * `independent.rs`: which sequential loops no two iterations of share memory in;
//! * `peel.rs`: the first iteration of a map that branches on it, run apart.

mod acc;
mod basic;
mod columns;
mod combine;
mod control;
mod group_tree;
mod hist;
pub mod imp;
mod independent;
mod map;
mod memory;
mod peel;
mod place;
mod reduce;
pub use combine::{LANE_SUM, SIMD_SUM};
pub mod row_sums;
mod runtime_checks;
mod scatter;
mod slice;
mod soac;
pub mod unfuse;

use crate::core::ir::{Prog, SubExp, Type, Var};
use crate::core::prim::PrimOp;
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::SourceMap;
use imp::{Ex, IdxOp, Site};
use std::collections::{HashMap, HashSet};

/// Number of chunks a parallel `reduce` or `scan` is split into.
pub const CHUNKS: i64 = 64;

/// The C macro holding the estimated work (width times the operator's cost) below which a
/// `reduce` or `scan` is not split into chunks ([`PAR_CHUNK_MIN_WORK_DEFAULT`] unless
/// defined otherwise).
pub const PAR_CHUNK_MIN_WORK: &str = "GR_PAR_CHUNK_MIN_WORK";

/// The default value of [`PAR_CHUNK_MIN_WORK`].
pub const PAR_CHUNK_MIN_WORK_DEFAULT: i64 = 4096;

/// Lowering options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Emit parallel loops for the outermost SOACs.
    pub parallel: bool,
    /// Emit the run-time checks.
    pub safe: bool,
    /// Floats may be combined in another order: a minimum reduction in lanes (the result
    /// differs at most in the sign of a zero), a map's additions into accumulators from its
    /// last iteration to its first (rounding may differ); off for the interpreter's exact
    /// results.
    pub reorder_floats: bool,
    /// Number of chunks a parallel `hist` is split into (each with its own sub-histogram), and
    /// a parallel `reduce` or `scan` with [`Combine::InOrder`] ([`CHUNKS`] for threads; more
    /// for a GPU, where each chunk is one work-item).
    pub chunks: i64,
    /// How a parallel `reduce` or `scan` splits its input and combines the chunks' results.
    pub combine: Combine,
}

/// How a parallel `reduce` or `scan` is split into chunks and how the chunks' partial results
/// are combined. Either way the split depends on the width only and the partial results are
/// combined in a fixed order, so results do not vary from run to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    /// [`Options::chunks`] chunks, their results combined by one sequential loop (threads:
    /// a handful of chunks).
    InOrder,
    /// As many chunks as elements up to [`GPU_REDUCE_CHUNKS`] (a GPU: one work-item per
    /// chunk, enough of them to fill the device), the partial results combined in two levels:
    /// for a reduction whose operator fits (see `group_tree`), work-groups of
    /// [`GPU_GROUP_SIZE`] consecutive partial results, each combined by a tree in local
    /// memory; otherwise, and for a scan, [`GPU_COMBINE_GROUPS`] parallel groups of
    /// consecutive partial results, each folded by one work-item (for a scan, a third
    /// parallel step adds each group's prefix to its partial results); then one sequential
    /// loop over the groups' results. The partial results then never leave the device in
    /// bulk.
    TwoLevel,
}

/// Number of chunks of a parallel `hist` on a GPU.
pub const GPU_CHUNKS: i64 = 4096;

/// The C macro holding the most chunks of a parallel `reduce` or `scan` on a GPU
/// ([`GPU_REDUCE_CHUNKS_DEFAULT`] unless defined otherwise).
pub const GPU_REDUCE_CHUNKS: &str = "GR_GPU_REDUCE_CHUNKS";

/// The default of [`GPU_REDUCE_CHUNKS`]: 2^18, about as many work-items as an H200 keeps
/// resident (132 multiprocessors of 2048), so that a memory-bound reduction has enough loads
/// in flight.
pub const GPU_REDUCE_CHUNKS_DEFAULT: i64 = 1 << 18;

/// The C macro holding the number of groups a GPU reduction's partial results are combined
/// in ([`GPU_COMBINE_GROUPS_DEFAULT`] unless defined otherwise).
pub const GPU_COMBINE_GROUPS: &str = "GR_GPU_COMBINE_GROUPS";

/// The default of [`GPU_COMBINE_GROUPS`].
pub const GPU_COMBINE_GROUPS_DEFAULT: i64 = 1024;

/// The C macro holding the work-group size of a GPU reduction's tree in local memory
/// ([`GPU_GROUP_SIZE_DEFAULT`] unless defined otherwise; the kernels are compiled with the
/// host's value).
pub const GPU_GROUP_SIZE: &str = "GR_GPU_GROUP_SIZE";

/// The default of [`GPU_GROUP_SIZE`]: the block size of most GPU code, which every CUDA
/// device and POCL accept.
pub const GPU_GROUP_SIZE_DEFAULT: i64 = 256;

type R<T> = Result<T, String>;

/// Lowers every entry point of `prog`, which the pre-lowering passes of the pipeline
/// ([`row_sums`], [`unfuse`]; `crate::pipeline::prepare_for_lowering`) have rewritten.
pub fn lower(prog: &Prog, sources: &SourceMap, opts: Options) -> R<imp::Program> {
    let mut lw = Lw {
        prog,
        sources,
        opts,
        sites: Vec::new(),
        tmp: 0,
        in_par: false,
        in_lambda: false,
        par_local: HashSet::new(),
        acc_sizes: HashMap::new(),
        placed: HashMap::new(),
        preallocated: HashMap::new(),
        copied_views: HashSet::new(),
        last_used_once: HashSet::new(),
        owned_params: Vec::new(),
        loop_params: HashSet::new(),
        virtual_iotas: HashSet::new(),
        iota_rows: HashMap::new(),
        injective_iotas: HashSet::new(),
        exclusive_accs: HashSet::new(),
    };
    let mut functions = Vec::new();
    for (k, f) in prog.funs.iter().enumerate() {
        if let Some(e) = &f.entry {
            functions.push(lw.function(f, &e.name, k)?);
        }
    }
    Ok(imp::Program {
        functions,
        sites: lw.sites,
        parallel: opts.parallel,
    })
}

/// The lowering context: the program, what has been learnt about it so far, and the error
/// sites and fresh names handed out.
struct Lw<'a> {
    prog: &'a Prog,
    sources: &'a SourceMap,
    /// `iota` arrays that are never stored (see [`soac::virtual_iotas`]) and, once their statement
    /// is lowered, their start, stride and element type.
    virtual_iotas: HashSet<Var>,
    iota_rows: HashMap<Var, (Ex, Ex, PrimType)>,
    /// `iota` arrays of `i64` whose stride is a constant other than zero: no two rows equal.
    injective_iotas: HashSet<Var>,
    /// Accumulator variables of the parallel loops lowered so far whose additions need no
    /// atomics (see [`Lw::exclusive_accs`]).
    exclusive_accs: HashSet<Var>,
    opts: Options,
    sites: Vec<Site>,
    tmp: usize,
    /// Inside a parallel loop.
    in_par: bool,
    /// Inside a map's lambda (parallel or not): arrays of the enclosing scopes live at least
    /// as long as the map, and what the lambda returns is copied into the map's outputs, so
    /// their buffers are borrowed there (no reference counting in the iterations).
    in_lambda: bool,
    /// Array variables bound inside the current parallel loop or map lambda (their buffers
    /// belong to the iteration; others are only borrowed there).
    par_local: HashSet<Var>,
    /// Element type and size of the arrays behind accumulators (`{acc}_{j}`), for
    /// privatising them in parallel loops.
    acc_sizes: HashMap<String, (PrimType, Ex)>,
    /// Map outputs written in place into a concatenation ([`place`]): its C name and the
    /// offset in elements.
    placed: HashMap<Var, (String, Ex)>,
    /// Concatenations allocated before their producers, with the operands not to copy.
    preallocated: HashMap<Var, HashSet<Var>>,
    /// Rows and slices to copy rather than view (see [`memory::ScopePlan`]).
    copied_views: HashSet<Var>,
    /// The arrays the statement being lowered uses for the last time, and only once (see
    /// [`memory::ScopePlan`]).
    last_used_once: HashSet<Var>,
    /// The array parameters of the loop whose body is about to be lowered: they belong to
    /// its scope.
    owned_params: Vec<Var>,
    /// Every loop parameter seen so far (variables are unique in a program): a map may take
    /// the buffer of one that dies in it (see [`imp::Stm::AllocOrTake`]).
    loop_params: HashSet<Var>,
}

/// The C identifier of a core variable: its hint (letters, digits, `_`) and its number.
fn c_name(hint: &str, v: Var) -> String {
    let mut s: String = hint
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(24)
        .collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        s.insert(0, 'v');
    }
    format!("{s}_{}", v.0)
}

fn bool_ex(b: bool) -> Ex {
    Ex::Const(Scalar::Bool(b))
}

fn and(a: Ex, b: Ex) -> Ex {
    Ex::idx(IdxOp::And, a, b)
}

/// `a < b`; `false` when the two are the same expression (an index equal to the size it is
/// checked against), which C compilers warn about as a self-comparison.
fn lt(a: Ex, b: Ex) -> Ex {
    if a == b {
        return bool_ex(false);
    }
    Ex::idx(IdxOp::Lt, a, b)
}

/// `a <= b`; `true` when the two are the same expression.
fn le(a: Ex, b: Ex) -> Ex {
    if a == b {
        return bool_ex(true);
    }
    Ex::idx(IdxOp::Le, a, b)
}

fn eq(a: Ex, b: Ex) -> Ex {
    if a == b {
        return bool_ex(true);
    }
    Ex::idx(IdxOp::Eq, a, b)
}

/// `e`, of type `from`, converted to `to` (itself when the types are the same).
fn convert(e: Ex, from: PrimType, to: PrimType) -> Ex {
    if from == to {
        e
    } else {
        Ex::Prim(PrimOp::Conv(from, to), vec![e])
    }
}

/// `0 <= i < n`.
fn in_range(i: Ex, n: Ex) -> Ex {
    and(le(Ex::int(0), i.clone()), lt(i, n))
}

impl<'a> Lw<'a> {
    fn fresh(&mut self, hint: &str) -> String {
        self.tmp += 1;
        format!("{hint}_t{}", self.tmp)
    }

    fn name(&self, v: Var) -> String {
        c_name(self.prog.names.hint(v), v)
    }

    fn ty(&self, v: Var) -> &'a Type {
        self.prog.names.ty(v)
    }

    fn se(&self, s: &SubExp) -> Ex {
        match s {
            SubExp::Const(c) => Ex::Const(*c),
            SubExp::Var(v) => Ex::Var(self.name(*v)),
        }
    }

    /// An integer operand as an `i64` expression.
    fn ix(&self, s: &SubExp) -> Ex {
        let t = match s {
            SubExp::Const(c) => c.prim_type(),
            SubExp::Var(v) => self.ty(*v).elem(),
        };
        match s {
            SubExp::Const(c) if t.is_int() || t == PrimType::Bool => {
                Ex::int(c.as_i64().unwrap_or(0))
            }
            _ => convert(self.se(s), t, PrimType::I64),
        }
    }

    fn dims(&self, dims: &[SubExp]) -> Vec<Ex> {
        dims.iter().map(|d| self.ix(d)).collect()
    }

    fn var_dims(&self, v: Var) -> Vec<Ex> {
        self.dims(self.ty(v).dims())
    }
}
