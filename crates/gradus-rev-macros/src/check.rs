//! The static rules of docs/reversible.md §At compile time that look at one statement: GR002
//! (aliasing), GR009 (writing a read-only place), GR012 (loop body writes its bounds) and GR013
//! (short `if` whose branch writes what its condition reads). Scope rules (GR007, GR008) live in
//! the parser, which tracks scopes.

use crate::ast::*;
use crate::diag::err;
use crate::parse::idents;
use quote::ToTokens;
use syn::Expr;

/// The canonical text of a place: root, fields and token-identical indices.
pub fn place_key(p: &Place) -> Vec<String> {
    let mut v = vec![p.root.to_string()];
    for pr in &p.projs {
        v.push(match pr {
            Proj::Field(m) => format!(".{}", m.to_token_stream()),
            Proj::Index(e) => format!("[{}]", e.to_token_stream()),
        });
    }
    v
}

fn display(p: &Place) -> String {
    place_key(p).concat()
}

/// The places a statement writes, with the rule that they must be writable.
fn written(st: &Stmt) -> Vec<&Place> {
    match st {
        Stmt::Acc { target, .. } => vec![target],
        Stmt::Named { name, args, .. } => {
            let n = match name {
                Named::Rot | Named::Irot => 2,
                Named::Swap => 2,
                _ => 1,
            };
            args.iter()
                .take(n)
                .filter_map(|a| match a {
                    Operand::Place(p) => Some(p),
                    _ => None,
                })
                .collect()
        }
        Stmt::Call { args, .. } => args
            .iter()
            .filter_map(|a| match a {
                Operand::Place(p) if p.kind.writable() => Some(p),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// GR002 and GR009 for one instruction or call.
pub fn statement(st: &Stmt, errors: &mut Vec<syn::Error>) {
    let (places, first_written): (Vec<&Place>, usize) = match st {
        Stmt::Acc { target, rhs, .. } => {
            let mut v = vec![target];
            let ops: Vec<&Operand> = match rhs {
                Rhs::One(a) => vec![a],
                Rhs::Bin(_, a, b) => vec![a, b],
                Rhs::Prim(_, args) => args.iter().collect(),
            };
            for o in ops {
                match o {
                    Operand::Place(p) | Operand::Ref(p) => v.push(p),
                    _ => {}
                }
            }
            (v, 1)
        }
        Stmt::Named { name, args, .. } => {
            for (i, a) in args.iter().enumerate() {
                let writes = match name {
                    Named::Rot | Named::Irot | Named::Swap => i < 2,
                    _ => i < 1,
                };
                if writes && !matches!(a, Operand::Place(_)) {
                    errors.push(err(
                        proc_macro2::Span::call_site(),
                        "GR009",
                        "this instruction writes its argument, which must be a place",
                    ));
                }
            }
            (
                args.iter()
                    .filter_map(|a| match a {
                        Operand::Place(p) => Some(p),
                        _ => None,
                    })
                    .collect(),
                match name {
                    Named::Rot | Named::Irot | Named::Swap => 2,
                    _ => 1,
                },
            )
        }
        Stmt::Call { args, .. } => (
            args.iter()
                .filter_map(|a| match a {
                    Operand::Place(p) | Operand::Ref(p) => Some(p),
                    _ => None,
                })
                .collect(),
            0,
        ),
        _ => return,
    };
    for p in written(st) {
        if !p.kind.writable() {
            errors.push(err(
                p.span,
                "GR009",
                &format!("`{}` is {}", p.root, p.kind.describe()),
            ));
        }
    }
    // GR002: the same place twice (or a place and a part of it).
    for i in 0..places.len() {
        for j in i + 1..places.len() {
            let (a, b) = (place_key(places[i]), place_key(places[j]));
            let n = a.len().min(b.len());
            if a[..n] == b[..n] {
                let msg = if i < first_written.max(1) && matches!(st, Stmt::Acc { .. }) {
                    format!(
                        "`{}` is written and read by the same instruction",
                        display(places[i])
                    )
                } else if let Stmt::Acc {
                    rhs: Rhs::Bin(BinKind::Mul, _, _),
                    ..
                } = st
                {
                    format!(
                        "`{}` is read twice by one instruction; write `square({})` instead of a product with itself",
                        display(places[j]),
                        display(places[j])
                    )
                } else {
                    format!(
                        "`{}` is passed twice to one instruction or call; arguments must be distinct places",
                        display(places[j])
                    )
                };
                errors.push(err(places[j].span, "GR002", &msg));
            }
        }
    }
}

/// Roots written anywhere in a body.
pub fn roots_written(body: &[Stmt], out: &mut Vec<(String, proc_macro2::Span)>) {
    for st in body {
        for p in written(st) {
            out.push((p.root.to_string(), p.span));
        }
        match st {
            Stmt::Routine { body, .. } | Stmt::Block { body, .. } => roots_written(body, out),
            Stmt::If { arms, els, .. } => {
                for a in arms {
                    roots_written(&a.body, out);
                }
                roots_written(els, out);
            }
            Stmt::While { body, .. } | Stmt::For { body, .. } => roots_written(body, out),
            _ => {}
        }
    }
}

/// Roots written without indexing (element writes cannot change a container's length).
fn roots_written_whole(body: &[Stmt], out: &mut Vec<(String, proc_macro2::Span)>) {
    let mut all = Vec::new();
    collect_places(body, &mut all);
    for p in all {
        if !p.projs.iter().any(|x| matches!(x, Proj::Index(_))) {
            out.push((p.root.to_string(), p.span));
        }
    }
}

fn collect_places(body: &[Stmt], out: &mut Vec<Place>) {
    for st in body {
        out.extend(written(st).into_iter().cloned());
        match st {
            Stmt::Routine { body, .. } | Stmt::Block { body, .. } => collect_places(body, out),
            Stmt::If { arms, els, .. } => {
                for a in arms {
                    collect_places(&a.body, out);
                }
                collect_places(els, out);
            }
            Stmt::While { body, .. } | Stmt::For { body, .. } => collect_places(body, out),
            _ => {}
        }
    }
}

/// GR013: a short `if c` whose branch writes something `c` reads.
pub fn short_if(cond: &Expr, body: &[Stmt], errors: &mut Vec<syn::Error>) {
    let mut read = Vec::new();
    idents(cond.to_token_stream(), &mut read);
    let mut w = Vec::new();
    roots_written(body, &mut w);
    if let Some((name, span)) = w.iter().find(|(n, _)| read.contains(n)) {
        errors.push(err(
            *span,
            "GR013",
            &format!(
                "this branch changes `{name}`, which its condition reads; give an explicit post-condition: `if (pre, post) {{ … }}`"
            ),
        ));
    }
}

/// GR012: a loop body that writes a variable used in the loop bounds.
pub fn loop_bounds(range: &Range, body: &[Stmt], errors: &mut Vec<syn::Error>) {
    let mut read = Vec::new();
    idents(range.lo.to_token_stream(), &mut read);
    idents(range.hi.to_token_stream(), &mut read);
    if let Some(s) = &range.step {
        idents(s.to_token_stream(), &mut read);
    }
    let mut w = Vec::new();
    roots_written_whole(body, &mut w);
    if let Some((name, span)) = w.iter().find(|(n, _)| read.contains(n)) {
        errors.push(err(
            *span,
            "GR012",
            &format!("the loop body writes `{name}`, which the loop bounds read; the inverse could not run the same iterations"),
        ));
    }
}
