//! Prints statement bodies in the statement language (for tests and snapshots; spans are
//! not printed, so two bodies print the same exactly when they are the same program).

use crate::ast::*;
use quote::ToTokens;

/// The statement-language text of a body, one statement per line.
#[allow(dead_code)]
pub fn body(b: &[Stmt]) -> String {
    let mut s = String::new();
    write_body(b, 0, &mut s);
    s
}

fn t<T: ToTokens>(x: &T) -> String {
    x.to_token_stream().to_string()
}

fn place(p: &Place) -> String {
    crate::check::place_key(p).concat()
}

fn operand(o: &Operand) -> String {
    match o {
        Operand::Place(p) => place(p),
        Operand::Lit(e) => t(e),
        Operand::Const(e) => format!("constant!({})", t(e)),
        Operand::Ref(p) => format!("&{}", place(p)),
    }
}

fn write_body(b: &[Stmt], ind: usize, s: &mut String) {
    for st in b {
        write_stmt(st, ind, s);
    }
}

fn write_stmt(st: &Stmt, ind: usize, s: &mut String) {
    let pad = "    ".repeat(ind);
    match st {
        Stmt::Acc {
            target, op, rhs, ..
        } => {
            let op = match op {
                AccOp::Add => "+=",
                AccOp::Sub => "-=",
                AccOp::Xor => "^=",
                AccOp::Mul => "*=",
                AccOp::Div => "/=",
            };
            let r = match rhs {
                Rhs::One(a) => operand(a),
                Rhs::Bin(k, a, b) => {
                    let k = match k {
                        BinKind::Add => "+",
                        BinKind::Sub => "-",
                        BinKind::Mul => "*",
                        BinKind::Div => "/",
                    };
                    format!("{} {k} {}", operand(a), operand(b))
                }
                Rhs::Prim(c, args) => {
                    let n = match c {
                        Callee::Builtin(id, _) => id.to_string(),
                        Callee::User(p) => t(p),
                    };
                    let a: Vec<String> = args.iter().map(operand).collect();
                    format!("{n}({})", a.join(", "))
                }
            };
            s.push_str(&format!("{pad}{} {op} {r};\n", place(target)));
        }
        Stmt::Named { name, args, .. } => {
            let a: Vec<String> = args.iter().map(operand).collect();
            s.push_str(&format!(
                "{pad}{}({});\n",
                format!("{name:?}").to_uppercase(),
                a.join(", ")
            ));
        }
        Stmt::Call {
            func,
            args,
            inverse,
            ..
        } => {
            let a: Vec<String> = args.iter().map(operand).collect();
            let c = format!("{}({})", t(func), a.join(", "));
            if *inverse {
                s.push_str(&format!("{pad}inv!({c});\n"));
            } else {
                s.push_str(&format!("{pad}{c};\n"));
            }
        }
        Stmt::Let {
            name,
            mutable,
            init,
            ..
        } => {
            s.push_str(&format!(
                "{pad}let {}{name} = {};\n",
                if *mutable { "mut " } else { "" },
                t(init)
            ));
        }
        Stmt::Release { name, expr, .. } => {
            s.push_str(&format!("{pad}release!({name}, {});\n", t(expr)));
        }
        Stmt::Routine { name, body, .. } => {
            let n = name
                .as_ref()
                .map(|n| format!("{n} => "))
                .unwrap_or_default();
            s.push_str(&format!("{pad}routine!({n}{{\n"));
            write_body(body, ind + 1, s);
            s.push_str(&format!("{pad}}});\n"));
        }
        Stmt::Unroutine { name, .. } => {
            let n = name.as_ref().map(|n| n.to_string()).unwrap_or_default();
            s.push_str(&format!("{pad}unroutine!({n});\n"));
        }
        Stmt::If { arms, els, .. } => {
            for (i, a) in arms.iter().enumerate() {
                let kw = if i == 0 { "if" } else { "} else if" };
                s.push_str(&format!("{pad}{kw} ({}, {}) {{\n", t(&a.pre), t(&a.post)));
                write_body(&a.body, ind + 1, s);
            }
            if !els.is_empty() {
                s.push_str(&format!("{pad}}} else {{\n"));
                write_body(els, ind + 1, s);
            }
            s.push_str(&format!("{pad}}}\n"));
        }
        Stmt::While {
            pre, post, body, ..
        } => {
            s.push_str(&format!("{pad}while ({}, {}) {{\n", t(pre), t(post)));
            write_body(body, ind + 1, s);
            s.push_str(&format!("{pad}}}\n"));
        }
        Stmt::For {
            var,
            range,
            reversed,
            body,
            ..
        } => {
            let v = var.as_ref().map(|v| v.to_string()).unwrap_or("_".into());
            let r = format!(
                "{:?}({}, {}{})",
                range.form,
                t(&range.lo),
                t(&range.hi),
                range
                    .step
                    .as_ref()
                    .map(|x| format!(", {}", t(x)))
                    .unwrap_or_default()
            );
            s.push_str(&format!(
                "{pad}for {v} in {}{r} {{\n",
                if *reversed { "reversed " } else { "" }
            ));
            write_body(body, ind + 1, s);
            s.push_str(&format!("{pad}}}\n"));
        }
        Stmt::Safe { tokens, .. } => s.push_str(&format!("{pad}safe! {{ {tokens} }}\n")),
        Stmt::Block {
            body,
            inverted,
            unchecked,
        } => {
            let kw = match (inverted, unchecked) {
                (true, true) => "inv! unchecked! ",
                (true, false) => "inv! ",
                (false, true) => "unchecked! ",
                (false, false) => "",
            };
            s.push_str(&format!("{pad}{kw}{{\n"));
            write_body(body, ind + 1, s);
            s.push_str(&format!("{pad}}}\n"));
        }
    }
}
