//! The imperative IR: what core IR becomes before it is printed as C.
//!
//! Memory is explicit. An array variable `x` stands for two C variables: `x`, a pointer to its
//! first element, and `x_m`, the reference-counted block that owns the elements (or nothing, for
//! a *borrowed* array: an entry-point argument, a row of a SOAC input, an array of the enclosing
//! scope seen from a parallel loop). Every array variable holds one reference on its block;
//! [`Stm::Decref`] drops it at the end of the scope that bound the variable. An array is updated
//! in place only after [`Stm::MakeUnique`] (a copy when the block is shared or borrowed).
//!
//! Shapes are not stored: the dimensions of every array are scalar variables or constants in
//! scope (the core IR's types say which), so offsets are expressions over them.
//!
//! Loops are sequential ([`Stm::For`], [`Stm::While`]) or parallel ([`Stm::ParFor`], whose
//! iterations are independent and write disjoint memory, except through [`Stm::AtomicAdd`]).
//! [`Stm::Check`] fails the call with an error site (see [`Site`]) when its condition is false.

use crate::core::prim::PrimOp;
use crate::core::scalar::{PrimType, Scalar};
use crate::diag::Span;
use std::fmt::Write;

/// An expression without side effects.
#[derive(Clone, Debug, PartialEq)]
pub enum Ex {
    /// A scalar variable (or the data pointer of an array, where a pointer is expected).
    Var(String),
    /// A constant.
    Const(Scalar),
    /// A primitive operation with the semantics of [`PrimOp::eval`]; integer division by zero
    /// gives 0 here (the check is a separate [`Stm::Check`]).
    Prim(PrimOp, Vec<Ex>),
    /// Size and offset arithmetic on `i64` that cannot overflow (sizes of allocated arrays).
    Idx(IdxOp, Box<Ex>, Box<Ex>),
    /// Element `idx` of array `arr` (element type `elem`).
    Load {
        /// Element type.
        elem: PrimType,
        /// The array variable.
        arr: String,
        /// Flat element offset.
        idx: Box<Ex>,
    },
    /// Logical negation of a `bool`.
    Not(Box<Ex>),
}

/// Operations of [`Ex::Idx`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum IdxOp {
    Add,
    Sub,
    Mul,
    /// Remainder of non-negative numbers.
    Rem,
    Lt,
    Le,
    Eq,
    Ne,
    And,
    Or,
}

impl IdxOp {
    /// The C spelling.
    pub fn c(self) -> &'static str {
        match self {
            IdxOp::Add => "+",
            IdxOp::Sub => "-",
            IdxOp::Mul => "*",
            IdxOp::Rem => "%",
            IdxOp::Lt => "<",
            IdxOp::Le => "<=",
            IdxOp::Eq => "==",
            IdxOp::Ne => "!=",
            IdxOp::And => "&&",
            IdxOp::Or => "||",
        }
    }
}

impl Ex {
    /// An `i64` constant.
    pub fn int(n: i64) -> Ex {
        Ex::Const(Scalar::I64(n))
    }
    /// A variable.
    pub fn var(s: &str) -> Ex {
        Ex::Var(s.to_string())
    }
    /// `a op b`, folding constants and units.
    pub fn idx(op: IdxOp, a: Ex, b: Ex) -> Ex {
        let (ca, cb) = (a.as_int(), b.as_int());
        match (op, ca, cb) {
            (IdxOp::Add, Some(x), Some(y)) => return Ex::int(x.wrapping_add(y)),
            (IdxOp::Sub, Some(x), Some(y)) => return Ex::int(x.wrapping_sub(y)),
            (IdxOp::Mul, Some(x), Some(y)) => return Ex::int(x.wrapping_mul(y)),
            (IdxOp::Add, Some(0), _) => return b,
            (IdxOp::Add | IdxOp::Sub, _, Some(0)) => return a,
            (IdxOp::Mul, Some(1), _) => return b,
            (IdxOp::Mul, _, Some(1)) => return a,
            (IdxOp::Mul, Some(0), _) | (IdxOp::Mul, _, Some(0)) => return Ex::int(0),
            (IdxOp::Lt, Some(x), Some(y)) => return Ex::Const(Scalar::Bool(x < y)),
            (IdxOp::Le, Some(x), Some(y)) => return Ex::Const(Scalar::Bool(x <= y)),
            _ => {}
        }
        if op == IdxOp::And {
            for (k, other) in [(&a, &b), (&b, &a)] {
                match k {
                    Ex::Const(Scalar::Bool(true)) => return other.clone(),
                    Ex::Const(Scalar::Bool(false)) => return k.clone(),
                    _ => {}
                }
            }
        }
        Ex::Idx(op, Box::new(a), Box::new(b))
    }
    /// Whether the expression is the constant `false`.
    pub fn is_false(&self) -> bool {
        *self == Ex::Const(Scalar::Bool(false))
    }
    /// `a + b`.
    pub fn plus(a: Ex, b: Ex) -> Ex {
        Ex::idx(IdxOp::Add, a, b)
    }
    /// `a * b`.
    pub fn times(a: Ex, b: Ex) -> Ex {
        Ex::idx(IdxOp::Mul, a, b)
    }
    /// The product of the expressions (1 for none).
    pub fn product(xs: impl IntoIterator<Item = Ex>) -> Ex {
        xs.into_iter().fold(Ex::int(1), Ex::times)
    }
    /// The value, if this is an integer constant.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Ex::Const(s) if s.prim_type().is_int() => s.as_i64(),
            _ => None,
        }
    }
}

