//! The printer of the typed stage (`gradus dev --stage typed`).
//!
//! One block per value declaration of the main program (modules included, qualified by their
//! path): the declaration's type scheme, then every name bound inside it (parameters, `let`
//! patterns, loop parameters, lambda parameters, local functions) with its type, in source
//! order and indented by nesting.

use super::{Ty, TypedProgram};
use crate::syntax::ast::*;
use std::fmt::Write;

/// Prints each declaration of the main program with its inferred type.
pub fn print_typed(decs: &[Dec], typed: &TypedProgram) -> String {
    let mut out = String::new();
    print_decs(decs, typed, &mut Vec::new(), &mut out);
    out
}

fn print_decs(decs: &[Dec], typed: &TypedProgram, path: &mut Vec<String>, out: &mut String) {
    for d in decs {
        print_dec(d, typed, path, out);
    }
}

fn print_dec(d: &Dec, typed: &TypedProgram, path: &mut Vec<String>, out: &mut String) {
    match &d.kind {
        DecKind::Value(vd) => {
            let info = typed.decls.iter().rev().find(|i| i.body == vd.body.id);
            let kw = if vd.entry { "entry" } else { "def" };
            let mut name = path.join(".");
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&vd.name);
            let _ = write!(out, "{kw} {name}");
            if let Some(info) = info {
                for (n, lifted) in &info.type_params {
                    let _ = write!(out, " '{}{n}", if *lifted { "^" } else { "" });
                }
                for (n, _) in &info.size_params {
                    let _ = write!(out, " [{n}]");
                }
                let _ = writeln!(out, " : {}", info.ty);
            } else {
                let _ = writeln!(out, " : ?");
            }
            for p in &vd.params {
                print_pat_names(p, typed, 1, out);
            }
            print_exp(&vd.body, typed, 1, out);
        }
        DecKind::TypeAbbrev(td) => {
            let _ = writeln!(out, "type {}", td.name);
        }
        DecKind::Module(md) => {
            if let ModExpKind::Decs(ds) = &md.body.kind {
                path.push(md.name.clone());
                print_decs(ds, typed, path, out);
                path.pop();
            }
        }
        DecKind::Local(inner) => print_dec(inner, typed, path, out),
        _ => {}
    }
}

fn indent(depth: usize, out: &mut String) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

fn show(t: Option<&Ty>) -> String {
    t.map_or_else(|| "?".to_string(), |t| t.to_string())
}

fn print_pat_names(p: &Pat, typed: &TypedProgram, depth: usize, out: &mut String) {
    match &p.kind {
        PatKind::Name(n) => {
            indent(depth, out);
            let _ = writeln!(out, "{n} : {}", show(typed.pat_types.get(&p.id)));
        }
        PatKind::Tuple(ps) => ps
            .iter()
            .for_each(|q| print_pat_names(q, typed, depth, out)),
        PatKind::Record(fs) => fs
            .iter()
            .for_each(|f| print_pat_names(&f.pat, typed, depth, out)),
        PatKind::Ascribe { pat, .. } | PatKind::Attr { pat, .. } => {
            print_pat_names(pat, typed, depth, out)
        }
        PatKind::Constructor { args, .. } => args
            .iter()
            .for_each(|q| print_pat_names(q, typed, depth, out)),
        PatKind::Wildcard | PatKind::Literal(_) => {}
    }
}

fn print_dims(ds: &[DimIndex], typed: &TypedProgram, depth: usize, out: &mut String) {
    for d in ds {
        match d {
            DimIndex::Fix(e) => print_exp(e, typed, depth, out),
            DimIndex::Slice { start, end, stride } => {
                for e in [start, end, stride].into_iter().flatten() {
                    print_exp(e, typed, depth, out);
                }
            }
        }
    }
}

