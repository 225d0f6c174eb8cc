//! Tokens → statement AST (docs/reversible.md §The statement language). Rejections are collected as
//! spanned `syn::Error`s (several per body) and never panic. The static rules that need only one
//! statement at a time (GR002, GR009, GR012, GR013) are applied by `check.rs` as statements are
//! built; the scope rules (GR007, GR008) here, because they follow the scopes.

use crate::ast::*;
use crate::check;
use crate::diag::err;
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{BinOp, Block, Expr, Ident, Pat, Token, UnOp};

/// One entry of the name environment.
#[derive(Clone, Debug)]
struct Binding {
    name: Ident,
    kind: Kind,
    /// For ancillas: declared inside a routine body (released by its uncompute).
    in_routine: bool,
    /// For ancillas: the declaration, for the implicit release.
    decl: Option<(bool, Option<syn::Type>, Expr, Option<Expr>)>,
    released: bool,
}

/// The parser state: scopes and collected errors.
pub struct Parser_ {
    scopes: Vec<Vec<Binding>>,
    pub errors: Vec<syn::Error>,
    routine_depth: usize,
    /// Open routines: name and the ancillas they allocate (released by the uncompute).
    routines: Vec<(Option<String>, Vec<Ident>)>,
}

const BUILTIN1: &[(&str, &str)] = &[
    ("sqrt", "Sqrt"),
    ("cbrt", "Cbrt"),
    ("exp", "Exp"),
    ("exp2", "Exp2"),
    ("ln", "Ln"),
    ("log1p", "Log1p"),
    ("expm1", "Expm1"),
    ("sin", "Sin"),
    ("cos", "Cos"),
    ("tan", "Tan"),
    ("asin", "Asin"),
    ("acos", "Acos"),
    ("atan", "Atan"),
    ("sinh", "Sinh"),
    ("cosh", "Cosh"),
    ("tanh", "Tanh"),
    ("abs", "Abs"),
    ("square", "Square"),
    ("recip", "Recip"),
    ("arg", "Phase"),
    ("norm_sqr", "NormSqr"),
    ("real", "RealOf"),
    ("ulog", "ULogOf"),
];
const BUILTIN2: &[(&str, &str)] = &[
    ("atan2", "Atan2"),
    ("powf", "Powf"),
    ("powi", "Powi"),
    ("hypot", "Hypot"),
    ("min", "Min"),
    ("max", "Max"),
];

/// Looks up a built-in primitive: its marker name and arity.
pub fn builtin(name: &str) -> Option<(&'static str, usize)> {
    BUILTIN1
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, m)| (*m, 1))
        .or_else(|| {
            BUILTIN2
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, m)| (*m, 2))
        })
}

fn named_instr(name: &str) -> Option<(Named, usize)> {
    Some(match name {
        "SWAP" => (Named::Swap, 2),
        "NEG" => (Named::Neg, 1),
        "INC" => (Named::Inc, 1),
        "DEC" => (Named::Dec, 1),
        "FLIP" => (Named::Flip, 1),
        "CONJ" => (Named::Conj, 1),
        "ROT" => (Named::Rot, 3),
        "IROT" => (Named::Irot, 3),
        _ => return None,
    })
}

