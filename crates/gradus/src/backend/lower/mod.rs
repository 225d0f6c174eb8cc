//! Lowering of core IR to the imperative IR of [`imp`].
//!
//! # Contract
//!
//! **Takes** a verified core [`Prog`] (after internalisation and any later pass) whose entry
//! points call no other functions (internalisation inlines every call), and the [`SourceMap`]
//! its spans point into.
//!
//! **Guarantees** an [`imp::Program`] with one [`imp::Function`] per entry point that computes
//! what the interpreter computes:
//!
//! * every array is a buffer with a reference count (see [`imp`]); indexing a row or a
//!   contiguous slice, `reshape` and `coerce` are views that share the buffer; an array that
//!   is consumed (`with`, the destinations of `hist`, `scatter`, `with_acc`) is updated in
//!   place when its buffer is not shared, and copied first otherwise, exactly as the
//!   interpreter's copy-on-write does;
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
//!   parallel blocks of `j` where the map is parallel (`Lw::column_reduction`): every result
//!   folds the same values in the same order, but when two elements fail, another one may
//!   be reported first;
//! * an `iota` read only as an input of SOACs is never stored: its rows are computed;
//! * a `reduce_comm` adding up the rows a `map` computes (what `acc-reduce` makes of a matrix
//!   product's adjoint) is first rewritten into an accumulator the map adds each row into
//!   ([`row_sums`]), so the rows are never stored and a parallel map keeps its parallelism;
//! * with `safe`, every check the interpreter makes (bounds, sizes, division by zero,
//!   assertions, ranges) is a [`imp::Stm::Check`] whose error site has the interpreter's
//!   message and the failing statement's locations; without it only the checks that keep
//!   allocation sizes meaningful (negative counts) remain.
//!
//! **Rejects** (as an `Err` message) what it cannot lower: function calls.

mod basic;
mod checks;
mod control;
pub mod imp;
mod memory;
pub mod row_sums;
pub mod unfuse;

use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, Exp, Lambda, Prog, ScremaForm, Soac, SubExp, Type, Var,
};
use crate::core::prim::{BinOp, PrimOp};
use crate::diag::SourceMap;
use crate::opt::util::free_in_exp;
use crate::value::{PrimType, Scalar};
use imp::{Ex, IdxOp, Share, Site, Stm as I, Ty};
use std::collections::{HashMap, HashSet};

/// Number of chunks a parallel `reduce` or `scan` is split into.
pub const CHUNKS: i64 = 64;

/// The C macro holding the estimated work (width times the operator's cost) below which a
/// `reduce` or `scan` is not split into chunks (4096 unless defined otherwise).
pub const PAR_CHUNK_MIN_WORK: &str = "GR_PAR_CHUNK_MIN_WORK";

/// Lowering options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Emit parallel loops for the outermost SOACs.
    pub parallel: bool,
    /// Emit the run-time checks.
    pub safe: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            parallel: false,
            safe: true,
        }
    }
}

type R<T> = Result<T, String>;

/// The core-to-core rewrites the lowering relies on, in order: sums of rows become
/// accumulators ([`row_sums`]), then fused maps returning arrays are split off their
/// consumers ([`unfuse`]). The result is verified in debug builds and with `GRADUS_VERIFY`
/// set, so that a broken rewrite is reported as such rather than as bad C.
pub fn prepare(prog: &mut Prog) -> R<()> {
    row_sums::run(prog);
    unfuse::run(prog);
    if cfg!(debug_assertions) || std::env::var_os("GRADUS_VERIFY").is_some() {
        crate::core::verify::verify(prog).map_err(|e| {
            format!("internal error: core IR verification failed before lowering: {e}")
        })?;
    }
    Ok(())
}

/// Lowers every entry point of `prog` (after [`prepare`] on a copy of it).
pub fn lower(prog: &Prog, sources: &SourceMap, opts: Options) -> R<imp::Program> {
    let mut prepared = prog.clone();
    prepare(&mut prepared)?;
    let prog = &prepared;
    let mut lw = Lw {
        prog,
        sources,
        opts,
        sites: Vec::new(),
        tmp: 0,
        in_par: false,
        par_local: HashSet::new(),
        acc_sizes: HashMap::new(),
        virtual_iotas: HashSet::new(),
        iota_rows: HashMap::new(),
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

/// Where a histogram's indices and values come from.
enum HistSource<'l> {
    /// Arrays (`hist`).
    Arrays { indices: Var, values: &'l [Var] },
    /// A fused map over `arrays` returning the index and the values (`histomap`).
    Mapped { map: &'l Lambda, arrays: &'l [Var] },
}

/// The `iota` arrays of `body` read only row by row as inputs of SOACs (`map`, `reduce`,
/// `scan`, fused SOACs): the lowering computes their rows instead of storing them.
fn virtual_iotas(names: &crate::core::ir::NameTable, body: &Body) -> HashSet<Var> {
    fn walk(body: &Body, iotas: &mut HashSet<Var>, inputs: &mut HashMap<Var, usize>) {
        for s in &body.stms {
            if let (Exp::BasicOp(BasicOp::Iota { .. }), [v]) = (&s.exp, &s.pat[..]) {
                iotas.insert(*v);
            }
            let arrays = match &s.exp {
                Exp::Soac(
                    Soac::Map { arrays, .. }
                    | Soac::Reduce { arrays, .. }
                    | Soac::Scan { arrays, .. }
                    | Soac::Screma { arrays, .. },
                ) => arrays.as_slice(),
                _ => &[],
            };
            for a in arrays {
                *inputs.entry(*a).or_default() += 1;
            }
            let nested = s.exp.bodies();
            for b in nested {
                walk(b, iotas, inputs);
            }
        }
    }
    let (mut iotas, mut inputs) = (HashSet::new(), HashMap::new());
    walk(body, &mut iotas, &mut inputs);
    let uses = crate::opt::util::use_counts(names, body);
    iotas.retain(|v| uses.get(v).is_some_and(|n| inputs.get(v) == Some(n)));
    iotas
}

/// The reduction of a map lowered by [`Lw::column_reduction`].
struct ColumnReduction<'l> {
    w: &'l SubExp,
    map: &'l Lambda,
    arrays: &'l [Var],
    op: &'l Lambda,
    neutral: &'l [SubExp],
    aux: &'l Aux,
}

/// `map(n, \js -> redomap(m, f, op, ne, xs), ys)` whose lambda is only a reduction of
/// scalars over arrays bound outside it, where `f` reads an element of a row of `xs` at an
/// index the map's parameters give (a column of `xs`): loops interchanged, the rows of `xs`
/// are read along their length.
fn column_reduction<'l>(
    lam: &'l Lambda,
    arrays: &[Var],
    pat: &[Var],
    ty: impl Fn(Var) -> &'l Type,
) -> Option<ColumnReduction<'l>> {
    let [stm] = &lam.body.stms[..] else {
        return None;
    };
    let Exp::Soac(Soac::Screma {
        w,
        map,
        arrays: xs,
        form,
    }) = &stm.exp
    else {
        return None;
    };
    let ScremaForm::Reduce {
        lam: op, neutral, ..
    } = &**form
    else {
        return None;
    };
    let outer: HashSet<Var> = lam.params.iter().copied().collect();
    let is_outer = |e: &SubExp| matches!(e, SubExp::Var(v) if outer.contains(v));
    let results_direct = lam.body.result.len() == stm.pat.len()
        && lam
            .body
            .result
            .iter()
            .zip(&stm.pat)
            .all(|(r, p)| *r == SubExp::Var(*p));
    let scalar_rows = pat
        .iter()
        .all(|p| matches!(ty(*p), Type::Array { dims, .. } if dims.len() == 1))
        && op.ret.iter().all(|t| matches!(t, Type::Prim(_)));
    let reads_column = map.body.stms.iter().any(|s| {
        matches!(&s.exp, Exp::BasicOp(BasicOp::Index { array, slice })
            if map.params.contains(array)
                && matches!(slice.last(), Some(DimIndex::Fix(j)) if is_outer(j)))
    });
    let independent = !is_outer(w)
        && !neutral.iter().any(is_outer)
        && !xs.iter().any(|x| outer.contains(x))
        && !arrays.iter().any(|a| matches!(ty(*a), Type::Acc { .. }));
    (results_direct && scalar_rows && reads_column && independent).then_some(ColumnReduction {
        w,
        map,
        arrays: xs,
        op,
        neutral,
        aux: &stm.aux,
    })
}

