//! The text form of core IR: a printer whose output [`crate::core::parse`] reads back.
//!
//! Takes any [`Prog`] (verified or not) and never panics on variables the name table lacks
//! (they print as `?_id`). Spans and inlining call sites are not printed; attributes are.
//! The syntax, by example (`//` comments are not part of it):
//!
//! ```text
//! entry dot [n_0] (xs_1: [n_0]f64, ys_2: [n_0]f64) : f64
//!   external dot ("[n]f64" xs_1, "[n]f64" ys_2) -> ("f64" 1)
//! {
//!   let prods_3: [n_0]f64 = map(n_0, \(x_4: f64, y_5: f64) : f64 -> { let p_6: f64 = mul_f64(x_4, y_5) in p_6 }, xs_1, ys_2)
//!   let r_7: f64 = reduce(n_0, \(a_8: f64, b_9: f64) : f64 -> { let s_10: f64 = add_f64(a_8, b_9) in s_10 }, (0.0f64), prods_3)
//!   in r_7
//! }
//!
//! fun helper (x_11: f64, c_12: bool) : (f64, i64) {
//!   #[unsafe] let y_13: f64 = if c_12 then { in x_11 } else { in 1.0f64 } : f64
//!   let (a_14: f64, k_15: i64) = loop (a_16: f64 = y_13, k_17: i64 = 0i64) for i_18: i64 < 10i64 do {
//!     ...
//!   }
//!   in a_14, k_15
//! }
//! ```
//!
//! * Variables print as `hint_id`; constants in the textual value format with their suffix
//!   (`1.0f64`, `3i64`, `true`, `f64.nan`, `-f64.inf`); dimensions that are `i64` constants
//!   print without suffix (`[3]f64`). Accumulator types print as `acc([n_0], f64)`.
//! * Patterns: `x_1: t` or `(x_1: t, y_2: u)`; `()` binds nothing (`assert`).
//! * Result lists and return types: one item bare, otherwise in parentheses (`()` for none);
//!   body results are `in a, b`.
//! * Basic operations: `x_1`, `add_f64(a, b)`, `xs[i, 0i64 :+ n_0 * 1i64]`,
//!   `xs with [i] = v`, `iota(i64, n, start, stride)`, `replicate([n, m], v)`,
//!   `scratch(f64, [n])`, `array([3]f64, [a, b])`, `concat(size, xs, ys)`, `copy(xs)`,
//!   `reshape([n, m], xs)`, `rearrange([1, 0], xs)`, `rotate(k, xs)`,
//!   `coerce([n], xs, "[n]f64")`, `assert(c, "message {}", x)`, `update_acc(acc, [i], [v])`.
//! * `if c then {..} else {..} : ret`, `loop (p: t = init, ..) for i: i64 < n do {..}` or
//!   `.. while c do {..}`, `call f(a, b) : ret`.
//! * SOACs: `map(w, lam, xs..)`, `reduce(w, lam, (ne..), xs..)` (`reduce_comm` when
//!   commutative), `scan(w, lam, (ne..), xs..)`, `hist(w, (dests..), lam, (ne..), is, vs..)`,
//!   `scatter(w, (dests..), is, vs..)`, `with_acc([n] (xs, ys), [m] (zs), lam)`; fused
//!   SOACs `redomap(w, f, op, (ne..), xs..)` (`redomap_comm`), `scanomap(w, f, op, (ne..),
//!   xs..)`, `histomap(w, (dests..), f, op, (ne..), xs..)`, `scattermap(w, (dests..), f,
//!   xs..)`; lambdas are `\(x: t, ..) : ret -> { .. }`.
//! * Functions: `fun NAME [size params] (params) : ret body`; entry points say `entry` and
//!   add `external NAME (ext params) -> (ext results)`, where an external type is a string
//!   (`"[n]f64"`, a value type whose element type and rank are read from the text),
//!   `value f64 1 "text"` (when they cannot be), or `opaque "text"`, followed by the core
//!   parameters it became (one, or several in parentheses) or, for results, their number.
//!   Names that are not identifiers print as strings.
//!
//! A body with at most one basic-operation statement prints on one line; others are indented.

use crate::core::external::ExternalType;
use crate::core::ir::{
    BasicOp, Body, DimIndex, EntryInfo, Exp, FunDef, Lambda, LoopForm, NameTable, Prog, ScremaForm,
    Soac, Stm, SubExp, Type, Var,
};
use crate::core::scalar::{PrimType, Scalar};
use std::fmt::Write;