/// Replaces reference parameters `x` by `(*x)` inside an ordinary expression.
struct Deref<'a>(&'a Parser_);
impl VisitMut for Deref<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Path(p) = e
            && p.qself.is_none()
            && let Some(id) = p.path.get_ident()
            && let Some(b) = self.0.lookup(id)
            && matches!(b.kind, Kind::State | Kind::ConstRef)
        {
            let id = id.clone();
            *e = syn::parse_quote_spanned!(id.span()=> (*#id));
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

impl Parser_ {
    /// A parser whose outermost scope holds the parameters.
    pub fn new(params: Vec<(Ident, Kind)>) -> Self {
        Parser_ {
            scopes: vec![
                params
                    .into_iter()
                    .map(|(name, kind)| Binding {
                        name,
                        kind,
                        in_routine: false,
                        decl: None,
                        released: false,
                    })
                    .collect(),
            ],
            errors: Vec::new(),
            routine_depth: 0,
            routines: Vec::new(),
        }
    }

    fn lookup(&self, id: &Ident) -> Option<&Binding> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|b| b.name == *id && !b.released)
    }

    fn error(&mut self, e: syn::Error) {
        self.errors.push(e);
    }

    /// Rewrites an ordinary expression (condition, index, initialiser).
    pub fn expr(&self, mut e: Expr) -> Expr {
        Deref(self).visit_expr_mut(&mut e);
        e
    }

    /// Parses a whole body (a block with its own scope).
    pub fn body(&mut self, block: &Block) -> Vec<Stmt> {
        self.scoped(&block.stmts, &[])
    }

    /// Parses statements in a new scope, binding `extra` (loop variables) first.
    fn scoped(&mut self, stmts: &[syn::Stmt], extra: &[(Ident, Kind)]) -> Vec<Stmt> {
        self.scopes.push(
            extra
                .iter()
                .map(|(name, kind)| Binding {
                    name: name.clone(),
                    kind: *kind,
                    in_routine: false,
                    decl: None,
                    released: false,
                })
                .collect(),
        );
        // A nested scope owns its ancillas even inside a routine: only `let`s directly in a
        // routine's statement list are released by the routine's uncompute.
        let depth = std::mem::replace(&mut self.routine_depth, 0);
        let mut out = self.stmts(stmts);
        self.routine_depth = depth;
        pair_routines(&mut out, &mut self.errors);
        // Implicit releases: every ancilla of this scope that is still live, in reverse order
        // of allocation (docs/reversible.md §Ancillas).
        let scope = self.scopes.pop().unwrap_or_default();
        for b in scope.iter().rev() {
            if matches!(b.kind, Kind::Ancilla | Kind::ImmLet)
                && !b.released
                && !b.in_routine
                && let Some((mutable, ty, init, atol)) = &b.decl
            {
                out.push(Stmt::Release {
                    name: b.name.clone(),
                    mutable: *mutable,
                    ty: ty.clone(),
                    expr: init.clone(),
                    atol: atol.clone(),
                    span: b.name.span(),
                });
            }
        }
        out
    }

    fn stmts(&mut self, stmts: &[syn::Stmt]) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in stmts {
            match self.stmt(s) {
                Ok(Some(st)) => out.push(st),
                Ok(None) => {}
                Err(e) => self.error(e),
            }
        }
        out
    }

    fn stmt(&mut self, s: &syn::Stmt) -> syn::Result<Option<Stmt>> {
        match s {
            syn::Stmt::Local(l) => self.local(l).map(Some),
            syn::Stmt::Macro(m) => self.mac(&m.mac).map(Some),
            syn::Stmt::Expr(e, _) => self.expr_stmt(e).map(Some),
            syn::Stmt::Item(i) => Err(err(
                i.span(),
                "GR003",
                "items are not statements of the reversible language; define them outside the function",
            )),
        }
    }

    fn local(&mut self, l: &syn::Local) -> syn::Result<Stmt> {
        let (pat, ty) = match &l.pat {
            Pat::Type(pt) => (&*pt.pat, Some((*pt.ty).clone())),
            p => (p, None),
        };
        let Pat::Ident(pi) = pat else {
            return Err(err(
                l.pat.span(),
                "GR003",
                "`let` binds a single identifier in the reversible language (no patterns)",
            ));
        };
        if pi.by_ref.is_some() || pi.subpat.is_some() {
            return Err(err(pi.span(), "GR003", "`let` binds a single identifier"));
        }
        let Some(init) = &l.init else {
            return Err(err(
                l.span(),
                "GR003",
                "an ancilla needs an initial value: `let mut x = T::zero();`",
            ));
        };
        if init.diverge.is_some() {
            return Err(err(l.span(), "GR003", "`let … else` is not reversible"));
        }
        let name = pi.ident.clone();
        if self.lookup(&name).is_some() {
            return Err(err(
                name.span(),
                "GR008",
                &format!(
                    "`{name}` shadows a name already in scope; the inverse could not tell them apart, choose a new name"
                ),
            ));
        }
        let mutable = pi.mutability.is_some();
        let init = self.expr((*init.expr).clone());
        let kind = if mutable { Kind::Ancilla } else { Kind::ImmLet };
        let in_routine = self.routine_depth > 0;
        if let Some(scope) = self.scopes.last_mut() {
            scope.push(Binding {
                name: name.clone(),
                kind,
                in_routine,
                decl: Some((mutable, ty.clone(), init.clone(), None)),
                released: false,
            });
        }
        Ok(Stmt::Let {
            span: l.span(),
            name,
            mutable,
            ty,
            init,
            atol: None,
        })
    }

    fn mac(&mut self, m: &syn::Macro) -> syn::Result<Stmt> {
        let name = m
            .path
            .get_ident()
            .map(|i| i.to_string())
            .unwrap_or_default();
        let span = m.span();
        match name.as_str() {
            "inv" if matches!(m.delimiter, syn::MacroDelimiter::Brace(_)) => {
                let stmts = m.parse_body_with(Block::parse_within)?;
                let body = self.scoped(&stmts, &[]);
                Ok(Stmt::Block {
                    body,
                    inverted: true,
                    unchecked: false,
                })
            }
            "inv" => {
                let e: Expr = m.parse_body()?;
                match e {
                    Expr::Call(c) => {
                        let mut st = self.call(&c)?;
                        if let Stmt::Call { inverse, .. } = &mut st {
                            *inverse = true;
                        }
                        Ok(st)
                    }
                    Expr::Block(b) => {
                        let body = self.scoped(&b.block.stmts, &[]);
                        Ok(Stmt::Block {
                            body,
                            inverted: true,
                            unchecked: false,
                        })
                    }
                    other => Err(err(
                        other.span(),
                        "GR003",
                        "`inv!` takes a call of a reversible function, `inv!(g(x))`, or a block, `inv! { … }`",
                    )),
                }
            }
            "routine" => {
                let (rname, stmts) = m.parse_body_with(|input: ParseStream| {
                    if input.peek(Ident) && input.peek2(Token![=>]) {
                        let n: Ident = input.parse()?;
                        input.parse::<Token![=>]>()?;
                        let content;
                        syn::braced!(content in input);
                        let stmts = content.call(Block::parse_within)?;
                        Ok((Some(n), stmts))
                    } else {
                        Ok((None, input.call(Block::parse_within)?))
                    }
                })?;
                let before = self.scopes.last().map_or(0, Vec::len);
                self.routine_depth += 1;
                let body = self.stmts(&stmts);
                self.routine_depth -= 1;
                let names = self
                    .scopes
                    .last()
                    .map(|s| {
                        s[before.min(s.len())..]
                            .iter()
                            .map(|b| b.name.clone())
                            .collect()
                    })
                    .unwrap_or_default();
                self.routines
                    .push((rname.as_ref().map(|n| n.to_string()), names));
                Ok(Stmt::Routine {
                    name: rname,
                    body,
                    span,
                })
            }
            "unroutine" => {
                let rname: Option<Ident> = m.parse_body_with(|input: ParseStream| {
                    if input.is_empty() {
                        Ok(None)
                    } else {
                        input.parse().map(Some)
                    }
                })?;
                let key = rname.as_ref().map(|n| n.to_string());
                if let Some(pos) = self.routines.iter().rposition(|(k, _)| *k == key) {
                    let (_, names) = self.routines.remove(pos);
                    if let Some(scope) = self.scopes.last_mut() {
                        for b in scope.iter_mut().filter(|b| names.contains(&b.name)) {
                            b.released = true;
                        }
                    }
                }
                Ok(Stmt::Unroutine {
                    name: rname,
                    body: Vec::new(),
                    span,
                })
            }
            "release" => {
                let (id, e, atol) = m.parse_body_with(|input: ParseStream| {
                    let id: Ident = input.parse()?;
                    input.parse::<Token![,]>()?;
                    let e: Expr = input.parse()?;
                    let mut atol = None;
                    if input.peek(Token![,]) {
                        input.parse::<Token![,]>()?;
                        let k: Ident = input.parse()?;
                        if k != "atol" {
                            return Err(syn::Error::new(k.span(), "expected `atol = …`"));
                        }
                        input.parse::<Token![=]>()?;
                        atol = Some(input.parse::<Expr>()?);
                    }
                    Ok((id, e, atol))
                })?;
                self.release(id, e, atol, span)
            }
            "safe" => Ok(Stmt::Safe {
                tokens: m.tokens.clone(),
                span,
            }),
            "unchecked" => {
                let stmts = m.parse_body_with(Block::parse_within)?;
                let body = self.scoped(&stmts, &[]);
                Ok(Stmt::Block {
                    body,
                    inverted: false,
                    unchecked: true,
                })
            }
            "constant" => Err(err(
                span,
                "GR003",
                "`constant!` is an argument, not a statement",
            )),
            _ => Err(err(
                span,
                "GR003",
                &format!(
                    "the macro `{}!` is not a statement of the reversible language; ordinary Rust that changes no state (logging, assertions) goes inside `safe! {{ … }}`",
                    m.path.to_token_stream()
                ),
            )),
        }
    }

    fn release(&mut self, id: Ident, e: Expr, atol: Option<Expr>, span: Span) -> syn::Result<Stmt> {
        let e = self.expr(e);
        let depth = self.scopes.len();
        // Find the binding: it must be an ancilla of the current scope.
        let mut found = None;
        for (si, scope) in self.scopes.iter().enumerate().rev() {
            if let Some(bi) = scope.iter().rposition(|b| b.name == id) {
                found = Some((si, bi));
                break;
            }
        }
        let Some((si, bi)) = found else {
            return Err(err(
                id.span(),
                "GR008",
                &format!(
                    "`{id}` is not an ancilla of this function; only `let` variables can be released"
                ),
            ));
        };
        let b = &self.scopes[si][bi];
        if !matches!(b.kind, Kind::Ancilla | Kind::ImmLet) {
            return Err(err(
                id.span(),
                "GR008",
                &format!(
                    "`{id}` is not an ancilla (it is {}); only `let` variables can be released",
                    b.kind.describe()
                ),
            ));
        }
        if b.released {
            return Err(err(
                id.span(),
                "GR008",
                &format!("`{id}` is released twice"),
            ));
        }
        if si + 1 != depth {
            return Err(err(
                id.span(),
                "GR008",
                &format!("`{id}` is released in a different block than the one that allocated it"),
            ));
        }
        let (mutable, ty, _, _) = b.decl.clone().unwrap_or((true, None, e.clone(), None));
        self.scopes[si][bi].released = true;
        Ok(Stmt::Release {
            name: id,
            mutable,
            ty,
            expr: e,
            atol,
            span,
        })
    }

    fn expr_stmt(&mut self, e: &Expr) -> syn::Result<Stmt> {
        let span = e.span();
        match e {
            Expr::Binary(b) => {
                let op = match b.op {
                    BinOp::AddAssign(_) => AccOp::Add,
                    BinOp::SubAssign(_) => AccOp::Sub,
                    BinOp::BitXorAssign(_) => AccOp::Xor,
                    BinOp::MulAssign(_) => AccOp::Mul,
                    BinOp::DivAssign(_) => AccOp::Div,
                    BinOp::RemAssign(_)
                    | BinOp::ShlAssign(_)
                    | BinOp::ShrAssign(_)
                    | BinOp::BitAndAssign(_)
                    | BinOp::BitOrAssign(_) => {
                        return Err(err(
                            b.op.span(),
                            "GR001",
                            &format!(
                                "`{}` destroys the old value; accumulate into a zeroed variable with `+=`, or exchange with `SWAP`",
                                b.op.to_token_stream()
                            ),
                        ));
                    }
                    _ => {
                        return Err(err(
                            span,
                            "GR003",
                            "an expression is not a statement of the reversible language",
                        ));
                    }
                };
                let target = self.place(&b.left)?;
                let rhs = self.rhs(&b.right)?;
                let st = Stmt::Acc {
                    target,
                    op,
                    rhs,
                    span,
                };
                check::statement(&st, &mut self.errors);
                Ok(st)
            }
            Expr::Assign(a) => Err(err(
                a.eq_token.span(),
                "GR001",
                "assignment destroys the old value; accumulate into a zeroed variable with `+=`, or exchange with `SWAP`",
            )),
            Expr::Call(c) => {
                let st = self.call(c)?;
                check::statement(&st, &mut self.errors);
                Ok(st)
            }
            Expr::Macro(m) => self.mac(&m.mac),
            Expr::Block(b) if b.label.is_none() => {
                let body = self.scoped(&b.block.stmts, &[]);
                Ok(Stmt::Block {
                    body,
                    inverted: false,
                    unchecked: false,
                })
            }
            Expr::If(i) => self.if_stmt(i),
            Expr::While(w) => {
                let Expr::Tuple(t) = &*w.cond else {
                    return Err(err(
                        w.cond.span(),
                        "GR003",
                        "a reversible `while` needs a pre- and a post-condition: `while (pre, post) { … }`, where `post` is false on entry and true after every iteration",
                    ));
                };
                if t.elems.len() != 2 {
                    return Err(err(
                        t.span(),
                        "GR003",
                        "`while (pre, post)` takes exactly two conditions",
                    ));
                }
                let pre = self.expr(t.elems[0].clone());
                let post = self.expr(t.elems[1].clone());
                let body = self.scoped(&w.body.stmts, &[]);
                let st = Stmt::While {
                    pre,
                    post,
                    body,
                    span,
                };
                Ok(st)
            }
            Expr::ForLoop(f) => self.for_stmt(f),
            Expr::Return(_) => Err(err(
                span,
                "GR003",
                "`return` is not reversible: the inverse would not know where to start",
            )),
            Expr::Break(_) => Err(err(
                span,
                "GR003",
                "`break` is not reversible; use `while (pre, post)`",
            )),
            Expr::Continue(_) => Err(err(span, "GR003", "`continue` is not reversible; use `if`")),
            Expr::Loop(_) => Err(err(
                span,
                "GR003",
                "`loop` is not reversible; use `while (pre, post)`",
            )),
            Expr::Match(_) => Err(err(
                span,
                "GR003",
                "`match` is not a statement of the reversible language; use an `if` chain",
            )),
            Expr::Closure(_) => Err(err(
                span,
                "GR003",
                "closures are not statements of the reversible language",
            )),
            Expr::Try(_) => Err(err(
                span,
                "GR003",
                "`?` is not a statement of the reversible language; calls propagate errors already",
            )),
            Expr::Unsafe(_) => Err(err(
                span,
                "GR003",
                "`unsafe` blocks are not statements of the reversible language",
            )),
            Expr::MethodCall(_) => Err(err(
                span,
                "GR003",
                "method-call statements are not reversible; ordinary Rust that changes no state goes inside `safe! { … }`",
            )),
            _ => Err(err(
                span,
                "GR003",
                "this expression is not a statement of the reversible language",
            )),
        }
    }

    fn if_stmt(&mut self, i: &syn::ExprIf) -> syn::Result<Stmt> {
        let span = i.if_token.span();
        let mut arms = Vec::new();
        let mut cur = i;
        let els;
        loop {
            let (pre, post, short) = match &*cur.cond {
                Expr::Tuple(t) if t.elems.len() == 2 => {
                    (t.elems[0].clone(), t.elems[1].clone(), false)
                }
                c => (c.clone(), c.clone(), true),
            };
            let pre = self.expr(pre);
            let post = self.expr(post);
            let body = self.scoped(&cur.then_branch.stmts, &[]);
            if short {
                check::short_if(&pre, &body, &mut self.errors);
            }
            arms.push(IfArm { pre, post, body });
            match &cur.else_branch {
                None => {
                    els = Vec::new();
                    break;
                }
                Some((_, e)) => match &**e {
                    Expr::If(next) => cur = next,
                    Expr::Block(b) => {
                        els = self.scoped(&b.block.stmts, &[]);
                        break;
                    }
                    other => return Err(err(other.span(), "GR003", "unexpected `else` form")),
                },
            }
        }
        Ok(Stmt::If { arms, els, span })
    }

    fn for_stmt(&mut self, f: &syn::ExprForLoop) -> syn::Result<Stmt> {
        let span = f.for_token.span();
        let var = match &*f.pat {
            Pat::Ident(pi)
                if pi.mutability.is_none() && pi.by_ref.is_none() && pi.subpat.is_none() =>
            {
                Some(pi.ident.clone())
            }
            Pat::Wild(_) => None,
            p => {
                return Err(err(
                    p.span(),
                    "GR006",
                    "a reversible `for` binds an immutable identifier or `_` (`for mut i` would let the body change the index)",
                ));
            }
        };
        if let Some(v) = &var
            && self.lookup(v).is_some()
        {
            return Err(err(
                v.span(),
                "GR008",
                &format!("`{v}` shadows a name already in scope"),
            ));
        }
        let range = self.range(&f.expr)?;
        let extra: Vec<(Ident, Kind)> = var.iter().map(|v| (v.clone(), Kind::LoopVar)).collect();
        let body = self.scoped(&f.body.stmts, &extra);
        check::loop_bounds(&range, &body, &mut self.errors);
        Ok(Stmt::For {
            var,
            range,
            reversed: false,
            body,
            span,
        })
    }

    fn range(&mut self, e: &Expr) -> syn::Result<Range> {
        const FORMS: &str = "a reversible `for` runs over an integer range: `a..b`, `a..=b`, `(a..b).rev()` or `(a..b).step_by(s)`";
        let plain = |p: &Parser_, e: &Expr| -> Option<(Expr, Expr, bool)> {
            let e = match e {
                Expr::Paren(p) => &*p.expr,
                e => e,
            };
            if let Expr::Range(r) = e {
                let (Some(lo), Some(hi)) = (&r.start, &r.end) else {
                    return None;
                };
                let incl = matches!(r.limits, syn::RangeLimits::Closed(_));
                return Some((p.expr((**lo).clone()), p.expr((**hi).clone()), incl));
            }
            None
        };
        if let Some((lo, hi, incl)) = plain(self, e) {
            return Ok(Range {
                form: if incl {
                    RangeForm::Incl
                } else {
                    RangeForm::Excl
                },
                lo,
                hi,
                step: None,
            });
        }
        if let Expr::MethodCall(m) = e
            && let Some((lo, hi, false)) = plain(self, &m.receiver)
        {
            if m.method == "rev" && m.args.is_empty() {
                return Ok(Range {
                    form: RangeForm::Rev,
                    lo,
                    hi,
                    step: None,
                });
            }
            if m.method == "step_by" && m.args.len() == 1 {
                return Ok(Range {
                    form: RangeForm::Step,
                    lo,
                    hi,
                    step: Some(self.expr(m.args[0].clone())),
                });
            }
        }
        Err(err(e.span(), "GR006", FORMS))
    }

    fn call(&mut self, c: &syn::ExprCall) -> syn::Result<Stmt> {
        let span = c.span();
        let Expr::Path(func) = &*c.func else {
            return Err(err(
                c.func.span(),
                "GR003",
                "only named functions can be called",
            ));
        };
        if let Some(id) = func.path.get_ident()
            && let Some((name, arity)) = named_instr(&id.to_string())
        {
            if c.args.len() != arity {
                return Err(err(
                    span,
                    "GR003",
                    &format!("`{id}` takes {arity} argument(s)"),
                ));
            }
            let args = c
                .args
                .iter()
                .map(|a| self.operand(a, false))
                .collect::<syn::Result<Vec<_>>>()?;
            return Ok(Stmt::Named { name, args, span });
        }
        let args = c
            .args
            .iter()
            .map(|a| self.operand(a, true))
            .collect::<syn::Result<Vec<_>>>()?;
        Ok(Stmt::Call {
            func: func.clone(),
            args,
            inverse: false,
            span,
        })
    }

    fn rhs(&mut self, e: &Expr) -> syn::Result<Rhs> {
        match e {
            Expr::Paren(p) => self.rhs(&p.expr),
            Expr::Binary(b) => {
                let k = match b.op {
                    BinOp::Add(_) => BinKind::Add,
                    BinOp::Sub(_) => BinKind::Sub,
                    BinOp::Mul(_) => BinKind::Mul,
                    BinOp::Div(_) => BinKind::Div,
                    _ => {
                        return Err(err(
                            b.op.span(),
                            "GR005",
                            "only `+ - * /` combine two arguments of an instruction; other expressions go inside `constant!(…)` when they are constants",
                        ));
                    }
                };
                let l = self.leaf(&b.left)?;
                let r = self.leaf(&b.right)?;
                Ok(Rhs::Bin(k, l, r))
            }
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return Err(err(
                        c.func.span(),
                        "GR005",
                        "the callee of a primitive must be a name",
                    ));
                };
                let callee = match p
                    .path
                    .get_ident()
                    .and_then(|i| builtin(&i.to_string()).map(|b| (i, b)))
                {
                    Some((id, (marker, arity))) => {
                        if c.args.len() != arity {
                            return Err(err(
                                c.span(),
                                "GR003",
                                &format!("`{id}` takes {arity} argument(s)"),
                            ));
                        }
                        Callee::Builtin(id.clone(), marker)
                    }
                    None => Callee::User(p.path.clone()),
                };
                let args = c
                    .args
                    .iter()
                    .map(|a| self.leaf(a))
                    .collect::<syn::Result<Vec<_>>>()?;
                if args.is_empty() || args.len() > 2 {
                    return Err(err(
                        c.span(),
                        "GR003",
                        "a primitive takes one or two arguments",
                    ));
                }
                Ok(Rhs::Prim(callee, args))
            }
            e => Ok(Rhs::One(self.operand(e, false)?)),
        }
    }

    /// An argument inside a binary operation or primitive call: nesting is GR004.
    fn leaf(&mut self, e: &Expr) -> syn::Result<Operand> {
        let inner = match e {
            Expr::Paren(p) => &*p.expr,
            e => e,
        };
        if matches!(inner, Expr::Binary(_) | Expr::Call(_) | Expr::MethodCall(_)) {
            return Err(err(
                e.span(),
                "GR004",
                &format!(
                    "nested right-hand sides are not instructions; compute `{}` into an ancilla inside a routine first: `routine! {{ let mut t = T::zero(); t += …; }} y += f(t); unroutine!();`",
                    inner.to_token_stream()
                ),
            ));
        }
        self.operand(e, false)
    }

    fn operand(&mut self, e: &Expr, in_call: bool) -> syn::Result<Operand> {
        match e {
            Expr::Paren(p) => self.operand(&p.expr, in_call),
            Expr::Lit(_) => Ok(Operand::Lit(e.clone())),
            Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) && matches!(&*u.expr, Expr::Lit(_)) => {
                Ok(Operand::Lit(e.clone()))
            }
            Expr::Macro(m) if m.mac.path.is_ident("constant") => {
                let inner: Expr = m.mac.parse_body()?;
                Ok(Operand::Const(self.expr(inner)))
            }
            Expr::Reference(r) if in_call && r.mutability.is_none() => {
                Ok(Operand::Ref(self.place(&r.expr)?))
            }
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) if self.lookup(id).is_some() => Ok(Operand::Place(self.place(e)?)),
                _ => Ok(Operand::Const(e.clone())),
            },
            Expr::Field(_) | Expr::Index(_) | Expr::Unary(_) => Ok(Operand::Place(self.place(e)?)),
            _ => Err(err(
                e.span(),
                "GR005",
                "this expression would be treated as a constant and get no gradient; wrap it in `constant!(…)` if that is intended",
            )),
        }
    }

    fn place(&mut self, e: &Expr) -> syn::Result<Place> {
        match e {
            Expr::Paren(p) => self.place(&p.expr),
            Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let id = p
                    .path
                    .get_ident()
                    .cloned()
                    .unwrap_or_else(|| Ident::new("_", e.span()));
                let kind = match self.lookup(&id) {
                    Some(b) => b.kind,
                    None => {
                        return Err(err(
                            id.span(),
                            "GR009",
                            &format!(
                                "`{id}` is not a parameter, ancilla or loop variable of this function"
                            ),
                        ));
                    }
                };
                Ok(Place {
                    root: id,
                    kind,
                    projs: Vec::new(),
                    span: e.span(),
                })
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => {
                let p = self.place(&u.expr)?;
                if !p.projs.is_empty() {
                    return Err(err(
                        e.span(),
                        "GR005",
                        "dereference only the root of a place: `*x`",
                    ));
                }
                Ok(Place {
                    span: e.span(),
                    ..p
                })
            }
            Expr::Field(f) => {
                let mut p = self.place(&f.base)?;
                p.projs.push(Proj::Field(f.member.clone()));
                p.span = e.span();
                Ok(p)
            }
            Expr::Index(i) => {
                let mut p = self.place(&i.expr)?;
                p.projs.push(Proj::Index(self.expr((*i.index).clone())));
                p.span = e.span();
                Ok(p)
            }
            _ => Err(err(
                e.span(),
                "GR005",
                "expected a place (`x`, `*x`, `x.f`, `x[i]`); other expressions would be treated as constants and get no gradient: wrap them in `constant!(…)` if that is intended",
            )),
        }
    }
}