struct Lw<'a> {
    prog: &'a Prog,
    sources: &'a SourceMap,
    /// `iota` arrays that are never stored (see [`virtual_iotas`]) and, once their statement
    /// is lowered, their start, stride and element type.
    virtual_iotas: HashSet<Var>,
    iota_rows: HashMap<Var, (Ex, Ex, PrimType)>,
    opts: Options,
    sites: Vec<Site>,
    tmp: usize,
    /// Inside a parallel loop.
    in_par: bool,
    /// Array variables bound inside the current parallel loop (their buffers belong to one
    /// thread; others are only borrowed there).
    par_local: HashSet<Var>,
    /// Element type and size of the arrays behind accumulators (`{acc}_{j}`), for
    /// privatising them in parallel loops.
    acc_sizes: HashMap<String, (PrimType, Ex)>,
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

fn lt(a: Ex, b: Ex) -> Ex {
    Ex::idx(IdxOp::Lt, a, b)
}

fn le(a: Ex, b: Ex) -> Ex {
    Ex::idx(IdxOp::Le, a, b)
}

fn eq(a: Ex, b: Ex) -> Ex {
    if a == b {
        return bool_ex(true);
    }
    Ex::idx(IdxOp::Eq, a, b)
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
            _ if t == PrimType::I64 => self.se(s),
            _ => Ex::Prim(PrimOp::Conv(t, PrimType::I64), vec![self.se(s)]),
        }
    }

    fn dims(&self, dims: &[SubExp]) -> Vec<Ex> {
        dims.iter().map(|d| self.ix(d)).collect()
    }

    fn var_dims(&self, v: Var) -> Vec<Ex> {
        self.dims(self.ty(v).dims())
    }

    /// Lowers statements `j` and `j + 1` of `body` as one loop when they are a sequential
    /// `map` producing a scalar array that only the next statement, a `reduce` with a
    /// floating-point operator of basic operations, consumes: the map's values go straight
    /// into the accumulator instead of through an array allocated for them (the optimiser has
    /// no fused map-reduce form, and such pairs sit in the innermost loops, e.g. the dot
    /// products of a matrix-vector product). Floating-point operators cannot fail, so the
    /// interleaving reports the same errors as running the map first. Returns whether it did.
    fn map_reduce(&mut self, body: &Body, j: usize, out: &mut Vec<I>) -> R<bool> {
        let (Some(s1), Some(s2)) = (body.stms.get(j), body.stms.get(j + 1)) else {
            return Ok(false);
        };
        if self.opts.parallel && !self.in_par {
            return Ok(false);
        }
        let (
            Exp::Soac(Soac::Map {
                w: w1,
                lam: ml,
                arrays: ma,
            }),
            Exp::Soac(Soac::Reduce {
                w: w2,
                lam: rl,
                neutral,
                arrays: ra,
                ..
            }),
        ) = (&s1.exp, &s2.exp)
        else {
            return Ok(false);
        };
        let ([y], [r], [ne], [ry], [t]) =
            (&s1.pat[..], &s2.pat[..], &neutral[..], &ra[..], &rl.ret[..])
        else {
            return Ok(false);
        };
        let fits = w1 == w2
            && ry == y
            && ml.body.result.len() == 1
            && ml.params.len() == ma.len()
            && rl.params.len() == 2
            && matches!(t, Type::Prim(PrimType::F32 | PrimType::F64))
            && matches!(self.ty(*y), Type::Array { elem, dims }
                if dims.len() == 1 && Type::Prim(*elem) == *t)
            && ma.iter().all(|a| matches!(self.ty(*a), Type::Array { .. }))
            && rl
                .body
                .stms
                .iter()
                .all(|s| matches!(s.exp, Exp::BasicOp(_)))
            && !body.result.contains(&SubExp::Var(*y))
            && !body.stms[j + 2..]
                .iter()
                .any(|s| free_in_exp(&self.prog.names, &s.exp).contains(y));
        if !fits {
            return Ok(false);
        }
        // `y` is declared (and released at the end of the scope) but never allocated.
        self.declare(*y, out);
        self.declare(*r, out);
        let w = self.ix(w1);
        for a in ma {
            self.width_check(*a, &w, &s1.aux, out);
        }
        let acc = self.fresh("acc");
        self.decl_named(&acc, t, out);
        self.assign_named(&acc, t, ne, out);
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut b = Vec::new();
        for (p, a) in ml.params.iter().zip(ma) {
            self.bind_row(*p, *a, &iv, &mut b);
        }
        self.stms(&ml.body, &mut b)?;
        let v = self.fresh("row");
        self.decl_named(&v, t, &mut b);
        self.assign_named(&v, t, &ml.body.result[0], &mut b);
        self.end_scope(&ml.body, &mut b);
        let nx = self.fresh("nx");
        self.decl_named(&nx, t, &mut b);
        self.apply(
            rl,
            &[(acc.clone(), t.clone()), (v, t.clone())],
            &[(nx.clone(), t.clone())],
            &mut b,
        )?;
        self.move_into(&acc, &nx, t, &mut b);
        out.push(I::For {
            var: i,
            bound: w,
            body: b,
        });
        let rn = self.name(*r);
        self.move_into(&rn, &acc, t, out);
        Ok(true)
    }

    /// Binds lambda parameter `p` to row `i` of input `a` (a borrowed view or an element), or
    /// to the accumulator `a` itself.
    fn bind_row(&mut self, p: Var, a: Var, i: &Ex, out: &mut Vec<I>) {
        self.declare(p, out);
        let pn = self.name(p);
        if let Some(val) = self.iota_row(a, i) {
            out.push(I::Set { name: pn, val });
            return;
        }
        let an = self.name(a);
        match self.ty(a) {
            Type::Acc { .. } => self.assign(p, &SubExp::Var(a), out),
            Type::Array { elem, dims } => {
                if dims.len() == 1 {
                    out.push(I::Set {
                        name: pn,
                        val: Ex::Load {
                            elem: *elem,
                            arr: an,
                            idx: Box::new(i.clone()),
                        },
                    });
                } else {
                    let row = Ex::product(self.dims(&dims[1..]));
                    out.push(I::SetArr {
                        dst: pn,
                        src: an,
                        offset: Ex::times(i.clone(), row),
                        share: Share::Borrow,
                    });
                }
            }
            Type::Prim(_) => self.assign(p, &SubExp::Var(a), out),
        }
    }

    /// Element `i` of `a` when `a` is a virtual `iota`: `start + i * stride`.
    fn iota_row(&self, a: Var, i: &Ex) -> Option<Ex> {
        let (start, stride, elem) = self.iota_rows.get(&a)?.clone();
        let ci = Ex::Prim(PrimOp::Conv(PrimType::I64, elem), vec![i.clone()]);
        Some(Ex::Prim(
            PrimOp::Bin(BinOp::Add, elem),
            vec![
                start,
                Ex::Prim(PrimOp::Bin(BinOp::Mul, elem), vec![ci, stride]),
            ],
        ))
    }

    /// Writes value `r` (a lambda result) as row `i` of the declared array `dst` whose type
    /// is `dty`; checks its shape.
    fn write_row(&mut self, dst: Var, r: &SubExp, i: &Ex, aux: &Aux, out: &mut Vec<I>) {
        let dn = self.name(dst);
        let dty = self.ty(dst).clone();
        let elem = dty.elem();
        let rdims = self.dims(&dty.dims()[1..]);
        match r {
            SubExp::Var(v) if matches!(self.ty(*v), Type::Array { .. }) => {
                let vd = self.var_dims(*v);
                self.size_check(out, &vd, &rdims, elem, String::new(), aux);
                let block = Ex::product(rdims);
                out.push(I::Copy {
                    elem,
                    dst: dn,
                    dst_off: Ex::times(i.clone(), block.clone()),
                    src: self.name(*v),
                    src_off: Ex::int(0),
                    count: block,
                });
            }
            _ => out.push(I::Store {
                elem,
                arr: dn,
                idx: i.clone(),
                val: self.se(r),
            }),
        }
    }

    /// A static estimate of the work of one application of a lambda.
    fn cost(body: &Body) -> i64 {
        let mut c = 1i64;
        for s in &body.stms {
            c = c.saturating_add(match &s.exp {
                Exp::BasicOp(_) | Exp::Apply { .. } => 1,
                Exp::If {
                    then_body,
                    else_body,
                    ..
                } => Self::cost(then_body).max(Self::cost(else_body)),
                Exp::Loop { body, .. } => Self::cost(body).saturating_mul(16),
                Exp::Soac(soac) => soac
                    .lambdas()
                    .iter()
                    .map(|l| Self::cost(&l.body))
                    .fold(1, i64::saturating_add)
                    .saturating_mul(16),
                Exp::WithAcc { lam, .. } => Self::cost(&lam.body),
            });
        }
        c
    }

    /// Runs `f` in a parallel context (or not): the variables it binds are local to the
    /// loop's iterations.
    /// Records that accumulator array `dst` is `src` under another name.
    fn alias_acc(&mut self, dst: &str, src: &str) {
        if let Some(v) = self.acc_sizes.get(src).cloned() {
            self.acc_sizes.insert(dst.to_string(), v);
        }
    }

    /// The accumulator arrays a parallel `map` adds into, when they can all be privatised:
    /// every accumulator reaches the lambda as an input, and all accumulate floats of a known
    /// size. Accumulators created inside an iteration belong to it and need no atomics either.
    fn privatisable(&self, lam: &Lambda, arrays: &[Var]) -> Vec<imp::Private> {
        let free_acc = crate::opt::util::free_in_body(&self.prog.names, &lam.body)
            .iter()
            .any(|v| !lam.params.contains(v) && matches!(self.ty(*v), Type::Acc { .. }));
        if free_acc {
            return Vec::new();
        }
        let mut private = Vec::new();
        for a in arrays {
            let Type::Acc { elems, .. } = self.ty(*a) else {
                continue;
            };
            for j in 0..elems.len() {
                let arr = format!("{}_{j}", self.name(*a));
                match self.acc_sizes.get(&arr) {
                    Some((elem, count)) => private.push(imp::Private {
                        arr,
                        elem: *elem,
                        count: count.clone(),
                    }),
                    None => return Vec::new(),
                }
            }
        }
        private
    }

    fn in_parallel<T>(&mut self, par: bool, f: impl FnOnce(&mut Self) -> T) -> T {
        if !par {
            return f(self);
        }
        let saved = (self.in_par, std::mem::take(&mut self.par_local));
        self.in_par = true;
        let r = f(self);
        self.in_par = saved.0;
        self.par_local = saved.1;
        r
    }

    fn soac(&mut self, pat: &[Var], soac: &Soac, aux: &Aux, out: &mut Vec<I>) -> R<()> {
        match soac {
            Soac::Map { w, lam, arrays } => self.map(pat, w, lam, arrays, aux, out),
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            } => self.reduce_or_scan(pat, w, lam, neutral, None, arrays, false, aux, out),
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => self.reduce_or_scan(pat, w, lam, neutral, None, arrays, true, aux, out),
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                let src = HistSource::Arrays {
                    indices: *indices,
                    values,
                };
                self.hist(pat, w, dests, lam, neutral, src, aux, out)
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => self.scatter(pat, w, dests, *indices, values, aux, out),
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => match &**form {
                ScremaForm::Reduce { lam, neutral, .. } => {
                    self.reduce_or_scan(pat, w, lam, neutral, Some(map), arrays, false, aux, out)
                }
                ScremaForm::Scan { lam, neutral } => {
                    self.reduce_or_scan(pat, w, lam, neutral, Some(map), arrays, true, aux, out)
                }
                ScremaForm::Hist {
                    dests,
                    lam,
                    neutral,
                } => {
                    let src = HistSource::Mapped { map, arrays };
                    self.hist(pat, w, dests, lam, neutral, src, aux, out)
                }
                ScremaForm::Scatter { dests } => {
                    self.scattermap(pat, w, dests, map, arrays, aux, out)
                }
            },
        }
    }

    /// Binds the values row `i` contributes to a consumer: the rows of `arrays` or, with a
    /// fused map `pre`, its results on them (scalars: [`unfuse`] has split the
    /// other fused SOACs before lowering).
    fn elems(
        &mut self,
        pre: Option<&Lambda>,
        arrays: &[Var],
        i: &Ex,
        out: &mut Vec<I>,
    ) -> R<Vec<(String, Type)>> {
        let Some(map) = pre else {
            return Ok(self.rows(arrays, i, out));
        };
        if map.params.len() != arrays.len() || map.body.result.len() != map.ret.len() {
            return Err("internal error: fused map lambda does not fit its inputs".into());
        }
        for (p, a) in map.params.iter().zip(arrays) {
            self.bind_row(*p, *a, i, out);
        }
        self.stms(&map.body, out)?;
        let mut vals = Vec::new();
        for (r, t) in map.body.result.iter().zip(&map.ret) {
            if !matches!(t, Type::Prim(_)) {
                return Err("internal error: fused map returns an array".into());
            }
            let n = self.fresh("mapped");
            self.decl_named(&n, t, out);
            self.assign_named(&n, t, r, out);
            vals.push((n, t.clone()));
        }
        self.end_scope(&map.body, out);
        Ok(vals)
    }

    fn map(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        lam: &Lambda,
        arrays: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.ix(w);
        for a in arrays {
            self.width_check(*a, &w, aux, out);
        }
        // Outputs: fresh arrays, or the accumulators passed through.
        let mut accs_in = arrays
            .iter()
            .filter(|a| matches!(self.ty(**a), Type::Acc { .. }))
            .copied()
            .collect::<Vec<_>>()
            .into_iter();
        for &p in pat {
            match self.ty(p) {
                Type::Acc { .. } => {
                    if let Some(a) = accs_in.next() {
                        self.assign(p, &SubExp::Var(a), out);
                    }
                }
                Type::Array { elem, dims } => {
                    let count = Ex::product(self.dims(dims));
                    out.push(I::Alloc {
                        arr: self.name(p),
                        elem: *elem,
                        count,
                    });
                }
                Type::Prim(_) => return Err("internal error: map result is a scalar".into()),
            }
        }
        if lam.params.len() != arrays.len() || lam.body.result.len() != pat.len() {
            return Err("internal error: map lambda does not fit its inputs".into());
        }
        let par = self.opts.parallel && !self.in_par;
        if let Some(red) = column_reduction(lam, arrays, pat, |v| self.ty(v)) {
            return self.column_reduction(pat, &w, lam, arrays, red, par, out);
        }
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let body = self.in_parallel(par, |s| -> R<Vec<I>> {
            let mut b = Vec::new();
            for (p, a) in lam.params.iter().zip(arrays) {
                s.bind_row(*p, *a, &iv, &mut b);
            }
            s.stms(&lam.body, &mut b)?;
            for (d, r) in pat.iter().zip(&lam.body.result) {
                if !matches!(s.ty(*d), Type::Acc { .. }) {
                    s.write_row(*d, r, &iv, aux, &mut b);
                }
            }
            s.end_scope(&lam.body, &mut b);
            Ok(b)
        })?;
        if par {
            let work = Ex::times(w.clone(), Ex::int(Self::cost(&lam.body)));
            let private = self.privatisable(lam, arrays);
            let private_body = if private.is_empty() {
                Vec::new()
            } else {
                imp::without_atomics(&body)
            };
            out.push(I::ParFor {
                var: i,
                bound: w,
                work,
                body,
                private,
                private_body,
            });
        } else {
            out.push(I::For {
                var: i,
                bound: w,
                body,
            });
        }
        Ok(())
    }

    /// `map(n, \j -> redomap(m, f, op, ne, xs))` found by [`column_reduction`], with the loops
    /// interchanged: the results start as `ne`, and for each row `i` of `xs`, for each `j`,
    /// `res[j] = op(res[j], f(xs[i], j))`. Every result folds the same values in the same
    /// order as the map of reductions, but `f` reads `xs[i][j]` along rows instead of down
    /// columns (a column read touches one page per row). With `par`, [`CHUNKS`] blocks of
    /// `j` run in parallel, each reading the rows of `xs` for its block.
    #[allow(clippy::too_many_arguments)]
    fn column_reduction(
        &mut self,
        pat: &[Var],
        n: &Ex,
        lam: &Lambda,
        arrays: &[Var],
        red: ColumnReduction<'_>,
        par: bool,
        out: &mut Vec<I>,
    ) -> R<()> {
        let m = self.ix(red.w);
        for a in red.arrays {
            self.width_check(*a, &m, red.aux, out);
        }
        let results: Vec<(String, PrimType)> = pat
            .iter()
            .map(|p| (self.name(*p), self.ty(*p).elem()))
            .collect();
        let start: Vec<Ex> = red.neutral.iter().map(|ne| self.se(ne)).collect();
        out.push(I::Comment(
            "map of column reductions, loops interchanged".into(),
        ));
        // The block of results `lo..hi`, all rows of `xs`.
        let block = |s: &mut Self, lo: &str, hi: &str| -> R<Vec<I>> {
            let mut b = Vec::new();
            for ((arr, t), ne) in results.iter().zip(&start) {
                b.push(s.chunk_for(lo, hi, |_, j, init| {
                    init.push(I::Store {
                        elem: *t,
                        arr: arr.clone(),
                        idx: j.clone(),
                        val: ne.clone(),
                    });
                    Ok(())
                })?);
            }
            let i = s.fresh("i");
            let mut row = Vec::new();
            for (p, a) in red.map.params.iter().zip(red.arrays) {
                s.bind_row(*p, *a, &Ex::var(&i), &mut row);
            }
            let items = s.chunk_for(lo, hi, |s, j, item| {
                for (p, a) in lam.params.iter().zip(arrays) {
                    s.bind_row(*p, *a, j, item);
                }
                s.stms(&red.map.body, item)?;
                let mut args = s.load_scalars("acc", &results, j, item);
                for (r, t) in red.map.body.result.iter().zip(&red.map.ret) {
                    let v = s.fresh("mapped");
                    s.decl_named(&v, t, item);
                    s.assign_named(&v, t, r, item);
                    args.push((v, t.clone()));
                }
                s.end_scope(&red.map.body, item);
                let next: Vec<(String, Type)> = results
                    .iter()
                    .map(|(_, t)| (s.fresh("nx"), Type::Prim(*t)))
                    .collect();
                for (v, t) in &next {
                    s.decl_named(v, t, item);
                }
                s.apply(red.op, &args, &next, item)?;
                for ((arr, t), (v, _)) in results.iter().zip(&next) {
                    item.push(I::Store {
                        elem: *t,
                        arr: arr.clone(),
                        idx: j.clone(),
                        val: Ex::var(v),
                    });
                }
                Ok(())
            })?;
            row.push(items);
            b.push(I::For {
                var: i,
                bound: m.clone(),
                body: row,
            });
            Ok(b)
        };
        if par {
            let c = self.fresh("c");
            let body = self.in_parallel(true, |s| -> R<Vec<I>> {
                let mut b = Vec::new();
                let (lo, hi) = s.chunk_range(&Ex::var(&c), n, &mut b);
                b.extend(block(s, &lo, &hi)?);
                Ok(b)
            })?;
            let cost = Self::cost(&red.map.body) + Self::cost(&red.op.body);
            out.push(I::ParFor {
                var: c,
                bound: Ex::int(CHUNKS),
                work: Ex::times(Ex::times(n.clone(), m.clone()), Ex::int(cost)),
                body,
                private: Vec::new(),
                private_body: Vec::new(),
            });
        } else {
            let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
            for (name, v) in [(&lo, Ex::int(0)), (&hi, n.clone())] {
                out.push(I::Decl {
                    ty: Ty::Prim(PrimType::I64),
                    name: name.clone(),
                    init: Some(v),
                });
            }
            out.extend(block(self, &lo, &hi)?);
        }
        Ok(())
    }

    /// Binds row `i` of each input to a fresh name (element or borrowed view); returns the
    /// names with their row types.
    fn rows(&mut self, arrays: &[Var], i: &Ex, out: &mut Vec<I>) -> Vec<(String, Type)> {
        let mut v = Vec::new();
        for a in arrays {
            let ty = self.ty(*a).clone();
            let row = ty.row();
            let n = self.fresh("row");
            self.decl_named(&n, &row, out);
            if let Some(val) = self.iota_row(*a, i) {
                out.push(I::Set {
                    name: n.clone(),
                    val,
                });
                v.push((n, row));
                continue;
            }
            let an = self.name(*a);
            match &row {
                Type::Prim(t) => out.push(I::Set {
                    name: n.clone(),
                    val: Ex::Load {
                        elem: *t,
                        arr: an,
                        idx: Box::new(i.clone()),
                    },
                }),
                _ => {
                    let block = Ex::product(self.dims(row.dims()));
                    out.push(I::SetArr {
                        dst: n.clone(),
                        src: an,
                        offset: Ex::times(i.clone(), block),
                        share: Share::Borrow,
                    });
                }
            }
            v.push((n, row));
        }
        v
    }

    #[allow(clippy::too_many_arguments)]
    fn reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.ix(w);
        for a in arrays {
            self.width_check(*a, &w, aux, out);
        }
        let k = neutral.len();
        let inputs = pre.map_or(arrays.len(), |m| m.ret.len());
        if inputs != k || lam.params.len() != 2 * k || lam.ret.len() != k {
            return Err("internal error: reduce/scan operator does not fit".into());
        }
        let acc_tys: Vec<Type> = lam.ret.clone();
        if scan {
            for &p in pat {
                let Type::Array { elem, dims } = self.ty(p) else {
                    return Err("internal error: scan result is not an array".into());
                };
                let count = Ex::product(self.dims(dims));
                out.push(I::Alloc {
                    arr: self.name(p),
                    elem: *elem,
                    count,
                });
            }
        }
        let all_scalar = acc_tys.iter().all(|t| matches!(t, Type::Prim(_)));
        if self.opts.parallel && !self.in_par && all_scalar {
            // Small inputs run sequentially: splitting them into chunks costs more than it
            // saves. The choice depends on the width only, so results do not depend on the
            // number of threads.
            let cost = Self::cost(&lam.body) + pre.map_or(0, |m| Self::cost(&m.body));
            let mut par = Vec::new();
            self.par_reduce_or_scan(pat, &w, lam, neutral, pre, arrays, scan, &mut par)?;
            let mut seq = Vec::new();
            self.seq_reduce_or_scan(pat, &w, lam, neutral, pre, arrays, scan, &acc_tys, &mut seq)?;
            out.push(I::If {
                cond: Ex::Idx(
                    IdxOp::Le,
                    Box::new(Ex::var(PAR_CHUNK_MIN_WORK)),
                    Box::new(Ex::times(w.clone(), Ex::int(cost))),
                ),
                then: par,
                els: seq,
            });
            return Ok(());
        }
        self.seq_reduce_or_scan(pat, &w, lam, neutral, pre, arrays, scan, &acc_tys, out)
    }

    /// `reduce`/`scan` left to right.
    #[allow(clippy::too_many_arguments)]
    fn seq_reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &Ex,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        acc_tys: &[Type],
        out: &mut Vec<I>,
    ) -> R<()> {
        let accs: Vec<(String, Type)> = acc_tys
            .iter()
            .map(|t| (self.fresh("acc"), t.clone()))
            .collect();
        for ((a, t), ne) in accs.iter().zip(neutral) {
            self.decl_named(a, t, out);
            self.assign_named(a, t, ne, out);
        }
        let i = self.fresh("i");
        let iv = Ex::var(&i);
        let mut body = Vec::new();
        let mut args = accs.clone();
        args.extend(self.elems(pre, arrays, &iv, &mut body)?);
        let nexts: Vec<(String, Type)> = acc_tys
            .iter()
            .map(|t| (self.fresh("nx"), t.clone()))
            .collect();
        for (n, t) in &nexts {
            self.decl_named(n, t, &mut body);
        }
        self.apply(lam, &args, &nexts, &mut body)?;
        for ((a, t), (n, _)) in accs.iter().zip(&nexts) {
            if matches!(t, Type::Array { .. }) {
                body.push(I::Decref(a.clone()));
            }
            self.move_into(a, n, t, &mut body);
        }
        if scan {
            for (p, (a, _)) in pat.iter().zip(&accs) {
                let pn = self.name(*p);
                let pty = self.ty(*p).clone();
                let elem = pty.elem();
                let rdims = self.dims(&pty.dims()[1..]);
                if rdims.is_empty() {
                    body.push(I::Store {
                        elem,
                        arr: pn,
                        idx: iv.clone(),
                        val: Ex::var(a),
                    });
                } else {
                    let block = Ex::product(rdims);
                    body.push(I::Copy {
                        elem,
                        dst: pn,
                        dst_off: Ex::times(iv.clone(), block.clone()),
                        src: a.clone(),
                        src_off: Ex::int(0),
                        count: block,
                    });
                }
            }
        }
        out.push(I::For {
            var: i,
            bound: w.clone(),
            body,
        });
        if scan {
            for (a, t) in &accs {
                if matches!(t, Type::Array { .. }) {
                    out.push(I::Decref(a.clone()));
                }
            }
        } else {
            for (p, (a, t)) in pat.iter().zip(&accs) {
                let pn = self.name(*p);
                self.move_into(&pn, a, t, out);
                if let Type::Array { elem, dims } = t {
                    let count = Ex::product(self.dims(dims));
                    out.push(I::MakeUnique {
                        arr: pn,
                        elem: *elem,
                        count,
                    });
                }
            }
        }
        Ok(())
    }

    /// `reduce`/`scan` over [`CHUNKS`] chunks in parallel, scalar operands only.
    #[allow(clippy::too_many_arguments)]
    fn par_reduce_or_scan(
        &mut self,
        pat: &[Var],
        w: &Ex,
        lam: &Lambda,
        neutral: &[SubExp],
        pre: Option<&Lambda>,
        arrays: &[Var],
        scan: bool,
        out: &mut Vec<I>,
    ) -> R<()> {
        let tys: Vec<PrimType> = lam.ret.iter().map(|t| t.elem()).collect();
        let parts = self.alloc_scratch("part", &tys, &Ex::int(CHUNKS), out);
        let cost = Self::cost(&lam.body) + pre.map_or(0, |m| Self::cost(&m.body));
        // Phase 1: each chunk reduced from the neutral element into its partial result.
        let chunk_loop = |s: &mut Self,
                          c: &str,
                          init: &dyn Fn(&mut Self, usize) -> Ex,
                          write: bool,
                          write_part: bool|
         -> R<Vec<I>> {
            let mut b = Vec::new();
            let (lo, hi) = s.chunk_range(&Ex::var(c), w, &mut b);
            let accs: Vec<(String, Type)> = tys
                .iter()
                .map(|t| (s.fresh("acc"), Type::Prim(*t)))
                .collect();
            for (j, (a, t)) in accs.iter().enumerate() {
                b.push(I::Decl {
                    ty: Ty::Prim(t.elem()),
                    name: a.clone(),
                    init: Some(init(s, j)),
                });
            }
            let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                let mut args = accs.clone();
                args.extend(s.elems(pre, arrays, i, inner)?);
                s.apply(lam, &args, &accs, inner)?;
                if write {
                    for (p, (a, _)) in pat.iter().zip(&accs) {
                        inner.push(I::Store {
                            elem: s.ty(*p).elem(),
                            arr: s.name(*p),
                            idx: i.clone(),
                            val: Ex::var(a),
                        });
                    }
                }
                Ok(())
            })?;
            b.push(items);
            if write_part {
                for (p, (a, t)) in parts.iter().zip(&accs) {
                    b.push(I::Store {
                        elem: t.elem(),
                        arr: p.clone(),
                        idx: Ex::var(c),
                        val: Ex::var(a),
                    });
                }
            }
            Ok(b)
        };
        let neutral_ex: Vec<Ex> = neutral.iter().map(|n| self.se(n)).collect();
        // A scan with a fused map scans each chunk in phase 1 already (storing its results)
        // and adds the chunk's prefix to them in phase 3, so the map runs once per element;
        // a plain scan reads its input twice instead of writing its output twice.
        let propagate = scan && pre.is_some();
        let c1 = self.fresh("c");
        let body1 = self.in_parallel(true, |s| {
            chunk_loop(s, &c1, &|_, j| neutral_ex[j].clone(), propagate, true)
        })?;
        out.push(I::ParFor {
            var: c1,
            bound: Ex::int(CHUNKS),
            work: Ex::times(w.clone(), Ex::int(cost)),
            body: body1,
            private: Vec::new(),
            private_body: Vec::new(),
        });
        // Phase 2: combine the partial results in order (for scan: exclusive prefixes).
        let accs: Vec<(String, Type)> = tys
            .iter()
            .map(|t| (self.fresh("tot"), Type::Prim(*t)))
            .collect();
        for ((a, t), ne) in accs.iter().zip(&neutral_ex) {
            out.push(I::Decl {
                ty: Ty::Prim(t.elem()),
                name: a.clone(),
                init: Some(ne.clone()),
            });
        }
        let c2 = self.fresh("c");
        let mut body2 = Vec::new();
        let mut args = accs.clone();
        let part_arrays: Vec<(String, PrimType)> = parts.iter().cloned().zip(tys.clone()).collect();
        args.extend(self.load_scalars("pv", &part_arrays, &Ex::var(&c2), &mut body2));
        if scan {
            for ((p, t), (a, _)) in parts.iter().zip(&tys).zip(&accs) {
                body2.push(I::Store {
                    elem: *t,
                    arr: p.clone(),
                    idx: Ex::var(&c2),
                    val: Ex::var(a),
                });
            }
        }
        self.apply(lam, &args, &accs, &mut body2)?;
        out.push(I::For {
            var: c2,
            bound: Ex::int(CHUNKS),
            body: body2,
        });
        if propagate {
            // Phase 3: each chunk but the first combines its prefix with its results.
            let c3 = self.fresh("c");
            let body3 = self.in_parallel(true, |s| -> R<Vec<I>> {
                let mut b = Vec::new();
                let (lo, hi) = s.chunk_range(&Ex::var(&c3), w, &mut b);
                let prefix = s.load_scalars("pre", &part_arrays, &Ex::var(&c3), &mut b);
                let results: Vec<(String, PrimType)> =
                    pat.iter().map(|p| (s.name(*p), s.ty(*p).elem())).collect();
                let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                    let mut args = prefix.clone();
                    args.extend(s.load_scalars("x", &results, i, inner));
                    let combined: Vec<(String, Type)> = results
                        .iter()
                        .map(|(_, t)| (s.fresh("r"), Type::Prim(*t)))
                        .collect();
                    for (r, t) in &combined {
                        s.decl_named(r, t, inner);
                    }
                    s.apply(lam, &args, &combined, inner)?;
                    for ((arr, t), (r, _)) in results.iter().zip(&combined) {
                        inner.push(I::Store {
                            elem: *t,
                            arr: arr.clone(),
                            idx: i.clone(),
                            val: Ex::var(r),
                        });
                    }
                    Ok(())
                })?;
                b.push(items);
                Ok(vec![I::If {
                    cond: lt(Ex::int(0), Ex::var(&c3)),
                    then: b,
                    els: vec![],
                }])
            })?;
            out.push(I::ParFor {
                var: c3,
                bound: Ex::int(CHUNKS),
                work: Ex::times(w.clone(), Ex::int(Self::cost(&lam.body))),
                body: body3,
                private: Vec::new(),
                private_body: Vec::new(),
            });
        } else if scan {
            // Phase 3: each chunk scanned from its prefix.
            let c3 = self.fresh("c");
            let parts3 = parts.clone();
            let tys3 = tys.clone();
            let c3n = c3.clone();
            let body3 = self.in_parallel(true, |s| {
                chunk_loop(
                    s,
                    &c3,
                    &|_, j| Ex::Load {
                        elem: tys3[j],
                        arr: parts3[j].clone(),
                        idx: Box::new(Ex::var(&c3n)),
                    },
                    true,
                    false,
                )
            })?;
            out.push(I::ParFor {
                var: c3,
                bound: Ex::int(CHUNKS),
                work: Ex::times(w.clone(), Ex::int(cost)),
                body: body3,
                private: Vec::new(),
                private_body: Vec::new(),
            });
        } else {
            for (p, (a, _)) in pat.iter().zip(&accs) {
                out.push(I::Set {
                    name: self.name(*p),
                    val: Ex::var(a),
                });
            }
        }
        for p in parts {
            out.push(I::Decref(p));
        }
        Ok(())
    }

    /// `hist`/`reduce_by_index` (with a fused map, `histomap`): sequential, or on the
    /// multicore backend, when the bins are scalars and few against the width, one private
    /// histogram per chunk merged bin by bin into the destination in chunk order (the
    /// operator is associative and commutative; results do not depend on the thread count).
    #[allow(clippy::too_many_arguments)]
    fn hist(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        dests: &[Var],
        lam: &Lambda,
        neutral: &[SubExp],
        src: HistSource<'_>,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.ix(w);
        let inputs = match &src {
            HistSource::Arrays { indices, values } => std::iter::once(*indices)
                .chain(values.iter().copied())
                .collect(),
            HistSource::Mapped { arrays, .. } => arrays.to_vec(),
        };
        for v in inputs {
            self.width_check(v, &w, aux, out);
        }
        let mut dn = Vec::new();
        for d in dests {
            let n = self.consume(*d, out);
            let dims = self.var_dims(*d);
            out.push(I::MakeUnique {
                arr: n.clone(),
                elem: self.ty(*d).elem(),
                count: Ex::product(dims),
            });
            dn.push(n);
        }
        let i = self.fresh("i");
        let mut body = Vec::new();
        let targets: Vec<(String, Ex)> = dn.iter().map(|n| (n.clone(), Ex::int(0))).collect();
        self.hist_element(&Ex::var(&i), dests, &targets, lam, &src, &mut body)?;
        let seq = vec![I::For {
            var: i,
            bound: w.clone(),
            body,
        }];
        let scalar_bins = dests.iter().all(|d| self.ty(*d).dims().len() == 1);
        // The merge applies the operator to pairs the sequential order never forms (a bin's
        // neutral element with another's), so an operator that can fail stays sequential.
        let safe_op = crate::opt::util::body_is_safe(
            &lam.body,
            &crate::opt::util::Ranges::default(),
            &self.prog.names,
        );
        if self.opts.parallel
            && !self.in_par
            && scalar_bins
            && safe_op
            && neutral.len() == dests.len()
        {
            let bins: Vec<Ex> = dests.iter().map(|d| self.var_dims(*d)[0].clone()).collect();
            let cost = Self::cost(&lam.body)
                + match &src {
                    HistSource::Mapped { map, .. } => Self::cost(&map.body),
                    HistSource::Arrays { .. } => 0,
                };
            let mut par = Vec::new();
            self.par_hist(&w, cost, dests, &dn, &bins, lam, neutral, &src, &mut par)?;
            // Private histograms pay off when the input is large and they are small
            // against it; the test depends on sizes only, not on the thread count.
            let mut cond = and(
                le(
                    Ex::var(PAR_CHUNK_MIN_WORK),
                    Ex::times(w.clone(), Ex::int(cost)),
                ),
                le(Ex::times(bins[0].clone(), Ex::int(CHUNKS)), w.clone()),
            );
            for b in &bins[1..] {
                cond = and(cond, eq(b.clone(), bins[0].clone()));
            }
            out.push(I::If {
                cond,
                then: par,
                els: seq,
            });
        } else {
            out.extend(seq);
        }
        self.move_results(pat, &dn, out);
        Ok(())
    }

    /// Declares and allocates one array of `count` elements per type of `tys`, named after
    /// `hint`, for partial results (the caller releases them).
    fn alloc_scratch(
        &mut self,
        hint: &str,
        tys: &[PrimType],
        count: &Ex,
        out: &mut Vec<I>,
    ) -> Vec<String> {
        let mut names = Vec::new();
        for t in tys {
            let n = self.fresh(hint);
            out.push(I::Decl {
                ty: Ty::Array(*t),
                name: n.clone(),
                init: None,
            });
            out.push(I::Alloc {
                arr: n.clone(),
                elem: *t,
                count: count.clone(),
            });
            names.push(n);
        }
        names
    }

    /// Declares `lo` and `hi`, the bounds of chunk `c` of [`CHUNKS`] near-equal chunks of `n`
    /// items (`c * n / CHUNKS`: no overflow for any realistic `n`).
    fn chunk_range(&mut self, c: &Ex, n: &Ex, out: &mut Vec<I>) -> (String, String) {
        let bound = |c: Ex| {
            Ex::Prim(
                PrimOp::Bin(BinOp::Quot, PrimType::I64),
                vec![Ex::times(c, n.clone()), Ex::int(CHUNKS)],
            )
        };
        let (lo, hi) = (self.fresh("lo"), self.fresh("hi"));
        for (name, c) in [(&lo, c.clone()), (&hi, Ex::plus(c.clone(), Ex::int(1)))] {
            out.push(I::Decl {
                ty: Ty::Prim(PrimType::I64),
                name: name.clone(),
                init: Some(bound(c)),
            });
        }
        (lo, hi)
    }

    /// A loop over the items `lo..hi`; `item` writes the body for item `i`.
    fn chunk_for(
        &mut self,
        lo: &str,
        hi: &str,
        item: impl FnOnce(&mut Self, &Ex, &mut Vec<I>) -> R<()>,
    ) -> R<I> {
        let (n, i) = (self.fresh("n"), self.fresh("i"));
        let mut body = vec![I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: i.clone(),
            init: Some(Ex::plus(Ex::var(lo), Ex::var(&n))),
        }];
        item(self, &Ex::var(&i), &mut body)?;
        Ok(I::For {
            var: n,
            bound: Ex::idx(IdxOp::Sub, Ex::var(hi), Ex::var(lo)),
            body,
        })
    }

    /// Declares one scalar per array of `arrays` (name and element type): its element `idx`.
    fn load_scalars(
        &mut self,
        hint: &str,
        arrays: &[(String, PrimType)],
        idx: &Ex,
        out: &mut Vec<I>,
    ) -> Vec<(String, Type)> {
        let mut vars = Vec::new();
        for (arr, t) in arrays {
            let v = self.fresh(hint);
            out.push(I::Decl {
                ty: Ty::Prim(*t),
                name: v.clone(),
                init: Some(Ex::Load {
                    elem: *t,
                    arr: arr.clone(),
                    idx: Box::new(idx.clone()),
                }),
            });
            vars.push((v, Type::Prim(*t)));
        }
        vars
    }

    /// Element `iv` of a `hist`: its bin, and when the bin is in range, the operator applied
    /// to the bin's contents and the element's values. Bin `b` of destination `j` is row
    /// `offset_j + b` of `targets[j]` (scalar bins; array bins are used with offset 0).
    fn hist_element(
        &mut self,
        iv: &Ex,
        dests: &[Var],
        targets: &[(String, Ex)],
        lam: &Lambda,
        src: &HistSource<'_>,
        body: &mut Vec<I>,
    ) -> R<()> {
        let bin = self.fresh("bin");
        // The values of a fused map are computed with the index, before the range test.
        let mut mapped_values = None;
        let bin_value = match src {
            HistSource::Arrays { indices, .. } => {
                let ity = self.ty(*indices).elem();
                let load = Ex::Load {
                    elem: ity,
                    arr: self.name(*indices),
                    idx: Box::new(iv.clone()),
                };
                if ity == PrimType::I64 {
                    load
                } else {
                    Ex::Prim(PrimOp::Conv(ity, PrimType::I64), vec![load])
                }
            }
            HistSource::Mapped { map, arrays } => {
                let mut vals = self.elems(Some(map), arrays, iv, body)?;
                if vals.is_empty() {
                    return Err("internal error: histomap lambda returns no index".into());
                }
                let (index, _) = vals.remove(0);
                mapped_values = Some(vals);
                Ex::var(&index)
            }
        };
        body.push(I::Decl {
            ty: Ty::Prim(PrimType::I64),
            name: bin.clone(),
            init: Some(bin_value),
        });
        let mut cond = bool_ex(true);
        for d in dests {
            let d0 = self.var_dims(*d)[0].clone();
            cond = and(cond, in_range(Ex::var(&bin), d0));
        }
        let mut then = Vec::new();
        // Current bin contents, then the values.
        let mut args = Vec::new();
        let mut binrows = Vec::new();
        for (d, (n, offset)) in dests.iter().zip(targets) {
            let ty = self.ty(*d).clone();
            let row = ty.row();
            let r = self.fresh("cur");
            self.decl_named(&r, &row, &mut then);
            let block = Ex::product(self.dims(row.dims()));
            let at = Ex::plus(offset.clone(), Ex::var(&bin));
            match &row {
                Type::Prim(t) => then.push(I::Set {
                    name: r.clone(),
                    val: Ex::Load {
                        elem: *t,
                        arr: n.clone(),
                        idx: Box::new(at.clone()),
                    },
                }),
                _ => then.push(I::SetArr {
                    dst: r.clone(),
                    src: n.clone(),
                    offset: Ex::times(at.clone(), block.clone()),
                    share: Share::Borrow,
                }),
            }
            args.push((r, row.clone()));
            binrows.push((row, block, at));
        }
        match src {
            HistSource::Arrays { values, .. } => args.extend(self.rows(values, iv, &mut then)),
            HistSource::Mapped { .. } => args.extend(mapped_values.take().unwrap_or_default()),
        }
        let nexts: Vec<(String, Type)> = binrows
            .iter()
            .map(|(row, _, _)| (self.fresh("new"), row.clone()))
            .collect();
        for (n, t) in &nexts {
            self.decl_named(n, t, &mut then);
        }
        self.apply(lam, &args, &nexts, &mut then)?;
        for (((n, row), (_, block, at)), (d, (dname, _))) in
            nexts.iter().zip(&binrows).zip(dests.iter().zip(targets))
        {
            let elem = self.ty(*d).elem();
            match row {
                Type::Prim(_) => then.push(I::Store {
                    elem,
                    arr: dname.clone(),
                    idx: at.clone(),
                    val: Ex::var(n),
                }),
                _ => {
                    then.push(I::Copy {
                        elem,
                        dst: dname.clone(),
                        dst_off: Ex::times(at.clone(), block.clone()),
                        src: n.clone(),
                        src_off: Ex::int(0),
                        count: block.clone(),
                    });
                    then.push(I::Decref(n.clone()));
                }
            }
        }
        body.push(I::If {
            cond,
            then,
            els: vec![],
        });
        Ok(())
    }

    /// The parallel `hist` of [`Self::hist`]: chunk `c` of the input fills its private
    /// histogram (row `c` of a `CHUNKS × bins` array per destination, from the neutral
    /// element), then blocks of bins are merged in parallel, each bin folding the chunks'
    /// histograms into the destination in chunk order.
    #[allow(clippy::too_many_arguments)]
    fn par_hist(
        &mut self,
        w: &Ex,
        cost: i64,
        dests: &[Var],
        dn: &[String],
        bins: &[Ex],
        lam: &Lambda,
        neutral: &[SubExp],
        src: &HistSource<'_>,
        out: &mut Vec<I>,
    ) -> R<()> {
        let elems: Vec<PrimType> = dests.iter().map(|d| self.ty(*d).elem()).collect();
        let nbins = bins[0].clone();
        let count = Ex::times(Ex::int(CHUNKS), nbins.clone());
        let subs = self.alloc_scratch("sub", &elems, &count, out);
        let neutral_ex: Vec<Ex> = neutral.iter().map(|n| self.se(n)).collect();
        let c = self.fresh("c");
        let body1 = self.in_parallel(true, |s| -> R<Vec<I>> {
            let mut b = Vec::new();
            let base = Ex::times(Ex::var(&c), nbins.clone());
            for ((sub, t), ne) in subs.iter().zip(&elems).zip(&neutral_ex) {
                let k = s.fresh("k");
                b.push(I::For {
                    var: k.clone(),
                    bound: nbins.clone(),
                    body: vec![I::Store {
                        elem: *t,
                        arr: sub.clone(),
                        idx: Ex::plus(base.clone(), Ex::var(&k)),
                        val: ne.clone(),
                    }],
                });
            }
            let (lo, hi) = s.chunk_range(&Ex::var(&c), w, &mut b);
            let targets: Vec<(String, Ex)> =
                subs.iter().map(|sub| (sub.clone(), base.clone())).collect();
            let items = s.chunk_for(&lo, &hi, |s, i, inner| {
                s.hist_element(i, dests, &targets, lam, src, inner)
            })?;
            b.push(items);
            Ok(b)
        })?;
        out.push(I::ParFor {
            var: c,
            bound: Ex::int(CHUNKS),
            work: Ex::times(w.clone(), Ex::int(cost)),
            body: body1,
            private: Vec::new(),
            private_body: Vec::new(),
        });
        let c = self.fresh("c");
        let body2 = self.in_parallel(true, |s| -> R<Vec<I>> {
            let mut b = Vec::new();
            let (lo, hi) = s.chunk_range(&Ex::var(&c), &nbins, &mut b);
            let sub_arrays: Vec<(String, PrimType)> =
                subs.iter().cloned().zip(elems.clone()).collect();
            let dest_arrays: Vec<(String, PrimType)> =
                dn.iter().cloned().zip(elems.clone()).collect();
            let bins = s.chunk_for(&lo, &hi, |s, bin, per_bin| {
                let accs = s.load_scalars("acc", &dest_arrays, bin, per_bin);
                let k = s.fresh("k");
                let mut fold = Vec::new();
                let mut args = accs.clone();
                let at = Ex::plus(Ex::times(Ex::var(&k), nbins.clone()), bin.clone());
                args.extend(s.load_scalars("pv", &sub_arrays, &at, &mut fold));
                s.apply(lam, &args, &accs, &mut fold)?;
                per_bin.push(I::For {
                    var: k,
                    bound: Ex::int(CHUNKS),
                    body: fold,
                });
                for ((a, _), (d, t)) in accs.iter().zip(&dest_arrays) {
                    per_bin.push(I::Store {
                        elem: *t,
                        arr: d.clone(),
                        idx: bin.clone(),
                        val: Ex::var(a),
                    });
                }
                Ok(())
            })?;
            b.push(bins);
            Ok(b)
        })?;
        out.push(I::ParFor {
            var: c,
            bound: Ex::int(CHUNKS),
            work: Ex::times(
                Ex::times(nbins.clone(), Ex::int(CHUNKS)),
                Ex::int(Self::cost(&lam.body)),
            ),
            body: body2,
            private: Vec::new(),
            private_body: Vec::new(),
        });
        for s in subs {
            out.push(I::Decref(s));
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn scatter(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        dests: &[Var],
        indices: Var,
        values: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.ix(w);
        self.width_check(indices, &w, aux, out);
        let ity = self.ty(indices).elem();
        let iname = self.name(indices);
        for ((d, v), p) in dests.iter().zip(values).zip(pat) {
            let dims = self.var_dims(*d);
            let elem = self.ty(*d).elem();
            let vdims = self.var_dims(*v);
            let mut want = vec![w.clone()];
            want.extend(dims[1..].iter().cloned());
            self.size_check(out, &vdims, &want, elem, String::new(), aux);
            let n = self.consume(*d, out);
            out.push(I::MakeUnique {
                arr: n.clone(),
                elem,
                count: Ex::product(dims.clone()),
            });
            let block = Ex::product(dims[1..].iter().cloned());
            let i = self.fresh("i");
            let k = self.fresh("k");
            let load = Ex::Load {
                elem: ity,
                arr: iname.clone(),
                idx: Box::new(Ex::var(&i)),
            };
            let write = if dims.len() == 1 {
                I::Store {
                    elem,
                    arr: n.clone(),
                    idx: Ex::var(&k),
                    val: Ex::Load {
                        elem,
                        arr: self.name(*v),
                        idx: Box::new(Ex::var(&i)),
                    },
                }
            } else {
                I::Copy {
                    elem,
                    dst: n.clone(),
                    dst_off: Ex::times(Ex::var(&k), block.clone()),
                    src: self.name(*v),
                    src_off: Ex::times(Ex::var(&i), block.clone()),
                    count: block.clone(),
                }
            };
            out.push(I::For {
                var: i.clone(),
                bound: w.clone(),
                body: vec![
                    I::Decl {
                        ty: Ty::Prim(PrimType::I64),
                        name: k.clone(),
                        init: Some(if ity == PrimType::I64 {
                            load
                        } else {
                            Ex::Prim(PrimOp::Conv(ity, PrimType::I64), vec![load])
                        }),
                    },
                    I::If {
                        cond: in_range(Ex::var(&k), dims[0].clone()),
                        then: vec![write],
                        els: vec![],
                    },
                ],
            });
            out.push(I::SetArr {
                dst: self.name(*p),
                src: n,
                offset: Ex::int(0),
                share: Share::Move,
            });
        }
        Ok(())
    }

    /// `scattermap`: one loop computes each position and its values and writes them to every
    /// destination (scalar rows: see [`Lw::elems`]).
    #[allow(clippy::too_many_arguments)]
    fn scattermap(
        &mut self,
        pat: &[Var],
        w: &SubExp,
        dests: &[Var],
        map: &Lambda,
        arrays: &[Var],
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        let w = self.ix(w);
        for a in arrays {
            self.width_check(*a, &w, aux, out);
        }
        let mut dn = Vec::new();
        for d in dests {
            let n = self.consume(*d, out);
            out.push(I::MakeUnique {
                arr: n.clone(),
                elem: self.ty(*d).elem(),
                count: Ex::product(self.var_dims(*d)),
            });
            dn.push(n);
        }
        let i = self.fresh("i");
        let mut body = Vec::new();
        let vals = self.elems(Some(map), arrays, &Ex::var(&i), &mut body)?;
        let Some(((k, _), values)) = vals.split_first() else {
            return Err("internal error: scattermap lambda returns no position".into());
        };
        if values.len() != dests.len() {
            return Err("internal error: scattermap has a value per destination".into());
        }
        for ((d, n), (v, _)) in dests.iter().zip(&dn).zip(values) {
            let n0 = self.var_dims(*d)[0].clone();
            body.push(I::If {
                cond: in_range(Ex::var(k), n0),
                then: vec![I::Store {
                    elem: self.ty(*d).elem(),
                    arr: n.clone(),
                    idx: Ex::var(k),
                    val: Ex::var(v),
                }],
                els: vec![],
            });
        }
        out.push(I::For {
            var: i,
            bound: w,
            body,
        });
        self.move_results(pat, &dn, out);
        Ok(())
    }

    fn with_acc(
        &mut self,
        pat: &[Var],
        inputs: &[(Vec<SubExp>, Vec<Var>)],
        lam: &Lambda,
        aux: &Aux,
        out: &mut Vec<I>,
    ) -> R<()> {
        if lam.params.len() != inputs.len() {
            return Err("internal error: with_acc lambda does not fit its inputs".into());
        }
        let mut owned = Vec::new();
        for ((shape, arrays), p) in inputs.iter().zip(&lam.params) {
            self.declare(*p, out);
            let pn = self.name(*p);
            let sd = self.dims(shape);
            for (j, a) in arrays.iter().enumerate() {
                let dims = self.var_dims(*a);
                let elem = self.ty(*a).elem();
                if dims.len() >= sd.len() {
                    let mut want = sd.clone();
                    want.extend(dims[sd.len()..].iter().cloned());
                    self.size_check(out, &dims, &want, elem, String::new(), aux);
                }
                let n = self.consume(*a, out);
                out.push(I::MakeUnique {
                    arr: n.clone(),
                    elem,
                    count: Ex::product(dims.clone()),
                });
                if elem.is_float() {
                    self.acc_sizes
                        .insert(format!("{pn}_{j}"), (elem, Ex::product(dims)));
                }
                out.push(I::Set {
                    name: format!("{pn}_{j}"),
                    val: Ex::var(&n),
                });
                owned.push(n);
            }
        }
        self.stms(&lam.body, out)?;
        let rest = &lam.body.result[inputs.len().min(lam.body.result.len())..];
        let extra = &pat[owned.len().min(pat.len())..];
        for (d, r) in extra.iter().zip(rest) {
            self.assign(*d, r, out);
        }
        self.end_scope(&lam.body, out);
        self.move_results(pat, &owned, out);
        Ok(())
    }
}
