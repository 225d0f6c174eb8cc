//! Statement AST → Rust tokens (docs/reversible.md §The statement language, §The inverse,
//! §Invertibility errors). The same function lowers the forward body and the (already inverted)
//! inverse body; only the `Direction` in error values differs.
//!
//! Contract: generated code is plain safe Rust. Instructions become calls of `#[inline]` trait
//! methods of `gradus_rev` on `&mut` places; reads from the same container as another argument
//! of the statement go through copy-in/copy-out after a run-time address comparison
//! (`Aliasing`), which is always on. Checks (release, branch, loop) are emitted only when the
//! function and the enclosing `unchecked!` allow them, and are guarded by
//! `gradus_rev::CHECKS` so the `unchecked` feature removes them.
//!
//! Uncomputation that nothing can observe is skipped: the uncompute of a routine whose
//! statements write only ancillas allocated inside it is dead once no release check reads
//! those ancillas (checks off) and the scalar carries no gradient (plain numbers, not
//! `GVar`, whose backward sweep needs the uncompute to carry gradients back to the inputs).
//! NiLang leaves this to the optimiser, which cannot delete loops that may panic on a bounds
//! check; the macro knows the statements are dead and says so.

use crate::ast::*;
use crate::invert::invert_body;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use std::cell::Cell;
use syn::{Expr, Ident};

/// Lowering context.
pub struct Ctx {
    pub fn_name: String,
    pub inverse: bool,
    pub atol: TokenStream,
    /// The scalar type parameter, when the function has one.
    pub scalar: Option<Ident>,
    /// Roots of every writable place of the function (state and ancillas).
    writable: Vec<Ident>,
    /// Inside a routine whose instructions may run on values only.
    values_only: Cell<bool>,
    counter: Cell<usize>,
}

impl Ctx {
    /// A context for one generated function.
    pub fn new(
        fn_name: String,
        inverse: bool,
        atol: TokenStream,
        scalar: Option<Ident>,
        body: &[Stmt],
        state: &[Ident],
    ) -> Self {
        let mut writable = state.to_vec();
        writable_roots(body, &mut writable);
        Ctx {
            fn_name,
            inverse,
            atol,
            scalar,
            writable,
            values_only: Cell::new(false),
            counter: Cell::new(0),
        }
    }

    fn fresh(&self, hint: &str) -> Ident {
        let n = self.counter.get();
        self.counter.set(n + 1);
        format_ident!("__gr_{}{}", hint, n, span = Span::mixed_site())
    }

    /// `return Err(InvertibilityError::new(kind, …))` located at `span`.
    fn fail(&self, span: Span, kind: TokenStream) -> TokenStream {
        let name = &self.fn_name;
        let dir = if self.inverse {
            quote!(Inverse)
        } else {
            quote!(Forward)
        };
        let loc = quote_spanned!(span=> ::core::file!(), ::core::line!(), ::core::column!());
        quote! {
            return ::core::result::Result::Err(::gradus_rev::__rt::InvertibilityError::new(
                #kind, #name, ::gradus_rev::__rt::Direction::#dir, #loc,
            ))
        }
    }

    /// Lowers a statement list.
    pub fn body(&self, body: &[Stmt], checks: bool) -> TokenStream {
        body.iter().map(|s| self.stmt(s, checks)).collect()
    }