/// Prints a whole program: its functions, separated by blank lines.
pub fn print_prog(prog: &Prog) -> String {
    let mut out = String::new();
    for (i, f) in prog.funs.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&print_fun(&prog.names, f));
    }
    out
}

/// Prints one function, with a trailing newline.
pub fn print_fun(names: &NameTable, fun: &FunDef) -> String {
    let mut p = Printer::new(names);
    p.fun(fun);
    p.out
}

/// Prints a body `{ stms in results }` at indentation level 0.
pub fn print_body(names: &NameTable, body: &Body) -> String {
    let mut p = Printer::new(names);
    p.body(body);
    p.out
}

/// Prints one statement (nested bodies indented relative to column 0), without a newline.
pub fn print_stm(names: &NameTable, stm: &Stm) -> String {
    let mut p = Printer::new(names);
    p.stm(stm);
    p.out
}

/// Prints an expression.
pub fn print_exp(names: &NameTable, exp: &Exp) -> String {
    let mut p = Printer::new(names);
    p.exp(exp);
    p.out
}

/// Prints a lambda `\(x_1: f64) : f64 -> { .. }`.
pub fn print_lambda(names: &NameTable, lam: &Lambda) -> String {
    let mut p = Printer::new(names);
    p.lambda(lam);
    p.out
}

/// Prints a type: `f64`, `[n_0][3]f64`, `acc([n_0], f64)`.
pub fn print_type(names: &NameTable, ty: &Type) -> String {
    let mut out = String::new();
    write_type(names, ty, &mut out);
    out
}

/// Prints a sub-expression: a variable `hint_id` or a constant.
pub fn print_subexp(names: &NameTable, se: &SubExp) -> String {
    match se {
        SubExp::Var(v) => print_var(names, *v),
        SubExp::Const(c) => print_scalar(c),
    }
}

/// Prints a variable as `hint_id`. Characters of the hint that cannot appear in an
/// identifier print as `_` (and a hint starting with a digit gets a `v` in front), so the
/// parser always reads the name back, possibly with a cleaned-up hint.
pub fn print_var(names: &NameTable, v: Var) -> String {
    let hint = names.hint(v);
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '\'';
    let mut out = String::with_capacity(hint.len() + 4);
    if hint.starts_with(|c: char| c.is_ascii_digit() || c == '\'') {
        out.push('v');
    }
    out.extend(hint.chars().map(|c| if ok(c) { c } else { '_' }));
    format!("{out}_{}", v.0)
}

/// Prints a constant in the textual value format, with its suffix: `3i64`, `1.0f64`,
/// `1e-7f32`, `true`, `f64.nan`, `-f64.inf`.
pub fn print_scalar(c: &Scalar) -> String {
    fn float(x: f64, dbg: String, t: &str) -> String {
        if x.is_nan() {
            format!("{t}.nan")
        } else if x.is_infinite() {
            if x > 0.0 {
                format!("{t}.inf")
            } else {
                format!("-{t}.inf")
            }
        } else {
            format!("{dbg}{t}")
        }
    }
    match *c {
        Scalar::Bool(b) => b.to_string(),
        Scalar::I8(v) => format!("{v}i8"),
        Scalar::I16(v) => format!("{v}i16"),
        Scalar::I32(v) => format!("{v}i32"),
        Scalar::I64(v) => format!("{v}i64"),
        Scalar::U8(v) => format!("{v}u8"),
        Scalar::U16(v) => format!("{v}u16"),
        Scalar::U32(v) => format!("{v}u32"),
        Scalar::U64(v) => format!("{v}u64"),
        Scalar::F32(v) => float(v as f64, format!("{v:?}"), "f32"),
        Scalar::F64(v) => float(v, format!("{v:?}"), "f64"),
    }
}

/// Whether `s` prints as a bare identifier (function names).
pub(crate) fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '\'')
}

fn name(s: &str) -> String {
    if is_ident(s) && !KEYWORDS.contains(&s) {
        s.to_string()
    } else {
        format!("{s:?}")
    }
}

/// Words with a meaning at the start of a function header.
const KEYWORDS: &[&str] = &["fun", "entry", "external", "opaque", "value"];

fn write_dim(names: &NameTable, d: &SubExp, out: &mut String) {
    match d {
        SubExp::Const(Scalar::I64(n)) => {
            let _ = write!(out, "{n}");
        }
        other => out.push_str(&print_subexp(names, other)),
    }
}

