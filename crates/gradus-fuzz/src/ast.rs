//! The generated programs: a small expression tree of the source language, and its printer.
//!
//! The tree only covers what the generator writes, and prints every compound expression in
//! parentheses, so printing never depends on precedence. The shrinker edits the same tree
//! ([`Exp::children_mut`]) and prints it again.

use gradus::value::{PrimType, Scalar};
use std::fmt::Write;

/// A size: the name of an `i64` size variable in scope, or `None` for a size the generator
/// does not know (the result of `filter`, a slice, or a branch). Only an array's outermost
/// dimension may be unknown.
pub type Dim = Option<String>;

/// The type of a generated expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A primitive value.
    Prim(PrimType),
    /// An array of primitives, outermost dimension first (rank 1 to 3).
    Array(PrimType, Vec<Dim>),
}

impl Ty {
    /// The element type.
    pub fn elem(&self) -> PrimType {
        match self {
            Ty::Prim(t) | Ty::Array(t, _) => *t,
        }
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        match self {
            Ty::Prim(_) => 0,
            Ty::Array(_, d) => d.len(),
        }
    }

    /// The type of an element of this array: one dimension less.
    pub fn row(&self) -> Ty {
        match self {
            Ty::Array(t, d) if d.len() > 1 => Ty::Array(*t, d[1..].to_vec()),
            _ => Ty::Prim(self.elem()),
        }
    }

    /// The type with `d` as a new outermost dimension.
    pub fn with_outer(&self, d: Dim) -> Ty {
        match self {
            Ty::Prim(t) => Ty::Array(*t, vec![d]),
            Ty::Array(t, ds) => {
                let mut all = vec![d];
                all.extend(ds.iter().cloned());
                Ty::Array(*t, all)
            }
        }
    }

    /// The dimensions (empty for a primitive).
    pub fn dims(&self) -> &[Dim] {
        match self {
            Ty::Prim(_) => &[],
            Ty::Array(_, d) => d,
        }
    }