fn print_exp(e: &Exp, typed: &TypedProgram, depth: usize, out: &mut String) {
    let go = |x: &Exp, out: &mut String| print_exp(x, typed, depth, out);
    match &e.kind {
        ExpKind::Int(_)
        | ExpKind::Float(_)
        | ExpKind::Bool(_)
        | ExpKind::Char(_)
        | ExpKind::String(_)
        | ExpKind::Var(_)
        | ExpKind::OpSection { .. }
        | ExpKind::ProjectSection { .. }
        | ExpKind::Hole => {}
        ExpKind::Parens(x)
        | ExpKind::Neg(x)
        | ExpKind::Not(x)
        | ExpKind::Attr { exp: x, .. }
        | ExpKind::Ascribe { exp: x, .. }
        | ExpKind::Coerce { exp: x, .. }
        | ExpKind::LocalOpen { body: x, .. }
        | ExpKind::Project { target: x, .. }
        | ExpKind::LeftSection { left: x, .. }
        | ExpKind::RightSection { right: x, .. } => go(x, out),
        ExpKind::Tuple(es) | ExpKind::Array(es) | ExpKind::Constructor { args: es, .. } => {
            es.iter().for_each(|x| go(x, out))
        }
        ExpKind::Record(fs) => fs.iter().for_each(|f| go(&f.value, out)),
        ExpKind::Index { target, indices } => {
            go(target, out);
            print_dims(indices, typed, depth, out);
        }
        ExpKind::IndexSection { indices } => print_dims(indices, typed, depth, out),
        ExpKind::Apply { func, args } => {
            go(func, out);
            args.iter().for_each(|x| go(x, out));
        }
        ExpKind::BinOp { lhs, rhs, .. } => {
            go(lhs, out);
            go(rhs, out);
        }
        ExpKind::Lambda { params, body, .. } => {
            indent(depth, out);
            let _ = writeln!(out, "\\ : {}", show(typed.exp_types.get(&e.id)));
            for p in params {
                print_pat_names(p, typed, depth + 1, out);
            }
            print_exp(body, typed, depth + 1, out);
        }
        ExpKind::Let {
            pat, value, body, ..
        } => {
            go(value, out);
            indent(depth, out);
            out.push_str("let ");
            let mut names = String::new();
            print_pat_names(pat, typed, 0, &mut names);
            match names.lines().count() {
                0 => out.push_str("_\n"),
                1 => out.push_str(&names),
                _ => {
                    out.push('\n');
                    for line in names.lines() {
                        indent(depth + 1, out);
                        out.push_str(line);
                        out.push('\n');
                    }
                }
            }
            go(body, out);
        }
        ExpKind::LetFun {
            name,
            params,
            value,
            body,
            ..
        } => {
            indent(depth, out);
            let ty = typed.local_functions.get(&e.id).map(|l| l.ty.clone());
            let _ = writeln!(out, "let {name} : {}", show(ty.as_ref()));
            for p in params {
                print_pat_names(p, typed, depth + 1, out);
            }
            print_exp(value, typed, depth + 1, out);
            go(body, out);
        }
        ExpKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            go(cond, out);
            go(then_branch, out);
            go(else_branch, out);
        }
        ExpKind::Loop {
            pat,
            init,
            form,
            body,
        } => {
            if let Some(i) = init {
                go(i, out);
            }
            indent(depth, out);
            let _ = writeln!(out, "loop : {}", show(typed.exp_types.get(&e.id)));
            print_pat_names(pat, typed, depth + 1, out);
            match &**form {
                LoopForm::For { var, bound } => {
                    print_exp(bound, typed, depth + 1, out);
                    print_pat_names(var, typed, depth + 1, out);
                }
                LoopForm::ForIn { pat, array } => {
                    print_exp(array, typed, depth + 1, out);
                    print_pat_names(pat, typed, depth + 1, out);
                }
                LoopForm::While(c) => print_exp(c, typed, depth + 1, out),
            }
            print_exp(body, typed, depth + 1, out);
        }
        ExpKind::Update {
            target,
            indices,
            value,
        } => {
            go(target, out);
            print_dims(indices, typed, depth, out);
            go(value, out);
        }
        ExpKind::RecordUpdate { target, value, .. } => {
            go(target, out);
            go(value, out);
        }
        ExpKind::Range {
            start, second, end, ..
        } => {
            go(start, out);
            if let Some(s) = second {
                go(s, out);
            }
            go(end, out);
        }
        ExpKind::Assert { cond, body } => {
            go(cond, out);
            go(body, out);
        }
        ExpKind::Match { scrutinee, cases } => {
            go(scrutinee, out);
            for c in cases {
                print_pat_names(&c.pat, typed, depth + 1, out);
                print_exp(&c.body, typed, depth + 1, out);
            }
        }
    }
}