fn write_type(names: &NameTable, ty: &Type, out: &mut String) {
    match ty {
        Type::Prim(t) => out.push_str(t.name()),
        Type::Array { elem, dims } => {
            for d in dims {
                out.push('[');
                write_dim(names, d, out);
                out.push(']');
            }
            out.push_str(elem.name());
        }
        Type::Acc { shape, elems } => {
            out.push_str("acc([");
            for (i, d) in shape.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_dim(names, d, out);
            }
            out.push(']');
            for e in elems {
                out.push_str(", ");
                out.push_str(e.name());
            }
            out.push(')');
        }
    }
}

/// The element type and rank a value type's text denotes (`[n][3]f64` is `f64`, 2).
pub(crate) fn value_text_shape(text: &str) -> Option<(PrimType, usize)> {
    let mut rest = text.trim();
    let mut rank = 0;
    while let Some(r) = rest.strip_prefix('[') {
        let close = r.find(']')?;
        rest = r[close + 1..].trim_start();
        rank += 1;
    }
    PrimType::from_name(rest).map(|t| (t, rank))
}

struct Printer<'a> {
    names: &'a NameTable,
    out: String,
    indent: usize,
}

impl<'a> Printer<'a> {
    fn new(names: &'a NameTable) -> Self {
        Printer {
            names,
            out: String::new(),
            indent: 0,
        }
    }

    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn nl(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn var(&mut self, v: Var) {
        let s = print_var(self.names, v);
        self.s(&s);
    }

    fn se(&mut self, se: &SubExp) {
        let s = print_subexp(self.names, se);
        self.s(&s);
    }

    fn ty(&mut self, t: &Type) {
        write_type(self.names, t, &mut self.out);
    }

    fn typed_var(&mut self, v: Var) {
        self.var(v);
        self.s(": ");
        if (v.0 as usize) < self.names.len() {
            let t = self.names.ty(v).clone();
            self.ty(&t);
        } else {
            self.s("?");
        }
    }

    /// A list: `f` on each item, separated by `, `.
    fn list<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            f(self, x);
        }
    }

    fn ses(&mut self, items: &[SubExp]) {
        self.list(items, |p, x| p.se(x));
    }

    fn vars(&mut self, items: &[Var]) {
        self.list(items, |p, x| p.var(*x));
    }

    fn dims(&mut self, items: &[SubExp]) {
        self.s("[");
        self.list(items, |p, d| write_dim(p.names, d, &mut p.out));
        self.s("]");
    }

    /// Return types: one bare, others parenthesised.
    fn ret(&mut self, ret: &[Type]) {
        if ret.len() == 1 {
            self.ty(&ret[0]);
        } else {
            self.s("(");
            self.list(ret, |p, t| p.ty(t));
            self.s(")");
        }
    }

    fn paren_ses(&mut self, items: &[SubExp]) {
        self.s("(");
        self.ses(items);
        self.s(")");
    }

    fn paren_vars(&mut self, items: &[Var]) {
        self.s("(");
        self.vars(items);
        self.s(")");
    }

    fn fun(&mut self, f: &FunDef) {
        self.s(if f.entry.is_some() { "entry " } else { "fun " });
        self.s(&name(&f.name));
        if !f.size_params.is_empty() {
            self.s(" [");
            self.vars(&f.size_params);
            self.s("]");
        }
        self.s(" (");
        self.list(&f.params, |p, v| p.typed_var(*v));
        self.s(") : ");
        self.ret(&f.ret);
        if let Some(e) = &f.entry {
            self.indent += 1;
            self.nl();
            self.entry(e);
            self.indent -= 1;
            self.nl();
        } else {
            self.s(" ");
        }
        self.body_block(&f.body);
        self.s("\n");
    }

    fn ext_type(&mut self, t: &ExternalType) {
        match t {
            ExternalType::Value { elem, rank, text } => {
                if value_text_shape(text) == Some((*elem, *rank)) {
                    self.s(&format!("{text:?}"));
                } else {
                    self.s(&format!("value {elem} {rank} {text:?}"));
                }
            }
            ExternalType::Opaque(text) => self.s(&format!("opaque {text:?}")),
        }
    }

    fn entry(&mut self, e: &EntryInfo) {
        self.s("external ");
        self.s(&name(&e.name));
        self.s(" (");
        self.list(&e.params, |p, (t, vs)| {
            p.ext_type(t);
            p.s(" ");
            if vs.len() == 1 {
                p.var(vs[0]);
            } else {
                p.paren_vars(vs);
            }
        });
        self.s(") -> (");
        self.list(&e.results, |p, (t, n)| {
            p.ext_type(t);
            p.s(&format!(" {n}"));
        });
        self.s(")");
    }

    fn inline(body: &Body) -> bool {
        match body.stms.as_slice() {
            [] => true,
            [stm] => matches!(stm.exp, Exp::BasicOp(_)) && stm.aux.attrs.is_empty(),
            _ => false,
        }
    }

    /// A body at the current position: `{ .. in r }` inline or indented.
    fn body_block(&mut self, body: &Body) {
        if Self::inline(body) {
            self.s("{ ");
            for stm in &body.stms {
                self.stm(stm);
                self.s(" ");
            }
            self.result(&body.result);
            self.s(" }");
        } else {
            self.s("{");
            self.indent += 1;
            for stm in &body.stms {
                self.nl();
                self.stm(stm);
            }
            self.nl();
            self.result(&body.result);
            self.indent -= 1;
            self.nl();
            self.s("}");
        }
    }

    fn body(&mut self, body: &Body) {
        self.body_block(body);
    }

    fn result(&mut self, res: &[SubExp]) {
        self.s("in ");
        if res.is_empty() {
            self.s("()");
        } else {
            self.ses(res);
        }
    }

    fn stm(&mut self, stm: &Stm) {
        for a in &stm.aux.attrs {
            self.s("#[");
            self.s(a);
            self.s("] ");
        }
        self.s("let ");
        if stm.pat.len() == 1 {
            self.typed_var(stm.pat[0]);
        } else {
            self.s("(");
            self.list(&stm.pat, |p, v| p.typed_var(*v));
            self.s(")");
        }
        self.s(" = ");
        self.exp(&stm.exp);
    }

    fn lambda(&mut self, lam: &Lambda) {
        self.s("\\(");
        self.list(&lam.params, |p, v| p.typed_var(*v));
        self.s(") : ");
        self.ret(&lam.ret);
        self.s(" -> ");
        self.body_block(&lam.body);
    }

    fn slice(&mut self, slice: &[DimIndex]) {
        self.s("[");
        self.list(slice, |p, d| match d {
            DimIndex::Fix(i) => p.se(i),
            DimIndex::Slice {
                start,
                count,
                stride,
            } => {
                p.se(start);
                p.s(" :+ ");
                p.se(count);
                p.s(" * ");
                p.se(stride);
            }
        });
        self.s("]");
    }

    fn exp(&mut self, exp: &Exp) {
        match exp {
            Exp::BasicOp(op) => self.basic_op(op),
            Exp::If {
                cond,
                then_body,
                else_body,
                ret,
            } => {
                self.s("if ");
                self.se(cond);
                self.s(" then ");
                self.body_block(then_body);
                self.s(" else ");
                self.body_block(else_body);
                self.s(" : ");
                self.ret(ret);
            }
            Exp::Loop { params, form, body } => {
                self.s("loop (");
                self.list(params, |p, (v, init)| {
                    p.typed_var(*v);
                    p.s(" = ");
                    p.se(init);
                });
                self.s(") ");
                match form {
                    LoopForm::For { i, bound } => {
                        self.s("for ");
                        self.typed_var(*i);
                        self.s(" < ");
                        self.se(bound);
                    }
                    LoopForm::While { cond } => {
                        self.s("while ");
                        self.var(*cond);
                    }
                }
                self.s(" do ");
                self.body_block(body);
            }
            Exp::Apply { fun, args, ret } => {
                self.s("call ");
                self.s(&name(fun));
                self.paren_ses(args);
                self.s(" : ");
                self.ret(ret);
            }
            Exp::Soac(soac) => self.soac(soac),
            Exp::WithAcc { inputs, lam } => {
                self.s("with_acc(");
                for (shape, arrays) in inputs {
                    self.dims(shape);
                    self.s(" ");
                    self.paren_vars(arrays);
                    self.s(", ");
                }
                self.lambda(lam);
                self.s(")");
            }
            Exp::Ad {
                mode,
                lam,
                args,
                seeds,
            } => {
                self.s(mode.name());
                self.s("(");
                self.lambda(lam);
                self.s(", ");
                self.paren_ses(args);
                self.s(", ");
                self.paren_ses(seeds);
                self.s(")");
            }
        }
    }

    fn soac(&mut self, soac: &Soac) {
        match soac {
            Soac::Map { w, lam, arrays } => {
                self.s("map(");
                self.se(w);
                self.s(", ");
                self.lambda(lam);
                for a in arrays {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                commutative,
            } => {
                self.s(if *commutative {
                    "reduce_comm("
                } else {
                    "reduce("
                });
                self.se(w);
                self.s(", ");
                self.lambda(lam);
                self.s(", ");
                self.paren_ses(neutral);
                for a in arrays {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => {
                self.s("scan(");
                self.se(w);
                self.s(", ");
                self.lambda(lam);
                self.s(", ");
                self.paren_ses(neutral);
                for a in arrays {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
            Soac::Hist {
                w,
                dests,
                lam,
                neutral,
                indices,
                values,
            } => {
                self.s("hist(");
                self.se(w);
                self.s(", ");
                self.paren_vars(dests);
                self.s(", ");
                self.lambda(lam);
                self.s(", ");
                self.paren_ses(neutral);
                self.s(", ");
                self.var(*indices);
                for a in values {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => {
                self.s("scatter(");
                self.se(w);
                self.s(", ");
                self.paren_vars(dests);
                self.s(", ");
                self.var(*indices);
                for a in values {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => {
                self.s(match &**form {
                    ScremaForm::Reduce {
                        commutative: true, ..
                    } => "redomap_comm(",
                    ScremaForm::Reduce { .. } => "redomap(",
                    ScremaForm::Scan { .. } => "scanomap(",
                    ScremaForm::Hist { .. } => "histomap(",
                    ScremaForm::Scatter { .. } => "scattermap(",
                });
                self.se(w);
                self.s(", ");
                if matches!(**form, ScremaForm::Hist { .. } | ScremaForm::Scatter { .. }) {
                    self.paren_vars(form.dests());
                    self.s(", ");
                }
                self.lambda(map);
                if let (
                    Some(op),
                    ScremaForm::Reduce { neutral, .. }
                    | ScremaForm::Scan { neutral, .. }
                    | ScremaForm::Hist { neutral, .. },
                ) = (form.op(), &**form)
                {
                    self.s(", ");
                    self.lambda(op);
                    self.s(", ");
                    self.paren_ses(neutral);
                }
                for a in arrays {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
        }
    }

    fn basic_op(&mut self, op: &BasicOp) {
        match op {
            BasicOp::SubExp(se) => self.se(se),
            BasicOp::Prim(p, args) => {
                self.s(&p.name());
                self.paren_ses(args);
            }
            BasicOp::Index { array, slice } => {
                self.var(*array);
                self.slice(slice);
            }
            BasicOp::Update {
                array,
                slice,
                value,
            } => {
                self.var(*array);
                self.s(" with ");
                self.slice(slice);
                self.s(" = ");
                self.se(value);
            }
            BasicOp::Iota {
                n,
                start,
                stride,
                elem,
            } => {
                self.s("iota(");
                self.s(elem.name());
                self.s(", ");
                self.ses(&[*n, *start, *stride]);
                self.s(")");
            }
            BasicOp::Replicate { shape, value } => {
                self.s("replicate(");
                self.dims(shape);
                self.s(", ");
                self.se(value);
                self.s(")");
            }
            BasicOp::Scratch { elem, shape } => {
                self.s("scratch(");
                self.s(elem.name());
                self.s(", ");
                self.dims(shape);
                self.s(")");
            }
            BasicOp::ArrayLit { elems, row } => {
                self.s("array(");
                self.ty(row);
                self.s(", [");
                self.ses(elems);
                self.s("])");
            }
            BasicOp::Concat { arrays, size } => {
                self.s("concat(");
                self.se(size);
                for a in arrays {
                    self.s(", ");
                    self.var(*a);
                }
                self.s(")");
            }
            BasicOp::Copy(v) => {
                self.s("copy(");
                self.var(*v);
                self.s(")");
            }
            BasicOp::Reshape { array, shape } => {
                self.s("reshape(");
                self.dims(shape);
                self.s(", ");
                self.var(*array);
                self.s(")");
            }
            BasicOp::Rearrange { array, perm } => {
                self.s("rearrange([");
                self.list(perm, |p, i| p.s(&i.to_string()));
                self.s("], ");
                self.var(*array);
                self.s(")");
            }
            BasicOp::Rotate { array, amount } => {
                self.s("rotate(");
                self.se(amount);
                self.s(", ");
                self.var(*array);
                self.s(")");
            }
            BasicOp::Coerce {
                array,
                shape,
                type_text,
            } => {
                self.s("coerce(");
                self.dims(shape);
                self.s(", ");
                self.var(*array);
                self.s(&format!(", {type_text:?})"));
            }
            BasicOp::Assert {
                cond,
                message,
                args,
            } => {
                self.s("assert(");
                self.se(cond);
                self.s(&format!(", {message:?}"));
                for a in args {
                    self.s(", ");
                    self.se(a);
                }
                self.s(")");
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => {
                self.s("update_acc(");
                self.var(*acc);
                self.s(", [");
                self.ses(indices);
                self.s("], [");
                self.ses(values);
                self.s("])");
            }
        }
    }
}
