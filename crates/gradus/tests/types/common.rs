//! Shared helpers of the type checker tests: parse the real prelude and a program with one
//! node-id counter, then check them.

#![allow(dead_code)]

use gradus::diag::{Diagnostic, SourceMap};
use gradus::syntax::ast::{Dec, DecKind, Exp, ExpKind, NodeIdGen, Pat, PatKind};
use gradus::syntax::parse_file;
use gradus::types::{TypedProgram, check_program};

/// A checked program with its sources.
pub struct Checked {
    pub sources: SourceMap,
    pub program: Vec<Dec>,
    pub result: Result<TypedProgram, Vec<Diagnostic>>,
}

/// Parses and checks `src` (with the real prelude).
pub fn check(src: &str) -> Checked {
    let mut sources = SourceMap::new();
    let pf = sources.add("<prelude>", gradus::prelude::source());
    let mf = sources.add("test.fut", src);
    let mut ids = NodeIdGen::new();
    let prelude_text = sources.text(pf).to_string();
    let prelude = parse_file(pf, &prelude_text, &mut ids).expect("the prelude parses");
    let program = parse_file(mf, src, &mut ids)
        .unwrap_or_else(|d| panic!("parse error: {}", d.render(&sources)));
    let result = check_program(&prelude, &program);
    Checked {
        sources,
        program,
        result,
    }
}

/// Checks `src`, which must be well typed.
pub fn ok(src: &str) -> (Vec<Dec>, TypedProgram) {
    let c = check(src);
    match c.result {
        Ok(t) => (c.program, t),
        Err(ds) => panic!(
            "unexpected error:\n{}",
            ds.iter().map(|d| d.render(&c.sources)).collect::<String>()
        ),
    }
}

/// The type of the last main-program declaration named `name`.
pub fn ty_of(src: &str, name: &str) -> String {
    let (_, t) = ok(src);
    let d = t
        .decls
        .iter()
        .rev()
        .find(|d| !d.location.in_prelude && d.decl.name == name)
        .unwrap_or_else(|| panic!("no declaration `{name}`"));
    d.ty.to_string()
}

/// The first diagnostic of an ill-typed program, on one line (`test.fut:L:C: message`).
pub fn err_line(src: &str) -> String {
    let c = check(src);
    match c.result {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(ds) => ds[0].one_line(&c.sources),
    }
}

/// The first diagnostic rendered in full.
pub fn err_render(src: &str) -> String {
    let c = check(src);
    match c.result {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(ds) => ds[0].render(&c.sources),
    }
}

/// The type of the pattern that binds `name` (the first one, in source order) in the
/// main program.
pub fn binder_ty(src: &str, name: &str) -> String {
    let (decs, t) = ok(src);
    let mut found = None;
    for d in &decs {
        if let DecKind::Value(vd) = &d.kind {
            for p in &vd.params {
                find_pat(p, name, &mut found);
            }
            find_in_exp(&vd.body, name, &mut found);
        }
    }
    let id = found.unwrap_or_else(|| panic!("no binder `{name}`"));
    t.pat_types[&id].to_string()
}

fn find_pat(p: &Pat, name: &str, found: &mut Option<gradus::syntax::ast::NodeId>) {
    if found.is_some() {
        return;
    }
    match &p.kind {
        PatKind::Name(n) if n == name => *found = Some(p.id),
        PatKind::Tuple(ps) => ps.iter().for_each(|q| find_pat(q, name, found)),
        PatKind::Record(fs) => fs.iter().for_each(|f| find_pat(&f.pat, name, found)),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => find_pat(pat, name, found),
        _ => {}
    }
}

fn find_in_exp(e: &Exp, name: &str, found: &mut Option<gradus::syntax::ast::NodeId>) {
    if found.is_some() {
        return;
    }
    match &e.kind {
        ExpKind::Let {
            pat, value, body, ..
        } => {
            find_in_exp(value, name, found);
            find_pat(pat, name, found);
            find_in_exp(body, name, found);
        }
        ExpKind::Lambda { params, body, .. } => {
            params.iter().for_each(|p| find_pat(p, name, found));
            find_in_exp(body, name, found);
        }
        ExpKind::LetFun {
            params,
            value,
            body,
            ..
        } => {
            params.iter().for_each(|p| find_pat(p, name, found));
            find_in_exp(value, name, found);
            find_in_exp(body, name, found);
        }
        ExpKind::Loop { pat, body, .. } => {
            find_pat(pat, name, found);
            find_in_exp(body, name, found);
        }
        ExpKind::Parens(x) | ExpKind::Attr { exp: x, .. } => find_in_exp(x, name, found),
        ExpKind::Apply { func, args } => {
            find_in_exp(func, name, found);
            args.iter().for_each(|a| find_in_exp(a, name, found));
        }
        ExpKind::BinOp { lhs, rhs, .. } => {
            find_in_exp(lhs, name, found);
            find_in_exp(rhs, name, found);
        }
        _ => {}
    }
}