/// Pairs `routine!` with `unroutine!` in one statement list (LIFO for unnamed ones, by name
/// for named ones) and copies each routine's body into its `unroutine!` (GR007).
fn pair_routines(stmts: &mut [Stmt], errors: &mut Vec<syn::Error>) {
    let mut open: Vec<(Option<String>, usize, Span)> = Vec::new();
    for i in 0..stmts.len() {
        match &stmts[i] {
            Stmt::Routine { name, span, .. } => {
                open.push((name.as_ref().map(|n| n.to_string()), i, *span));
            }
            Stmt::Unroutine { name, span, .. } => {
                let key = name.as_ref().map(|n| n.to_string());
                let pos = match &key {
                    None => open.iter().rposition(|(k, _, _)| k.is_none()),
                    Some(k) => open.iter().rposition(|(k2, _, _)| k2.as_deref() == Some(k)),
                };
                match pos {
                    Some(p) => {
                        let (_, ri, _) = open.remove(p);
                        if let Stmt::Routine { body, .. } = &stmts[ri] {
                            let body = body.clone();
                            if let Stmt::Unroutine { body: ub, .. } = &mut stmts[i] {
                                *ub = body;
                            }
                        }
                    }
                    None => errors.push(err(
                        *span,
                        "GR007",
                        &match key {
                            Some(k) => format!("`unroutine!({k})` has no matching `routine!({k} => {{ … }})` in this block"),
                            None => "`unroutine!()` has no matching `routine! { … }` in this block".to_string(),
                        },
                    )),
                }
            }
            _ => {}
        }
    }
    for (k, _, span) in open {
        errors.push(err(
            span,
            "GR007",
            &match k {
                Some(k) => format!(
                    "`routine!({k} => …)` is never uncomputed: add `unroutine!({k});` in this block"
                ),
                None => {
                    "this `routine!` is never uncomputed: add `unroutine!();` later in this block"
                        .to_string()
                }
            },
        ));
    }
}