    fn stmt(&self, st: &Stmt, checks: bool) -> TokenStream {
        match st {
            Stmt::Acc {
                target,
                op,
                rhs,
                span,
            } => self.acc(target, *op, rhs, *span),
            Stmt::Named { name, args, span } => self.named(*name, args, *span),
            Stmt::Call {
                func,
                args,
                inverse,
                span,
            } => self.call(func, args, *inverse, *span),
            Stmt::Let {
                name,
                mutable,
                ty,
                init,
                ..
            } => {
                let m = mutable.then(|| quote!(mut));
                let ty = ty.as_ref().map(|t| quote!(: #t));
                quote! { #[allow(unused_mut)] let #m #name #ty = #init; }
            }
            Stmt::Release {
                name,
                expr,
                atol,
                span,
                ..
            } => {
                if !checks {
                    return quote! { let _ = &#name; };
                }
                let e = self.fresh("expected");
                let atol = atol
                    .as_ref()
                    .map(|a| quote!(#a))
                    .unwrap_or(self.atol.clone());
                let sname = name.to_string();
                let fail = self.fail(
                    *span,
                    quote!(::gradus_rev::__rt::release_error(#sname, &#name, &#e, #atol)),
                );
                quote! {
                    if ::gradus_rev::__rt::CHECKS {
                        let #e = #expr;
                        if !::gradus_rev::__rt::release_ok(&#name, &#e, #atol) {
                            #fail;
                        }
                    }
                }
            }
            Stmt::Routine { body, .. } => {
                // The compute pass of a routine that writes only its own ancillas starts
                // with their gradients at zero and only ever moves zero gradients, so on
                // `GVar`s its instructions may skip the gradient pushes.
                let vo = self.scalar.is_some()
                    && writes_only_own_ancillas(body)
                    && lets_read_no_writable(body, &self.writable);
                let prev = self.values_only.replace(self.values_only.get() || vo);
                let out = self.body(body, checks);
                self.values_only.set(prev);
                out
            }
            Stmt::Unroutine { body, .. } => {
                let u = self.body(&invert_body(body), checks);
                match &self.scalar {
                    Some(sc) if writes_only_own_ancillas(body) => {
                        let observed = if checks {
                            quote!(::gradus_rev::__rt::CHECKS)
                        } else {
                            quote!(false)
                        };
                        quote! {
                            if <#sc as ::gradus_rev::RevReal>::HAS_GRAD || #observed { #u }
                        }
                    }
                    _ => u,
                }
            }
            Stmt::If { arms, els, span } => self.if_stmt(arms, els, *span, checks),
            Stmt::While {
                pre,
                post,
                body,
                span,
            } => {
                let b = self.body(body, checks);
                if !checks {
                    return quote! { while #pre { #b } };
                }
                let it = self.fresh("iteration");
                let entry = self.fail(
                    *span,
                    quote!(
                        ::gradus_rev::__rt::InvertibilityErrorKind::WhilePostconditionTrueOnEntry
                    ),
                );
                let after = self.fail(
                    *span,
                    quote!(::gradus_rev::__rt::InvertibilityErrorKind::WhilePostconditionFalseAfterIteration { iteration: #it }),
                );
                quote! {{
                    if ::gradus_rev::__rt::CHECKS && (#post) { #entry; }
                    let mut #it: u64 = 0;
                    while #pre {
                        #b
                        #it += 1;
                        if ::gradus_rev::__rt::CHECKS && !(#post) { #after; }
                    }
                    let _ = #it;
                }}
            }
            Stmt::For {
                var,
                range,
                reversed,
                body,
                span,
            } => self.for_stmt(var.as_ref(), range, *reversed, body, *span, checks),
            Stmt::Safe { tokens, .. } => quote! { { #tokens } },
            Stmt::Block {
                body,
                inverted,
                unchecked,
            } => {
                let checks = checks && !unchecked;
                let b = if *inverted {
                    self.body(&invert_body(body), checks)
                } else {
                    self.body(body, checks)
                };
                quote! { { #b } }
            }
        }
    }

    fn if_stmt(&self, arms: &[IfArm], els: &[Stmt], span: Span, checks: bool) -> TokenStream {
        let conds: Vec<Ident> = arms.iter().map(|_| self.fresh("pre")).collect();
        let pres = arms.iter().zip(&conds).map(|(a, c)| {
            let p = &a.pre;
            quote! { let #c: bool = #p; }
        });
        let mut chain = quote!();
        for (i, (a, c)) in arms.iter().zip(&conds).enumerate() {
            let b = self.body(&a.body, checks);
            if i == 0 {
                chain = quote! { if #c { #b } };
            } else {
                chain = quote! { #chain else if #c { #b } };
            }
        }
        if !els.is_empty() {
            let b = self.body(els, checks);
            chain = quote! { #chain else { #b } };
        }
        let post_checks = if checks {
            arms.iter()
                .zip(&conds)
                .map(|(a, c)| {
                    let q = self.fresh("post");
                    let post = &a.post;
                    let fail = self.fail(
                        span,
                        quote!(::gradus_rev::__rt::InvertibilityErrorKind::BranchConditionChanged { before: #c, after: #q }),
                    );
                    quote! {
                        if ::gradus_rev::__rt::CHECKS {
                            let #q: bool = #post;
                            if #q != #c { #fail; }
                        }
                    }
                })
                .collect()
        } else {
            quote!()
        };
        quote! {{
            #(#pres)*
            #chain
            #post_checks
        }}
    }

    fn for_stmt(
        &self,
        var: Option<&Ident>,
        range: &Range,
        reversed: bool,
        body: &[Stmt],
        span: Span,
        checks: bool,
    ) -> TokenStream {
        let b = self.body(body, checks);
        let pat = match var {
            Some(v) => quote!(#v),
            None => quote!(_),
        };
        let (lo, hi) = (&range.lo, &range.hi);
        let (vlo, vhi, vs) = (self.fresh("lo"), self.fresh("hi"), self.fresh("step"));
        let step_expr = match &range.step {
            Some(s) => quote!(#s),
            None => quote!(1usize),
        };
        let iter = match (range.form, reversed) {
            (RangeForm::Excl, false) | (RangeForm::Rev, true) => quote!(#vlo..#vhi),
            (RangeForm::Excl, true) | (RangeForm::Rev, false) => quote!((#vlo..#vhi).rev()),
            (RangeForm::Incl, false) => quote!(#vlo..=#vhi),
            (RangeForm::Incl, true) => quote!((#vlo..=#vhi).rev()),
            (RangeForm::Step, _) => {
                let k = self.fresh("k");
                let n = quote!(::gradus_rev::__rt::LoopIndex::span(#vlo, #vhi, #vs));
                let ks = if reversed {
                    quote!((0..#n).rev())
                } else {
                    quote!(0..#n)
                };
                let lp = quote! {
                    for #k in #ks {
                        let #pat = ::gradus_rev::__rt::LoopIndex::offset(#vlo, #k, #vs as i128);
                        #b
                    }
                };
                return self.wrap_loop(
                    lp,
                    lo,
                    hi,
                    &step_expr,
                    (&vlo, &vhi, &vs),
                    range.form,
                    span,
                    checks,
                );
            }
        };
        let lp = quote! { for #pat in #iter { #b } };
        self.wrap_loop(
            lp,
            lo,
            hi,
            &step_expr,
            (&vlo, &vhi, &vs),
            range.form,
            span,
            checks,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn wrap_loop(
        &self,
        lp: TokenStream,
        lo: &Expr,
        hi: &Expr,
        step: &TokenStream,
        (vlo, vhi, vs): (&Ident, &Ident, &Ident),
        form: RangeForm,
        span: Span,
        checks: bool,
    ) -> TokenStream {
        let check = if checks {
            let incl = form == RangeForm::Incl;
            let (alo, ahi, as_) = (self.fresh("lo"), self.fresh("hi"), self.fresh("step"));
            let fail = self.fail(
                span,
                quote!(::gradus_rev::__rt::InvertibilityErrorKind::LoopRangeChanged {
                    before: ::gradus_rev::__rt::range_facts(#vlo, #vhi, #vs, #incl),
                    after: ::gradus_rev::__rt::range_facts(#alo, #ahi, #as_, #incl),
                }),
            );
            quote! {
                if ::gradus_rev::__rt::CHECKS {
                    let (#alo, #ahi, #as_): (_, _, usize) = (#lo, #hi, #step);
                    if #alo != #vlo || #ahi != #vhi || #as_ != #vs { #fail; }
                }
            }
        } else {
            quote!()
        };
        quote! {{
            let (#vlo, #vhi, #vs): (_, _, usize) = (#lo, #hi, #step);
            let _ = #vs;
            #lp
            #check
        }}
    }

    /// The Rust expression of a place.
    fn place(&self, p: &Place) -> TokenStream {
        let root = &p.root;
        let mut t = match p.kind {
            Kind::State | Kind::ConstRef => quote_spanned!(p.span=> (*#root)),
            _ => quote!(#root),
        };
        for pr in &p.projs {
            t = match pr {
                Proj::Field(m) => quote!(#t.#m),
                Proj::Index(e) => quote!(#t[#e]),
            };
        }
        t
    }

    /// Prepares the arguments of an instruction or call: returns the setup code, the
    /// argument expressions and the write-back code. `written[i]` says whether argument `i`
    /// must be passed as a place even when it is constant (never: GR009 rejects that).
    fn args(
        &self,
        args: &[&Operand],
        for_call: bool,
    ) -> (TokenStream, Vec<TokenStream>, TokenStream) {
        let mut setup = quote!();
        let mut back = quote!();
        let mut out = Vec::new();
        // Group writable places by root; groups with more than one member that index need
        // copy-in/copy-out and an address check.
        let copied: Vec<bool> = args
            .iter()
            .map(|a| match a {
                Operand::Place(p) if p.kind.writable() => args.iter().any(|b| match b {
                    Operand::Place(q)
                        if !std::ptr::eq(*a, *b) && q.root == p.root && q.kind.writable() =>
                    {
                        p.projs
                            .iter()
                            .chain(&q.projs)
                            .any(|x| matches!(x, Proj::Index(_)))
                    }
                    _ => false,
                }),
                _ => false,
            })
            .collect();
        // Address checks among copied places of one root.
        for i in 0..args.len() {
            for j in i + 1..args.len() {
                if let (Operand::Place(p), Operand::Place(q)) = (args[i], args[j])
                    && copied[i]
                    && copied[j]
                    && p.root == q.root
                {
                    let (pe, qe) = (self.place(p), self.place(q));
                    let root = p.root.to_string();
                    let fail = self.fail(
                        q.span,
                        quote!(::gradus_rev::__rt::InvertibilityErrorKind::Aliasing { container: #root }),
                    );
                    setup.extend(quote! {
                        if ::core::ptr::addr_eq(&raw const #pe, &raw const #qe) { #fail; }
                    });
                }
            }
        }
        for (i, a) in args.iter().enumerate() {
            match a {
                Operand::Place(p) if p.kind.writable() => {
                    let pe = self.place(p);
                    if copied[i] {
                        let t = self.fresh("arg");
                        setup.extend(quote! { let mut #t = #pe; });
                        back.extend(quote! { #pe = #t; });
                        out.push(quote!(&mut #t));
                    } else {
                        out.push(quote!(&mut #pe));
                    }
                }
                Operand::Place(p) => {
                    if for_call {
                        if p.projs.is_empty() {
                            let r = &p.root;
                            out.push(quote!(#r));
                        } else {
                            out.push(self.place(p));
                        }
                    } else {
                        let pe = self.place(p);
                        out.push(quote!(&mut ::gradus_rev::__rt::Const(#pe)));
                    }
                }
                Operand::Lit(l) => {
                    if for_call {
                        out.push(quote!(#l));
                    } else {
                        out.push(quote!(&mut ::gradus_rev::__rt::lit(#l)));
                    }
                }
                Operand::Const(e) => {
                    if for_call {
                        out.push(quote!(#e));
                    } else {
                        out.push(quote!(&mut ::gradus_rev::__rt::Const(#e)));
                    }
                }
                Operand::Ref(p) => {
                    let pe = self.place(p);
                    out.push(quote!(&#pe));
                }
            }
        }
        (setup, out, back)
    }

    fn acc(&self, target: &Place, op: AccOp, rhs: &Rhs, span: Span) -> TokenStream {
        let target_op = Operand::Place(target.clone());
        let (marker, ops): (TokenStream, Vec<&Operand>) = match rhs {
            Rhs::One(a) => (quote_spanned!(span=> ::gradus_rev::__rt::Id), vec![a]),
            Rhs::Bin(k, a, b) => {
                let m = match k {
                    BinKind::Add => quote!(Add),
                    BinKind::Sub => quote!(Sub),
                    BinKind::Mul => quote!(Mul),
                    BinKind::Div => quote!(Div),
                };
                (quote_spanned!(span=> ::gradus_rev::__rt::#m), vec![a, b])
            }
            Rhs::Prim(c, args) => (
                match c {
                    Callee::Builtin(id, m) => {
                        let m = Ident::new(m, id.span());
                        quote_spanned!(span=> ::gradus_rev::__rt::#m)
                    }
                    Callee::User(p) => quote!(::gradus_rev::__rt::User<#p>),
                },
                args.iter().collect(),
            ),
        };
        let mut all = vec![&target_op];
        all.extend(ops.iter().copied());
        let (setup, a, back) = self.args(&all, false);
        let extra: Vec<TokenStream> = if ops.len() == 2 {
            vec![quote!(_)]
        } else {
            vec![]
        };
        let vo = self.values_only.get();
        let (f, fallible) = match (op, ops.len()) {
            (AccOp::Add, 1) if vo => (quote!(add1v), false),
            (AccOp::Sub, 1) if vo => (quote!(sub1v), false),
            (AccOp::Add, 1) => (quote!(add1), false),
            (AccOp::Sub, 1) => (quote!(sub1), false),
            (AccOp::Add, _) if vo => (quote!(add2v), false),
            (AccOp::Sub, _) if vo => (quote!(sub2v), false),
            (AccOp::Add, _) => (quote!(add2), false),
            (AccOp::Sub, _) => (quote!(sub2), false),
            (AccOp::Xor, 1) => (quote!(xor1), false),
            (AccOp::Xor, _) => (quote!(xor2), false),
            (AccOp::Mul, 1) => (quote!(mul1), true),
            (AccOp::Div, 1) => (quote!(div1), true),
            (AccOp::Mul, _) => (quote!(mul2), true),
            (AccOp::Div, _) => (quote!(div2), true),
        };
        let call =
            quote_spanned!(span=> ::gradus_rev::__rt::#f::<#marker, _, _ #(, #extra)*>(#(#a),*));
        let call = if fallible {
            let w = self.fresh("what");
            let fail = self.fail(
                span,
                quote!(::gradus_rev::__rt::InvertibilityErrorKind::NotInvertibleValue { what: #w }),
            );
            quote! { if let ::core::result::Result::Err(#w) = #call { #fail; } }
        } else {
            quote!(#call;)
        };
        quote! {{ #setup #call #back }}
    }

    fn named(&self, name: Named, args: &[Operand], span: Span) -> TokenStream {
        let refs: Vec<&Operand> = args.iter().collect();
        let (setup, a, back) = self.args(&refs, false);
        let f = match name {
            Named::Swap => quote!(swap),
            Named::Neg => quote!(neg),
            Named::Inc => quote!(inc),
            Named::Dec => quote!(dec),
            Named::Flip => quote!(flip),
            Named::Conj => quote!(conj),
            Named::Rot => quote!(rot),
            Named::Irot => quote!(irot),
        };
        let call = quote_spanned!(span=> ::gradus_rev::__rt::#f(#(#a),*));
        quote! {{ #setup #call; #back }}
    }

    fn call(
        &self,
        func: &syn::ExprPath,
        args: &[Operand],
        inverse: bool,
        span: Span,
    ) -> TokenStream {
        let refs: Vec<&Operand> = args.iter().collect();
        let (setup, a, back) = self.args(&refs, true);
        let mut f = func.clone();
        if inverse && let Some(last) = f.path.segments.last_mut() {
            last.ident = format_ident!("{}_inv", last.ident);
        }
        let call = quote_spanned!(span=> #f(#(#a),*)?);
        quote! {{ #setup #call; #back }}
    }
}

/// Whether every statement of a routine body writes only ancillas allocated in that body
/// (so its uncompute is unobservable without release checks). `safe!` blocks count as
/// observable; calls count as writing every writable place passed to them.
pub fn writes_only_own_ancillas(body: &[Stmt]) -> bool {
    fn declared(body: &[Stmt], out: &mut Vec<Ident>) {
        for st in body {
            match st {
                Stmt::Let { name, .. } => out.push(name.clone()),
                Stmt::Routine { body, .. }
                | Stmt::Unroutine { body, .. }
                | Stmt::While { body, .. }
                | Stmt::For { body, .. }
                | Stmt::Block { body, .. } => declared(body, out),
                Stmt::If { arms, els, .. } => {
                    for a in arms {
                        declared(&a.body, out);
                    }
                    declared(els, out);
                }
                _ => {}
            }
        }
    }
    fn local(p: &Place, own: &[Ident]) -> bool {
        !p.kind.writable() || (p.kind == Kind::Ancilla && own.contains(&p.root))
    }
    fn ok(body: &[Stmt], own: &[Ident]) -> bool {
        body.iter().all(|st| match st {
            Stmt::Acc { target, .. } => local(target, own),
            Stmt::Named { name, args, .. } => {
                let written = match name {
                    Named::Rot | Named::Irot => 2,
                    _ => args.len(),
                };
                args.iter().take(written).all(|a| match a {
                    Operand::Place(p) => local(p, own),
                    _ => true,
                })
            }
            Stmt::Call { args, .. } => args.iter().all(|a| match a {
                Operand::Place(p) => local(p, own),
                _ => true,
            }),
            Stmt::Let { .. } | Stmt::Release { .. } => true,
            Stmt::Safe { .. } => false,
            Stmt::Routine { body, .. }
            | Stmt::Unroutine { body, .. }
            | Stmt::While { body, .. }
            | Stmt::For { body, .. }
            | Stmt::Block { body, .. } => ok(body, own),
            Stmt::If { arms, els, .. } => arms.iter().all(|a| ok(&a.body, own)) && ok(els, own),
        })
    }
    let mut own = Vec::new();
    declared(body, &mut own);
    ok(body, &own)
}

/// Collects the roots of every writable place in `body` and every name it allocates
/// (ancillas, including those that are only read).
pub fn writable_roots(body: &[Stmt], out: &mut Vec<Ident>) {
    fn op(o: &Operand, out: &mut Vec<Ident>) {
        if let Operand::Place(p) = o
            && p.kind.writable()
            && !out.contains(&p.root)
        {
            out.push(p.root.clone());
        }
    }
    for st in body {
        match st {
            Stmt::Acc { target, rhs, .. } => {
                op(&Operand::Place(target.clone()), out);
                match rhs {
                    Rhs::One(a) => op(a, out),
                    Rhs::Bin(_, a, b) => {
                        op(a, out);
                        op(b, out);
                    }
                    Rhs::Prim(_, args) => args.iter().for_each(|a| op(a, out)),
                }
            }
            Stmt::Named { args, .. } | Stmt::Call { args, .. } => {
                args.iter().for_each(|a| op(a, out))
            }
            Stmt::Routine { body, .. }
            | Stmt::Unroutine { body, .. }
            | Stmt::While { body, .. }
            | Stmt::For { body, .. }
            | Stmt::Block { body, .. } => writable_roots(body, out),
            Stmt::If { arms, els, .. } => {
                for a in arms {
                    writable_roots(&a.body, out);
                }
                writable_roots(els, out);
            }
            Stmt::Let { name, .. } => {
                if !out.contains(name) {
                    out.push(name.clone());
                }
            }
            Stmt::Release { .. } | Stmt::Safe { .. } => {}
        }
    }
}

/// Whether no `let` initialiser in `body` mentions a writable variable: then every ancilla
/// the body allocates starts with a zero gradient (it can only be built from constants).
pub fn lets_read_no_writable(body: &[Stmt], writable: &[Ident]) -> bool {
    body.iter().all(|st| match st {
        Stmt::Let { init, .. } => {
            let mut ids = Vec::new();
            crate::parse::idents(quote!(#init), &mut ids);
            !ids.iter().any(|i| writable.iter().any(|w| w == i))
        }
        Stmt::Routine { body, .. }
        | Stmt::Unroutine { body, .. }
        | Stmt::While { body, .. }
        | Stmt::For { body, .. }
        | Stmt::Block { body, .. } => lets_read_no_writable(body, writable),
        Stmt::If { arms, els, .. } => {
            arms.iter()
                .all(|a| lets_read_no_writable(&a.body, writable))
                && lets_read_no_writable(els, writable)
        }
        _ => true,
    })
}