/// How [`Stm::SetArr`] shares the source's memory block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Share {
    /// Takes a new reference on the block.
    Ref,
    /// Takes no reference: the destination is borrowed (its block is left unset).
    Borrow,
    /// Takes over the source's reference (the source is consumed; its block is cleared).
    Move,
}

/// The C type of a declared variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A scalar.
    Prim(PrimType),
    /// An array: a data pointer and its memory block.
    Array(PrimType),
    /// A bare pointer to elements (one array behind an accumulator).
    Ptr(PrimType),
}

/// An accumulator array of floats that a parallel loop may privatise (see [`Stm::ParFor`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Private {
    /// The array (a pointer variable).
    pub arr: String,
    /// Its element type (`f32` or `f64`).
    pub elem: PrimType,
    /// Its number of elements.
    pub count: Ex,
}

/// A copy of `body` in which no addition is atomic (for a privatised parallel loop, where
/// every accumulator it adds into belongs to one thread).
pub fn without_atomics(body: &[Stm]) -> Vec<Stm> {
    body.iter()
        .map(|st| match st {
            Stm::AtomicAdd {
                elem,
                arr,
                idx,
                val,
                ..
            } => Stm::AtomicAdd {
                elem: *elem,
                arr: arr.clone(),
                idx: idx.clone(),
                val: val.clone(),
                atomic: false,
            },
            other => other.map_sequential_bodies(without_atomics),
        })
        .collect()
}

