//! A fully parenthesised printer for the AST.
//!
//! Every compound expression is wrapped in parentheses, so precedence and the extent of
//! `let`, `if` and lambda bodies are visible: `a + b * c` prints as `(a + (b * c))`. The output
//! is valid source that parses back to the same tree (apart from ids, spans and the extra
//! [`ExpKind::Parens`] nodes), which the tests check. One declaration per line; the contents
//! of module and module type braces are indented. Node ids are not printed, so snapshots do
//! not change when numbering does.

use super::ast::*;
use std::fmt::Write;

/// Prints declarations, one per line.
pub fn print_decs(decs: &[Dec]) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    for d in decs {
        p.dec(d);
    }
    p.out
}

/// Prints one expression on one line.
pub fn print_exp(e: &Exp) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    p.exp(e);
    p.out
}

/// Prints one type expression.
pub fn print_type(t: &TypeExp) -> String {
    let mut p = Printer {
        out: String::new(),
        indent: 0,
    };
    p.ty(t);
    p.out
}

struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn line(&mut self) {
        self.out.push('\n');
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn attr(&mut self, a: &Attr) {
        match &a.kind {
            AttrKind::Name(n) => self.s(n),
            AttrKind::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            AttrKind::Call(n, args) => {
                self.s(n);
                self.s("(");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.attr(a);
                }
                self.s(")");
            }
        }
    }

    fn dec(&mut self, d: &Dec) {
        for a in &d.attrs {
            self.s("#[");
            self.attr(a);
            self.s("] ");
        }
        match &d.kind {
            DecKind::Value(v) => {
                self.s(if v.entry { "entry " } else { "def " });
                if v.operator {
                    let _ = write!(self.out, "({})", v.name);
                } else {
                    self.s(&v.name);
                }
                self.type_params(&v.type_params);
                for p in &v.params {
                    self.s(" ");
                    self.pat_atom(p);
                }
                if let Some(t) = &v.ret {
                    self.s(" : ");
                    self.ty(t);
                }
                self.s(" = ");
                self.exp(&v.body);
            }
            DecKind::TypeAbbrev(t) => {
                self.s("type");
                self.lift(t.lifted);
                self.s(" ");
                self.s(&t.name);
                self.type_params(&t.params);
                self.s(" = ");
                self.ty(&t.ty);
            }
            DecKind::Module(m) => {
                self.s("module ");
                self.s(&m.name);
                for p in &m.params {
                    self.s(" ");
                    self.mod_param(p);
                }
                if let Some(s) = &m.sig {
                    self.s(" : ");
                    self.mod_type(s);
                }
                self.s(" = ");
                self.mod_exp(&m.body);
            }
            DecKind::ModuleType(m) => {
                self.s("module type ");
                self.s(&m.name);
                self.s(" = ");
                self.mod_type(&m.body);
            }
            DecKind::Open(m) => {
                self.s("open ");
                self.mod_exp(m);
            }
            DecKind::Local(d) => {
                self.s("local ");
                self.dec(d);
                return;
            }
            DecKind::Import { path, .. } => {
                let _ = write!(self.out, "import {path:?}");
            }
        }
        if self.indent == 0 {
            self.s("\n");
        }
    }

    fn lift(&mut self, l: Lift) {
        match l {
            Lift::None => {}
            Lift::Tilde => self.s("~"),
            Lift::Caret => self.s("^"),
        }
    }

    fn type_params(&mut self, ps: &[TypeParam]) {
        for p in ps {
            self.s(" ");
            match p {
                TypeParam::Size { name, .. } => {
                    let _ = write!(self.out, "[{name}]");
                }
                TypeParam::Type { name, lifted, .. } => {
                    self.s("'");
                    self.lift(*lifted);
                    self.s(name);
                }
            }
        }
    }

    fn mod_param(&mut self, p: &ModParam) {
        let _ = write!(self.out, "({}: ", p.name);
        self.mod_type(&p.sig);
        self.s(")");
    }

    fn mod_exp(&mut self, m: &ModExp) {
        match &m.kind {
            ModExpKind::Var(q) => {
                let _ = write!(self.out, "{q}");
            }
            ModExpKind::Decs(decs) => {
                self.s("{");
                self.indent += 1;
                for d in decs {
                    self.line();
                    self.dec(d);
                }
                self.indent -= 1;
                self.line();
                self.s("}");
            }
            ModExpKind::Apply(f, a) => {
                self.s("(");
                self.mod_exp(f);
                self.s(" ");
                if matches!(a.kind, ModExpKind::Import(_)) {
                    self.s("(");
                    self.mod_exp(a);
                    self.s(")");
                } else {
                    self.mod_exp(a);
                }
                self.s(")");
            }
            ModExpKind::Ascribe(m, t) => {
                self.s("(");
                self.mod_exp(m);
                self.s(" : ");
                self.mod_type(t);
                self.s(")");
            }
            ModExpKind::Import(p) => {
                let _ = write!(self.out, "import {p:?}");
            }
            ModExpKind::Lambda { param, sig, body } => {
                self.s("(\\");
                self.mod_param(param);
                if let Some(s) = sig {
                    self.s(" : ");
                    self.mod_type(s);
                }
                self.s(" -> ");
                self.mod_exp(body);
                self.s(")");
            }
        }
    }

    fn mod_type(&mut self, t: &ModTypeExp) {
        match &t.kind {
            ModTypeExpKind::Var(q) => {
                let _ = write!(self.out, "{q}");
            }
            ModTypeExpKind::Specs(specs) => {
                self.s("{");
                self.indent += 1;
                for s in specs {
                    self.line();
                    self.spec(s);
                }
                self.indent -= 1;
                self.line();
                self.s("}");
            }
            ModTypeExpKind::With {
                base,
                name,
                params,
                ty,
            } => {
                self.s("(");
                self.mod_type(base);
                let _ = write!(self.out, " with {name}");
                self.type_params(params);
                self.s(" = ");
                self.ty(ty);
                self.s(")");
            }
            ModTypeExpKind::Arrow {
                param_name,
                param,
                result,
            } => {
                self.s("(");
                if let Some((n, _)) = param_name {
                    let _ = write!(self.out, "({n}: ");
                    self.mod_type(param);
                    self.s(")");
                } else {
                    self.mod_type(param);
                }
                self.s(" -> ");
                self.mod_type(result);
                self.s(")");
            }
        }
    }

    fn spec(&mut self, s: &Spec) {
        match &s.kind {
            SpecKind::Val {
                name,
                type_params,
                ty,
                ..
            } => {
                if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                    let _ = write!(self.out, "val {name}");
                } else {
                    let _ = write!(self.out, "val ({name})");
                }
                self.type_params(type_params);
                self.s(" : ");
                self.ty(ty);
            }
            SpecKind::Type {
                name,
                lifted,
                params,
                ty,
                ..
            } => {
                self.s("type");
                self.lift(*lifted);
                let _ = write!(self.out, " {name}");
                self.type_params(params);
                if let Some(t) = ty {
                    self.s(" = ");
                    self.ty(t);
                }
            }
            SpecKind::Module { name, sig, .. } => {
                let _ = write!(self.out, "module {name} : ");
                self.mod_type(sig);
            }
            SpecKind::Include(t) => {
                self.s("include ");
                self.mod_type(t);
            }
        }
    }

    // ----- types -----

    fn ty(&mut self, t: &TypeExp) {
        match &t.kind {
            TypeExpKind::Prim(p) => self.s(p.name()),
            TypeExpKind::Named { name, args } => {
                if args.is_empty() {
                    let _ = write!(self.out, "{name}");
                } else {
                    let _ = write!(self.out, "({name}");
                    for a in args {
                        self.s(" ");
                        match a {
                            TypeArg::Size(s, _) => self.size(s),
                            TypeArg::Type(t) => self.ty_atom(t),
                        }
                    }
                    self.s(")");
                }
            }
            TypeExpKind::Array { size, elem, .. } => {
                self.size(size);
                if matches!(elem.kind, TypeExpKind::Array { .. }) {
                    self.ty(elem);
                } else {
                    self.ty_atom(elem);
                }
            }
            TypeExpKind::Tuple(ts) => {
                self.s("(");
                for (i, t) in ts.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.ty(t);
                }
                self.s(")");
            }
            TypeExpKind::Record(fs) => {
                self.s("{");
                for (i, f) in fs.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    let _ = write!(self.out, "{}: ", f.name);
                    self.ty(&f.ty);
                }
                self.s("}");
            }
            TypeExpKind::Function {
                param_name,
                param,
                ret,
            } => {
                self.s("(");
                if let Some((n, _)) = param_name {
                    let _ = write!(self.out, "({n}: ");
                    self.ty(param);
                    self.s(")");
                } else {
                    self.ty(param);
                }
                self.s(" -> ");
                self.ty(ret);
                self.s(")");
            }
            TypeExpKind::Unique(t) => {
                self.s("*");
                if matches!(t.kind, TypeExpKind::Unique(_)) {
                    // `**` would be one operator token.
                    self.s("(");
                    self.ty(t);
                    self.s(")");
                } else {
                    self.ty(t);
                }
            }
            TypeExpKind::Sum(cs) => {
                self.s("(");
                for (i, c) in cs.iter().enumerate() {
                    if i > 0 {
                        self.s(" | ");
                    }
                    let _ = write!(self.out, "#{}", c.name);
                    for a in &c.args {
                        self.s(" ");
                        self.ty_atom(a);
                    }
                }
                self.s(")");
            }
            TypeExpKind::Existential { sizes, ty } => {
                self.s("(?");
                for s in sizes {
                    let _ = write!(self.out, "[{}]", s.name);
                }
                self.s(".");
                self.ty(ty);
                self.s(")");
            }
        }
    }

    /// A type in argument position: everything but names, tuples, records and sums is
    /// parenthesised (arrays too, since `[d]` there would be a size argument).
    fn ty_atom(&mut self, t: &TypeExp) {
        match &t.kind {
            TypeExpKind::Prim(_)
            | TypeExpKind::Tuple(_)
            | TypeExpKind::Record(_)
            | TypeExpKind::Sum(_)
            | TypeExpKind::Existential { .. }
            | TypeExpKind::Function { .. } => self.ty(t),
            TypeExpKind::Named { .. } => self.ty(t),
            TypeExpKind::Array { .. } | TypeExpKind::Unique(_) => {
                self.s("(");
                self.ty(t);
                self.s(")");
            }
        }
    }

    fn size(&mut self, s: &SizeExp) {
        match s {
            SizeExp::Any => self.s("[]"),
            SizeExp::Exp(e) => {
                self.s("[");
                self.exp(e);
                self.s("]");
            }
        }
    }

    // ----- patterns -----

    fn pat(&mut self, p: &Pat) {
        self.pat_atom(p);
    }

    fn pat_atom(&mut self, p: &Pat) {
        match &p.kind {
            PatKind::Name(n) => self.s(n),
            PatKind::Wildcard => self.s("_"),
            PatKind::Tuple(ps) => {
                self.s("(");
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.pat(p);
                }
                self.s(")");
            }
            PatKind::Record(fs) => {
                self.s("{");
                for (i, f) in fs.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    let _ = write!(self.out, "{} = ", f.name);
                    self.pat(&f.pat);
                }
                self.s("}");
            }
            PatKind::Ascribe { pat, ty } => {
                self.s("(");
                self.pat(pat);
                self.s(": ");
                self.ty(ty);
                self.s(")");
            }
            PatKind::Constructor { name, args } => {
                if args.is_empty() {
                    let _ = write!(self.out, "#{name}");
                } else {
                    let _ = write!(self.out, "(#{name}");
                    for a in args {
                        self.s(" ");
                        self.pat(a);
                    }
                    self.s(")");
                }
            }
            PatKind::Literal(l) => match l {
                PatLit::Int { negative, lit } => {
                    if *negative {
                        self.s("-");
                    }
                    self.int(lit);
                }
                PatLit::Float { negative, lit } => {
                    if *negative {
                        self.s("-");
                    }
                    self.float(lit);
                }
                PatLit::Bool(b) => self.s(if *b { "true" } else { "false" }),
                PatLit::Char(c) => self.char_lit(*c),
            },
            PatKind::Attr { attr, pat } => {
                self.s("(#[");
                self.attr(attr);
                self.s("] ");
                self.pat(pat);
                self.s(")");
            }
        }
    }

    // ----- expressions -----

    fn int(&mut self, l: &IntLit) {
        let _ = write!(self.out, "{}", l.value);
        if let Some(s) = l.suffix {
            self.s(s.name());
        }
    }

    fn float(&mut self, l: &FloatLit) {
        self.s(&l.text);
        if let Some(s) = l.suffix {
            self.s(s.name());
        }
    }

    fn char_lit(&mut self, c: char) {
        let _ = write!(self.out, "'{}'", c.escape_default());
    }

    fn op(&mut self, op: &QualName, backtick: bool) {
        if backtick {
            let _ = write!(self.out, "`{op}`");
        } else {
            let _ = write!(self.out, "{op}");
        }
    }

    fn dim_indices(&mut self, is: &[DimIndex]) {
        self.s("[");
        for (i, d) in is.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            match d {
                DimIndex::Fix(e) => self.exp(e),
                DimIndex::Slice { start, end, stride } => {
                    if let Some(e) = start {
                        self.exp(e);
                    }
                    self.s(":");
                    if let Some(e) = end {
                        self.exp(e);
                    }
                    if let Some(e) = stride {
                        self.s(":");
                        self.exp(e);
                    }
                }
            }
        }
        self.s("]");
    }

    fn comma_exps(&mut self, es: &[Exp]) {
        for (i, e) in es.iter().enumerate() {
            if i > 0 {
                self.s(", ");
            }
            self.exp(e);
        }
    }

    fn exp(&mut self, e: &Exp) {
        match &e.kind {
            ExpKind::Int(l) => self.int(l),
            ExpKind::Float(l) => self.float(l),
            ExpKind::Bool(b) => self.s(if *b { "true" } else { "false" }),
            ExpKind::Char(c) => self.char_lit(*c),
            ExpKind::String(s) => {
                self.s("\"");
                for c in s.chars() {
                    match c {
                        '"' => self.s("\\\""),
                        '\\' => self.s("\\\\"),
                        '\n' => self.s("\\n"),
                        '\t' => self.s("\\t"),
                        c if (c as u32) < 0x20 => {
                            let _ = write!(self.out, "\\u{{{:x}}}", c as u32);
                        }
                        c => self.out.push(c),
                    }
                }
                self.s("\"");
            }
            ExpKind::Var(q) => {
                let _ = write!(self.out, "{q}");
            }
            ExpKind::Parens(e) => self.exp(e),
            ExpKind::Tuple(es) => {
                self.s("(");
                self.comma_exps(es);
                self.s(")");
            }
            ExpKind::Array(es) => {
                self.s("[");
                self.comma_exps(es);
                self.s("]");
            }
            ExpKind::Record(fs) => {
                self.s("{");
                for (i, f) in fs.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    let _ = write!(self.out, "{} = ", f.name);
                    self.exp(&f.value);
                }
                self.s("}");
            }
            ExpKind::Project { target, field, .. } => {
                self.exp_atom(target);
                let _ = write!(self.out, ".{field}");
            }
            ExpKind::Index { target, indices } => {
                self.exp_atom(target);
                self.dim_indices(indices);
            }
            ExpKind::Apply { func, args } => {
                self.s("(");
                self.exp(func);
                for a in args {
                    self.s(" ");
                    self.exp(a);
                }
                self.s(")");
            }
            ExpKind::BinOp {
                op,
                backtick,
                lhs,
                rhs,
                ..
            } => {
                self.s("(");
                self.exp(lhs);
                self.s(" ");
                self.op(op, *backtick);
                self.s(" ");
                self.exp(rhs);
                self.s(")");
            }
            ExpKind::Neg(e) => {
                self.s("(-");
                self.exp(e);
                self.s(")");
            }
            ExpKind::Not(e) => {
                self.s("(!");
                self.exp(e);
                self.s(")");
            }
            ExpKind::OpSection { op, backtick, .. } => {
                self.s("(");
                self.op(op, *backtick);
                self.s(")");
            }
            ExpKind::LeftSection {
                op, backtick, left, ..
            } => {
                self.s("(");
                self.exp(left);
                self.s(" ");
                self.op(op, *backtick);
                self.s(")");
            }
            ExpKind::RightSection {
                op,
                backtick,
                right,
                ..
            } => {
                self.s("(");
                self.op(op, *backtick);
                self.s(" ");
                self.exp(right);
                self.s(")");
            }
            ExpKind::ProjectSection { fields } => {
                self.s("(");
                for (f, _) in fields {
                    let _ = write!(self.out, ".{f}");
                }
                self.s(")");
            }
            ExpKind::IndexSection { indices } => {
                self.s("(.");
                self.dim_indices(indices);
                self.s(")");
            }
            ExpKind::Lambda { params, ret, body } => {
                self.s("(\\");
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        self.s(" ");
                    }
                    self.pat_atom(p);
                }
                if let Some(t) = ret {
                    self.s(" : ");
                    self.ty(t);
                }
                self.s(" -> ");
                self.exp(body);
                self.s(")");
            }
            ExpKind::Let {
                sizes,
                pat,
                value,
                body,
            } => {
                self.s("(let ");
                for s in sizes {
                    let _ = write!(self.out, "[{}] ", s.name);
                }
                self.pat(pat);
                self.s(" = ");
                self.exp(value);
                self.s(" in ");
                self.exp(body);
                self.s(")");
            }
            ExpKind::LetFun {
                name,
                type_params,
                params,
                ret,
                value,
                body,
                ..
            } => {
                self.s("(let ");
                if name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                    self.s(name);
                } else {
                    let _ = write!(self.out, "({name})");
                }
                self.type_params(type_params);
                for p in params {
                    self.s(" ");
                    self.pat_atom(p);
                }
                if let Some(t) = ret {
                    self.s(" : ");
                    self.ty(t);
                }
                self.s(" = ");
                self.exp(value);
                self.s(" in ");
                self.exp(body);
                self.s(")");
            }
            ExpKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.s("(if ");
                self.exp(cond);
                self.s(" then ");
                self.exp(then_branch);
                self.s(" else ");
                self.exp(else_branch);
                self.s(")");
            }
            ExpKind::Loop {
                pat,
                init,
                form,
                body,
            } => {
                self.s("(loop ");
                self.pat(pat);
                if let Some(i) = init {
                    self.s(" = ");
                    self.exp(i);
                }
                match form.as_ref() {
                    LoopForm::For { var, bound } => {
                        self.s(" for ");
                        self.pat(var);
                        self.s(" < ");
                        self.exp(bound);
                    }
                    LoopForm::ForIn { pat, array } => {
                        self.s(" for ");
                        self.pat(pat);
                        self.s(" in ");
                        self.exp(array);
                    }
                    LoopForm::While(c) => {
                        self.s(" while ");
                        self.exp(c);
                    }
                }
                self.s(" do ");
                self.exp(body);
                self.s(")");
            }
            ExpKind::Update {
                target,
                indices,
                value,
            } => {
                self.s("(");
                self.exp(target);
                self.s(" with ");
                self.dim_indices(indices);
                self.s(" = ");
                self.exp(value);
                self.s(")");
            }
            ExpKind::RecordUpdate {
                target,
                fields,
                value,
            } => {
                self.s("(");
                self.exp(target);
                self.s(" with ");
                for (i, (f, _)) in fields.iter().enumerate() {
                    if i > 0 {
                        self.s(".");
                    }
                    self.s(f);
                }
                self.s(" = ");
                self.exp(value);
                self.s(")");
            }
            ExpKind::Range {
                start,
                second,
                end,
                kind,
            } => {
                self.s("(");
                self.exp(start);
                if let Some(s) = second {
                    self.s("..");
                    self.exp(s);
                }
                self.s(match kind {
                    RangeKind::UpToExclusive => "..<",
                    RangeKind::Inclusive => "...",
                    RangeKind::DownToExclusive => "..>",
                });
                self.exp(end);
                self.s(")");
            }
            ExpKind::Ascribe { exp, ty } => {
                self.s("(");
                self.exp(exp);
                self.s(" : ");
                self.ty(ty);
                self.s(")");
            }
            ExpKind::Coerce { exp, ty } => {
                self.s("(");
                self.exp(exp);
                self.s(" :> ");
                self.ty(ty);
                self.s(")");
            }
            ExpKind::LocalOpen { module, body, .. } => {
                let _ = write!(self.out, "{module}.(");
                self.exp(body);
                self.s(")");
            }
            ExpKind::Attr { attr, exp } => {
                self.s("(#[");
                self.attr(attr);
                self.s("] ");
                self.exp(exp);
                self.s(")");
            }
            ExpKind::Assert { cond, body } => {
                self.s("(assert ");
                self.exp_atom(cond);
                self.s(" ");
                self.exp(body);
                self.s(")");
            }
            ExpKind::Match { scrutinee, cases } => {
                self.s("(match ");
                self.exp(scrutinee);
                for c in cases {
                    self.s(" case ");
                    self.pat(&c.pat);
                    self.s(" -> ");
                    self.exp(&c.body);
                }
                self.s(")");
            }
            ExpKind::Constructor { name, args } => {
                if args.is_empty() {
                    let _ = write!(self.out, "#{name}");
                } else {
                    let _ = write!(self.out, "(#{name}");
                    for a in args {
                        self.s(" ");
                        self.exp(a);
                    }
                    self.s(")");
                }
            }
            ExpKind::Hole => self.s("???"),
        }
    }

    /// An expression that must print as an atom (before `[`, `.`): a name, or anything
    /// else in parentheses.
    fn exp_atom(&mut self, e: &Exp) {
        match &e.kind {
            ExpKind::Parens(inner) => self.exp_atom(inner),
            ExpKind::Int(_) | ExpKind::Float(_) => {
                self.s("(");
                self.exp(e);
                self.s(")");
            }
            _ => self.exp(e),
        }
    }
}