    /// The type as written in a parameter (every dimension must be known).
    pub fn source(&self) -> String {
        let mut s = String::new();
        for d in self.dims() {
            let _ = write!(s, "[{}]", d.as_deref().unwrap_or(""));
        }
        s + self.elem().name()
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Exp {
    /// A literal with its type suffix.
    Lit(Scalar),
    /// A variable.
    Var(String),
    /// `(a op b)`
    Bin(&'static str, Box<Exp>, Box<Exp>),
    /// `(-e)`
    Neg(Box<Exp>),
    /// `(!e)`
    Not(Box<Exp>),
    /// `(f a b ...)`: a prelude function, a numeric-module function (`f64.sin`) or a SOAC.
    App(String, Vec<Exp>),
    /// An operator section `(+)`.
    Op(&'static str),
    /// `(\p q -> body)`
    Lambda(Vec<String>, Box<Exp>),
    /// `(if c then a else b)`
    If(Box<Exp>, Box<Exp>, Box<Exp>),
    /// `(let x = e in body)`
    Let(String, Box<Exp>, Box<Exp>),
    /// `(let name = copy src in let name[index] = value in body)`
    Update {
        /// The updated array's name.
        name: String,
        /// The array copied.
        src: Box<Exp>,
        /// One index per dimension updated.
        index: Vec<Exp>,
        /// The element or row written.
        value: Box<Exp>,
        /// The expression in which the updated array is in scope.
        body: Box<Exp>,
    },
    /// `(a with [i, j] = v)`: an in-place update consuming `a`.
    With(Box<Exp>, Vec<Exp>, Box<Exp>),
    /// `a[i, j]`
    Index(Box<Exp>, Vec<Exp>),
    /// `a[lo:hi]`, either bound optional.
    Slice(Box<Exp>, Option<Box<Exp>>, Option<Box<Exp>>),
    /// `(loop acc = init for var < bound do body)`
    LoopFor {
        /// The loop variable.
        acc: String,
        /// Its initial value.
        init: Box<Exp>,
        /// The counter.
        var: String,
        /// The number of iterations.
        bound: Box<Exp>,
        /// The new value of `acc`.
        body: Box<Exp>,
    },
    /// `(loop acc = init for var in arr do body)`
    LoopIn {
        /// The loop variable.
        acc: String,
        /// Its initial value.
        init: Box<Exp>,
        /// The element variable.
        var: String,
        /// The array iterated over.
        arr: Box<Exp>,
        /// The new value of `acc`.
        body: Box<Exp>,
    },
    /// `((loop (acc, counter) = (init, 0i64) while counter < bound do (body, counter + 1)).0)`
    LoopWhile {
        /// The loop variable.
        acc: String,
        /// The iteration counter.
        counter: String,
        /// Its initial value.
        init: Box<Exp>,
        /// The number of iterations.
        bound: Box<Exp>,
        /// The new value of `acc`.
        body: Box<Exp>,
    },
    /// `(a, b, ...)`
    Tuple(Vec<Exp>),
    /// `(e).k`
    Proj(Box<Exp>, usize),
    /// `((loop (a, b) = (ia, ib) for var < bound do (ba, bb)).pick)`: a loop over a tuple.
    LoopTuple {
        /// The loop variables.
        accs: Vec<String>,
        /// Their initial values.
        inits: Vec<Exp>,
        /// The counter.
        var: String,
        /// The number of iterations.
        bound: Box<Exp>,
        /// The new values.
        bodies: Vec<Exp>,
        /// The component returned.
        pick: usize,
    },
    /// Source text taken as it is (AD wrappers).
    Raw(String),
}

/// Shorthand constructors, used by the generator.
impl Exp {
    /// A variable.
    pub fn var(name: &str) -> Exp {
        Exp::Var(name.to_string())
    }

    /// An application.
    pub fn app(f: &str, args: Vec<Exp>) -> Exp {
        Exp::App(f.to_string(), args)
    }

    /// A binary operation.
    pub fn bin(op: &'static str, a: Exp, b: Exp) -> Exp {
        Exp::Bin(op, Box::new(a), Box::new(b))
    }

    /// A lambda.
    pub fn lambda(params: &[&str], body: Exp) -> Exp {
        Exp::Lambda(
            params.iter().map(|p| p.to_string()).collect(),
            Box::new(body),
        )
    }

    /// An `i64` literal.
    pub fn i64(v: i64) -> Exp {
        Exp::Lit(Scalar::I64(v))
    }

    /// The direct subexpressions, in printing order.
    pub fn children_mut(&mut self) -> Vec<&mut Exp> {
        match self {
            Exp::Lit(_) | Exp::Var(_) | Exp::Op(_) | Exp::Raw(_) => vec![],
            Exp::Bin(_, a, b) => vec![a, b],
            Exp::Neg(a) | Exp::Not(a) | Exp::Lambda(_, a) => vec![a],
            Exp::App(_, args) => args.iter_mut().collect(),
            Exp::If(c, a, b) => vec![c, a, b],
            Exp::Let(_, e, b) => vec![e, b],
            Exp::Update {
                src,
                index,
                value,
                body,
                ..
            } => {
                let mut v: Vec<&mut Exp> = vec![src];
                v.extend(index.iter_mut());
                v.push(value);
                v.push(body);
                v
            }
            Exp::Index(a, idx) => {
                let mut v: Vec<&mut Exp> = vec![a];
                v.extend(idx.iter_mut());
                v
            }
            Exp::With(a, idx, value) => {
                let mut v: Vec<&mut Exp> = vec![a];
                v.extend(idx.iter_mut());
                v.push(value);
                v
            }
            Exp::Slice(a, lo, hi) => {
                let mut v: Vec<&mut Exp> = vec![a];
                v.extend(lo.iter_mut().map(|b| &mut **b));
                v.extend(hi.iter_mut().map(|b| &mut **b));
                v
            }
            Exp::LoopFor {
                init, bound, body, ..
            }
            | Exp::LoopWhile {
                init, bound, body, ..
            } => vec![init, bound, body],
            Exp::LoopIn {
                init, arr, body, ..
            } => vec![init, arr, body],
            Exp::Tuple(items) => items.iter_mut().collect(),
            Exp::Proj(e, _) => vec![e],
            Exp::LoopTuple {
                inits,
                bound,
                bodies,
                ..
            } => {
                let mut v: Vec<&mut Exp> = inits.iter_mut().collect();
                v.push(bound);
                v.extend(bodies.iter_mut());
                v
            }
        }
    }

    /// The number of nodes of the tree.
    pub fn size(&self) -> usize {
        1 + self
            .clone()
            .children_mut()
            .into_iter()
            .map(|c| c.size())
            .sum::<usize>()
    }

    /// The expression as source text.
    pub fn print(&self) -> String {
        let mut out = String::new();
        self.print_into(&mut out);
        out
    }

    fn print_into(&self, o: &mut String) {
        match self {
            Exp::Lit(s) => o.push_str(&literal(*s)),
            Exp::Var(x) => o.push_str(x),
            Exp::Bin(op, a, b) => {
                o.push('(');
                a.print_into(o);
                let _ = write!(o, " {op} ");
                b.print_into(o);
                o.push(')');
            }
            Exp::Neg(a) => {
                o.push_str("(-");
                a.print_into(o);
                o.push(')');
            }
            Exp::Not(a) => {
                o.push_str("(!");
                a.print_into(o);
                o.push(')');
            }
            Exp::App(f, args) => {
                o.push('(');
                o.push_str(f);
                for a in args {
                    o.push(' ');
                    a.print_into(o);
                }
                o.push(')');
            }
            Exp::Op(op) => {
                let _ = write!(o, "({op})");
            }
            Exp::Lambda(ps, body) => {
                o.push_str("(\\");
                o.push_str(&ps.join(" "));
                o.push_str(" -> ");
                body.print_into(o);
                o.push(')');
            }
            Exp::If(c, a, b) => {
                o.push_str("(if ");
                c.print_into(o);
                o.push_str(" then ");
                a.print_into(o);
                o.push_str(" else ");
                b.print_into(o);
                o.push(')');
            }
            Exp::Let(x, e, body) => {
                let _ = write!(o, "(let {x} = ");
                e.print_into(o);
                o.push_str(" in ");
                body.print_into(o);
                o.push(')');
            }
            Exp::Update {
                name,
                src,
                index,
                value,
                body,
            } => {
                let _ = write!(o, "(let {name} = copy ");
                src.print_into(o);
                let _ = write!(o, " in let {name}[");
                print_list(index, o);
                o.push_str("] = ");
                value.print_into(o);
                o.push_str(" in ");
                body.print_into(o);
                o.push(')');
            }
            Exp::Index(a, idx) => {
                print_indexee(a, o);
                o.push('[');
                print_list(idx, o);
                o.push(']');
            }
            Exp::With(a, idx, value) => {
                o.push('(');
                a.print_into(o);
                o.push_str(" with [");
                print_list(idx, o);
                o.push_str("] = ");
                value.print_into(o);
                o.push(')');
            }
            Exp::Slice(a, lo, hi) => {
                print_indexee(a, o);
                o.push('[');
                if let Some(lo) = lo {
                    lo.print_into(o);
                }
                o.push(':');
                if let Some(hi) = hi {
                    hi.print_into(o);
                }
                o.push(']');
            }
            Exp::LoopFor {
                acc,
                init,
                var,
                bound,
                body,
            } => {
                let _ = write!(o, "(loop {acc} = ");
                init.print_into(o);
                let _ = write!(o, " for {var} < ");
                bound.print_into(o);
                o.push_str(" do ");
                body.print_into(o);
                o.push(')');
            }
            Exp::LoopIn {
                acc,
                init,
                var,
                arr,
                body,
            } => {
                let _ = write!(o, "(loop {acc} = ");
                init.print_into(o);
                let _ = write!(o, " for {var} in ");
                arr.print_into(o);
                o.push_str(" do ");
                body.print_into(o);
                o.push(')');
            }
            Exp::LoopWhile {
                acc,
                counter,
                init,
                bound,
                body,
            } => {
                let _ = write!(o, "((loop ({acc}, {counter}) = (");
                init.print_into(o);
                let _ = write!(o, ", 0i64) while {counter} < ");
                bound.print_into(o);
                o.push_str(" do (");
                body.print_into(o);
                let _ = write!(o, ", {counter} + 1)).0)");
            }
            Exp::Tuple(items) => {
                o.push('(');
                print_list(items, o);
                o.push(')');
            }
            Exp::Proj(e, k) => {
                let s = e.print();
                if s.starts_with('(') {
                    let _ = write!(o, "({s}.{k})");
                } else {
                    let _ = write!(o, "(({s}).{k})");
                }
            }
            Exp::LoopTuple {
                accs,
                inits,
                var,
                bound,
                bodies,
                pick,
            } => {
                let _ = write!(o, "((loop ({}) = (", accs.join(", "));
                print_list(inits, o);
                let _ = write!(o, ") for {var} < ");
                bound.print_into(o);
                o.push_str(" do (");
                print_list(bodies, o);
                let _ = write!(o, ")).{pick})");
            }
            Exp::Raw(s) => o.push_str(s),
        }
    }
}

/// An indexed expression must be a name or parenthesised: `a[i]`, `(f x)[i]`; a bracket right
/// after a name is an index (docs/language.md §Brackets and spacing), so a parenthesised expression
/// needs no space.
fn print_indexee(a: &Exp, o: &mut String) {
    match a {
        Exp::Var(x) => o.push_str(x),
        _ => {
            let s = a.print();
            if s.starts_with('(') {
                o.push_str(&s);
            } else {
                let _ = write!(o, "({s})");
            }
        }
    }
}

fn print_list(items: &[Exp], o: &mut String) {
    for (k, e) in items.iter().enumerate() {
        if k > 0 {
            o.push_str(", ");
        }
        e.print_into(o);
    }
}

/// A literal as source text, with its suffix, negative ones in parentheses.
pub fn literal(s: Scalar) -> String {
    let text = gradus::data::format_scalar(s);
    if text.starts_with('-') {
        format!("({text})")
    } else {
        text
    }
}

/// An entry point.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// Size parameters, in order.
    pub sizes: Vec<String>,
    /// Value parameters and their types.
    pub params: Vec<(String, Ty)>,
    /// The type of the body (of its first component when [`Entry::tuple`]).
    pub result: Ty,
    /// The body.
    pub body: Exp,
    /// The parameters declared unique (`*`), which the body may consume.
    pub unique: Vec<String>,
    /// Whether the body is a tuple (entry points only; never called).
    pub tuple: bool,
}

impl Entry {
    /// The entry point as source text.
    pub fn print(&self) -> String {
        self.print_as("entry")
    }

    /// The same as a function (`def`), with its result type when every size of it is known.
    pub fn print_as(&self, keyword: &str) -> String {
        let mut s = format!("{keyword} {}", self.name);
        for n in &self.sizes {
            let _ = write!(s, " [{n}]");
        }
        for (p, t) in &self.params {
            let star = if self.unique.contains(p) { "*" } else { "" };
            let _ = write!(s, " ({p}: {star}{})", t.source());
        }
        if keyword == "def" && !self.tuple && self.result.dims().iter().all(|d| d.is_some()) {
            let _ = write!(s, " : {}", self.result.source());
        }
        let _ = write!(s, " =\n  {}\n", self.body.print());
        s
    }
}

/// A generated program: helper functions and entry points.
#[derive(Clone, Debug, PartialEq)]
pub struct GenProgram {
    /// Functions the entry points may call.
    pub helpers: Vec<Entry>,
    /// The entry points.
    pub entries: Vec<Entry>,
}

impl GenProgram {
    /// The helper functions as source text.
    pub fn print_helpers(&self) -> String {
        let mut s = String::new();
        for h in &self.helpers {
            s.push_str(&h.print_as("def"));
            s.push('\n');
        }
        s
    }

    /// The program as source text.
    pub fn print(&self) -> String {
        let mut s = self.print_helpers();
        for e in &self.entries {
            s.push_str(&e.print());
            s.push('\n');
        }
        s
    }
}