impl Stm {
    /// The statement with the bodies of its sequential loops and the branches of its
    /// conditional replaced by `f` of each (parallel loops and other statements cloned).
    pub fn map_sequential_bodies(&self, mut f: impl FnMut(&[Stm]) -> Vec<Stm>) -> Stm {
        match self {
            Stm::For {
                var,
                bound,
                down,
                body,
                independent,
                at,
            } => Stm::For {
                var: var.clone(),
                bound: bound.clone(),
                down: *down,
                body: f(body),
                independent: *independent,
                at: *at,
            },
            Stm::While { cond, body, at } => Stm::While {
                cond: cond.clone(),
                body: f(body),
                at: *at,
            },
            Stm::If { cond, then, els } => Stm::If {
                cond: cond.clone(),
                then: f(then),
                els: f(els),
            },
            other => other.clone(),
        }
    }
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stm {
    /// Declares a variable, with an initial value for scalars and pointers.
    Decl {
        /// The type.
        ty: Ty,
        /// The name.
        name: String,
        /// Initial value.
        init: Option<Ex>,
    },
    /// Assigns a scalar (or pointer) variable.
    Set {
        /// The variable.
        name: String,
        /// The value.
        val: Ex,
    },
    /// `arr[idx] = val`.
    Store {
        /// Element type.
        elem: PrimType,
        /// The array.
        arr: String,
        /// Flat offset.
        idx: Ex,
        /// The value.
        val: Ex,
    },
    /// `arr[idx] += val`, atomically when `atomic` (wrapping for integers, `or` for `bool`).
    AtomicAdd {
        /// Element type.
        elem: PrimType,
        /// The array.
        arr: String,
        /// Flat offset.
        idx: Ex,
        /// The value.
        val: Ex,
        /// Whether other iterations may add to the same element at the same time.
        atomic: bool,
    },
    /// A fresh block of `count` elements for array `arr` (one reference).
    Alloc {
        /// The array variable (declared).
        arr: String,
        /// Element type.
        elem: PrimType,
        /// Number of elements.
        count: Ex,
    },
    /// The block of the first of `srcs` that holds the only reference to its block (taken
    /// over: that array no longer refers to it) for array `arr`, otherwise a fresh block of
    /// `count` elements as [`Stm::Alloc`] gives. For a map writing element `i` of its output
    /// only after reading element `i` of inputs that die there (a loop's accumulator of
    /// lanes, made anew in every iteration, reuses its buffer instead of taking a new one).
    AllocOrTake {
        /// The array variable (declared).
        arr: String,
        /// Element type.
        elem: PrimType,
        /// Number of elements.
        count: Ex,
        /// The arrays whose block may be taken, in order of preference.
        srcs: Vec<String>,
    },
    /// `dst = src + offset` (elements), sharing the block as `share` says.
    SetArr {
        /// Destination array variable.
        dst: String,
        /// Source array variable.
        src: String,
        /// Offset in elements.
        offset: Ex,
        /// How the block is shared.
        share: Share,
    },
    /// Drops the variable's reference on its block (freeing it when it was the last).
    Decref(String),
    /// Makes the array's `count` elements exclusively owned, copying them when the block is
    /// shared or borrowed.
    MakeUnique {
        /// The array.
        arr: String,
        /// Element type.
        elem: PrimType,
        /// Number of elements.
        count: Ex,
        /// Whether a copy counts in `gradus_copied_bytes`, which measures updates that could
        /// not happen in place: not for the program's own `copy` (lowered as a move and this).
        counted: bool,
    },
    /// Copies `count` elements from `src[src_off..]` to `dst[dst_off..]` (no overlap).
    Copy {
        /// Element type.
        elem: PrimType,
        /// Destination array.
        dst: String,
        /// Destination offset.
        dst_off: Ex,
        /// Source array.
        src: String,
        /// Source offset.
        src_off: Ex,
        /// Number of elements.
        count: Ex,
    },
    /// `for (i = 0; i < bound; i++)`, sequential; with `down`, `for (i = bound - 1; i >= 0;
    /// i--)`.
    For {
        /// The counter (an `i64` declared by the loop).
        var: String,
        /// Number of iterations.
        bound: Ex,
        /// Whether the counter goes from `bound - 1` down to 0.
        down: bool,
        /// The body.
        body: Vec<Stm>,
        /// No iteration touches memory that another iteration writes (the lowering's
        /// `independent.rs` proves it): the C compiler may vectorise the loop without first
        /// checking at run time whether its arrays overlap.
        independent: bool,
        /// The source loop it was lowered from, if any (for messages about the loop).
        at: Option<Span>,
    },
    /// A parallel loop: iterations are independent. Runs on one thread, without atomic
    /// additions, when `work` (an estimate of the total work) is small or the call runs on
    /// one thread (the C runtime's `gr_par_pick`).
    ParFor {
        /// The counter.
        var: String,
        /// Number of iterations.
        bound: Ex,
        /// Estimated total work, for deciding whether to start threads.
        work: Ex,
        /// The body.
        body: Vec<Stm>,
        /// Accumulator arrays the body adds into that may be privatised: when they are small
        /// next to the work, each thread adds into its own zeroed copy (`private_body`, without
        /// atomics) and the copies are summed into the arrays in thread order afterwards.
        private: Vec<Private>,
        /// The body for the privatised variant (empty when `private` is).
        private_body: Vec<Stm>,
        /// Run on one thread, the loop is independent as a [`Stm::For`] can be: no
        /// iteration touches memory that another writes, additions included.
        independent: bool,
    },
    /// `while (cond)`.
    While {
        /// The condition, re-evaluated before each iteration.
        cond: Ex,
        /// The body.
        body: Vec<Stm>,
        /// The source loop it was lowered from, if any (for messages about the loop).
        at: Option<Span>,
    },
    /// `if (cond) then else els`.
    If {
        /// Condition.
        cond: Ex,
        /// Then branch.
        then: Vec<Stm>,
        /// Else branch.
        els: Vec<Stm>,
    },
    /// Fails the call with error site `site` and the values `args` when `cond` is false.
    Check {
        /// The condition that must hold.
        cond: Ex,
        /// Index into [`Program::sites`].
        site: usize,
        /// Values for the message.
        args: Vec<Ex>,
    },
    /// Partial results combined by groups of consecutive ones in a fixed tree order (see
    /// [`GroupTree`]).
    GroupTree(Box<GroupTree>),
    /// A comment in the output.
    Comment(String),
}

/// The partial results of a parallel reduction combined in groups (a GPU's work-groups in
/// local memory; see docs/gpu.md §Reductions and scans).
///
/// The `count` values of `parts` are split into groups of `size` consecutive ones (the last
/// may be shorter), and each group's values are combined by a tree in a fixed order: at
/// level `s = 1, 2, 4, ..`, the value at offset `i` of the group (`i` a multiple of `2s`)
/// becomes `op(v[i], v[i + s])` where `i + s` is in the group. The operator is applied to
/// consecutive runs in order (`v[i]` covers the run just before `v[i + s]`'s), so it needs
/// only to be associative, and the result depends on `count` and `size` only. Group `g`'s
/// result is left at element `g` of `out`. Printed as a kernel (one work-item per value,
/// one work-group per group, the tree in local memory) or, anywhere else, as [`GroupTree::host`].
#[derive(Clone, Debug, PartialEq)]
pub struct GroupTree {
    /// The number of values.
    pub count: Ex,
    /// The group size: on the host a variable equal to the macro
    /// `crate::backend::lower::GPU_GROUP_SIZE`, which kernels use directly.
    pub size: Ex,
    /// The values, one array per component of the operator (name and element type).
    pub parts: Vec<(String, PrimType)>,
    /// The groups' results, one array per component.
    pub out: Vec<(String, PrimType)>,
    /// The operator's left operands (scalars that whoever prints `op` declares).
    pub left: Vec<String>,
    /// The operator's right operands.
    pub right: Vec<String>,
    /// The operator: statements without checks, loops or arrays of their own that declare
    /// `res` and set it to the combination of `left` and `right`.
    pub op: Vec<Stm>,
    /// The combination, one scalar per component.
    pub res: Vec<String>,
    /// The same combinations in the same order, one after another: loops over `parts`
    /// (which they overwrite) that store each group's result in `out`. Analyses of the
    /// statement's uses read this.
    pub host: Vec<Stm>,
}

/// What a run-time error site reports; the message is built from the values the failing
/// check records, in the words of docs/language.md §Run-time errors.
#[derive(Clone, Debug, PartialEq)]
pub enum SiteKind {
    /// `division by zero`.
    DivZero,
    /// `Index [..] out of bounds for array of shape [..].`: per index entry whether it is a
    /// single position (one value) or a slice (start, count, stride); then the array's `rank`
    /// dimensions.
    Index {
        /// Per entry: `true` for a position, `false` for a slice.
        fixes: Vec<bool>,
        /// Rank of the indexed array.
        rank: usize,
    },
    /// `value of shape [..] cannot match shape of type "..".`: `actual` dimensions, then
    /// `required` dimensions (when `text` is empty) of element type `elem`.
    Size {
        /// Number of actual dimensions recorded.
        actual: usize,
        /// Number of required dimensions recorded.
        required: usize,
        /// Element type for the printed type.
        elem: PrimType,
        /// The required type as written in the source, if known.
        text: String,
    },
    /// A message template whose `{}` are filled with the recorded values of these types.
    Template {
        /// The template.
        template: String,
        /// Types of the recorded values.
        types: Vec<PrimType>,
    },
    /// `Range s..s+st..<s+n*st is invalid.` of a negative `iota` count: start, stride, count.
    IotaRange,
    /// `cannot allocate ...`: the number of bytes recorded.
    Alloc,
}

/// A run-time error site: what it reports and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// The kind of message.
    pub kind: SiteKind,
    /// `PATH:LINE:COL-LINE:COL` locations, innermost first.
    pub locations: Vec<String>,
}