/// All identifiers mentioned in a token stream.
pub fn idents(ts: TokenStream, out: &mut Vec<String>) {
    for t in ts {
        match t {
            TokenTree::Ident(i) => out.push(i.to_string()),
            TokenTree::Group(g) => idents(g.stream(), out),
            _ => {}
        }
    }
}

/// Parses the parameters of `#[reversible(…)]`.
#[derive(Default)]
pub struct Attr {
    pub loss: Option<Ident>,
    pub scalar: Option<Ident>,
    pub checks: bool,
    pub atol: Option<Expr>,
}

impl Attr {
    /// Parses `loss = x, scalar = T, checks = off, atol = 1e-6`.
    pub fn parse(ts: TokenStream) -> syn::Result<Attr> {
        let mut a = Attr {
            checks: true,
            ..Attr::default()
        };
        let p = syn::meta::parser(|meta| {
            if meta.path.is_ident("loss") {
                a.loss = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("scalar") {
                a.scalar = Some(meta.value()?.parse()?);
            } else if meta.path.is_ident("checks") {
                let v: Ident = meta.value()?.parse()?;
                a.checks = match v.to_string().as_str() {
                    "off" => false,
                    "on" => true,
                    _ => {
                        return Err(syn::Error::new(
                            v.span(),
                            "GR010: `checks = on` or `checks = off`",
                        ));
                    }
                };
            } else if meta.path.is_ident("atol") {
                a.atol = Some(meta.value()?.parse()?);
            } else {
                return Err(meta.error(
                    "GR010: unknown argument; expected `loss = …`, `scalar = …`, `checks = off` or `atol = …`",
                ));
            }
            Ok(())
        });
        p.parse2(ts)?;
        Ok(a)
    }
}