/// How an entry-point result is handed back.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryResult {
    /// Element type.
    pub elem: PrimType,
    /// The value: a scalar expression or an array variable.
    pub value: Ex,
    /// Dimensions (empty for scalars).
    pub dims: Vec<Ex>,
}

/// An entry point, lowered.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// The source-level entry name.
    pub entry: String,
    /// The C function name.
    pub c_name: String,
    /// Inputs in order: size parameters (`i64`), then parameters; name and type
    /// (`Ty::Prim` or `Ty::Array`).
    pub inputs: Vec<(String, Ty)>,
    /// The dimensions of each input (none for a scalar), in the order of `inputs`.
    pub input_dims: Vec<Vec<Ex>>,
    /// The body.
    pub body: Vec<Stm>,
    /// The results, handed out (with a reference each) after the body.
    pub results: Vec<EntryResult>,
    /// Releases what the body's variables hold, after the results were handed out.
    pub cleanup: Vec<Stm>,
}

/// A lowered program.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Program {
    /// Entry points.
    pub functions: Vec<Function>,
    /// Error sites, indexed by [`Stm::Check::site`].
    pub sites: Vec<Site>,
    /// Whether parallel loops should run in parallel.
    pub parallel: bool,
}

// ---- printing -----------------------------------------------------------------------------

/// A constant as text: `3i64`, `1.5f64`, `true`.
pub fn const_text(c: Scalar) -> String {
    match c {
        Scalar::Bool(b) => b.to_string(),
        Scalar::F32(x) => format!("{x:?}f32"),
        Scalar::F64(x) => format!("{x:?}f64"),
        other => format!(
            "{}{}",
            other.as_i64().map_or_else(
                || format!("{other:?}"),
                |v| if matches!(other, Scalar::U64(_)) {
                    (v as u64).to_string()
                } else {
                    v.to_string()
                }
            ),
            other.prim_type()
        ),
    }
}

/// The expression as text (C-like).
pub fn show_ex(e: &Ex) -> String {
    match e {
        Ex::Var(v) => v.clone(),
        Ex::Const(c) => const_text(*c),
        Ex::Prim(op, args) => format!(
            "{op}({})",
            args.iter().map(show_ex).collect::<Vec<_>>().join(", ")
        ),
        Ex::Idx(op, a, b) => format!("({} {} {})", show_ex(a), op.c(), show_ex(b)),
        Ex::Load { arr, idx, .. } => format!("{arr}[{}]", show_ex(idx)),
        Ex::Not(a) => format!("!{}", show_ex(a)),
    }
}

fn show_stms(out: &mut String, stms: &[Stm], depth: usize) {
    let pad = "  ".repeat(depth);
    for s in stms {
        let _ = match s {
            Stm::Decl { ty, name, init } => {
                let t = match ty {
                    Ty::Prim(t) => t.name().to_string(),
                    Ty::Array(t) => format!("array {t}"),
                    Ty::Ptr(t) => format!("ptr {t}"),
                };
                match init {
                    Some(i) => writeln!(out, "{pad}decl {t} {name} = {}", show_ex(i)),
                    None => writeln!(out, "{pad}decl {t} {name}"),
                }
            }
            Stm::Set { name, val } => writeln!(out, "{pad}{name} = {}", show_ex(val)),
            Stm::Store { arr, idx, val, .. } => {
                writeln!(out, "{pad}{arr}[{}] = {}", show_ex(idx), show_ex(val))
            }
            Stm::AtomicAdd {
                arr,
                idx,
                val,
                atomic,
                ..
            } => writeln!(
                out,
                "{pad}{}{arr}[{}] += {}",
                if *atomic { "atomic " } else { "" },
                show_ex(idx),
                show_ex(val)
            ),
            Stm::Alloc { arr, elem, count } => {
                writeln!(out, "{pad}{arr} = alloc {elem}[{}]", show_ex(count))
            }
            Stm::AllocOrTake {
                arr,
                elem,
                count,
                srcs,
            } => writeln!(
                out,
                "{pad}{arr} = take {} or alloc {elem}[{}]",
                srcs.join(" or "),
                show_ex(count)
            ),
            Stm::SetArr {
                dst,
                src,
                offset,
                share,
            } => writeln!(
                out,
                "{pad}{dst} = {} {src} + {}",
                match share {
                    Share::Ref => "ref",
                    Share::Borrow => "borrow",
                    Share::Move => "move",
                },
                show_ex(offset)
            ),
            Stm::Decref(a) => writeln!(out, "{pad}decref {a}"),
            Stm::MakeUnique {
                arr,
                count,
                counted,
                ..
            } => {
                let how = if *counted { "" } else { " (a copy)" };
                writeln!(out, "{pad}make_unique {arr} [{}]{how}", show_ex(count))
            }
            Stm::Copy {
                dst,
                dst_off,
                src,
                src_off,
                count,
                ..
            } => writeln!(
                out,
                "{pad}copy {dst}[{}..] <- {src}[{}..] x {}",
                show_ex(dst_off),
                show_ex(src_off),
                show_ex(count)
            ),
            Stm::For {
                var,
                bound,
                down,
                body,
                independent,
                ..
            } => {
                let kind = if *independent { "independent " } else { "" };
                let dir = if *down { " downwards" } else { "" };
                let _ = writeln!(out, "{pad}{kind}for {var} < {}{dir} {{", show_ex(bound));
                show_stms(out, body, depth + 1);
                writeln!(out, "{pad}}}")
            }
            Stm::ParFor {
                var,
                bound,
                work,
                body,
                private,
                independent,
                ..
            } => {
                let privs: Vec<String> = private
                    .iter()
                    .map(|p| format!("{}[{}]", p.arr, show_ex(&p.count)))
                    .collect();
                let _ = writeln!(
                    out,
                    "{pad}parallel for {var} < {} (work {}{}{}) {{",
                    show_ex(bound),
                    show_ex(work),
                    if privs.is_empty() {
                        String::new()
                    } else {
                        format!("; privatisable {}", privs.join(", "))
                    },
                    if *independent {
                        "; independent on one thread"
                    } else {
                        ""
                    }
                );
                show_stms(out, body, depth + 1);
                writeln!(out, "{pad}}}")
            }
            Stm::GroupTree(t) => {
                let names = |v: &[(String, PrimType)]| {
                    v.iter()
                        .map(|(n, _)| n.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(
                    out,
                    "{pad}group tree ({}) <- ({}) x {} in groups of {} {{",
                    names(&t.out),
                    names(&t.parts),
                    show_ex(&t.count),
                    show_ex(&t.size)
                );
                show_stms(out, &t.host, depth + 1);
                writeln!(out, "{pad}}}")
            }
            Stm::While { cond, body, .. } => {
                let _ = writeln!(out, "{pad}while {} {{", show_ex(cond));
                show_stms(out, body, depth + 1);
                writeln!(out, "{pad}}}")
            }
            Stm::If { cond, then, els } => {
                let _ = writeln!(out, "{pad}if {} {{", show_ex(cond));
                show_stms(out, then, depth + 1);
                if !els.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    show_stms(out, els, depth + 1);
                }
                writeln!(out, "{pad}}}")
            }
            Stm::Check { cond, site, args } => writeln!(
                out,
                "{pad}check {} else error #{site}({})",
                show_ex(cond),
                args.iter().map(show_ex).collect::<Vec<_>>().join(", ")
            ),
            Stm::Comment(c) => writeln!(out, "{pad}-- {c}"),
        };
    }
}

/// The whole program as text (`gradus dev --stage lower`).
pub fn show_program(p: &Program) -> String {
    let mut out = String::new();
    for f in &p.functions {
        let ins: Vec<String> = f
            .inputs
            .iter()
            .map(|(n, t)| match t {
                Ty::Prim(t) => format!("{n}: {t}"),
                Ty::Array(t) | Ty::Ptr(t) => format!("{n}: array {t}"),
            })
            .collect();
        let _ = writeln!(out, "entry {} ({}) {{", f.entry, ins.join(", "));
        show_stms(&mut out, &f.body, 1);
        let res: Vec<String> = f
            .results
            .iter()
            .map(|r| {
                let dims: String = r.dims.iter().map(|d| format!("[{}]", show_ex(d))).collect();
                format!("{}: {dims}{}", show_ex(&r.value), r.elem)
            })
            .collect();
        let _ = writeln!(out, "  return {}", res.join(", "));
        show_stms(&mut out, &f.cleanup, 1);
        let _ = writeln!(out, "}}");
    }
    for (i, s) in p.sites.iter().enumerate() {
        let _ = writeln!(
            out,
            "-- error #{i}: {:?} at {}",
            s.kind,
            s.locations.join(", ")
        );
    }
    out
}
