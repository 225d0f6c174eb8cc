//! The random program generator: well-typed entry points of the language's first tier, and
//! random inputs for them, reproducible from a seed.
//!
//! Generation is type-directed: [`Gen::exp`] is asked for an expression of a given [`Ty`] and
//! picks a production that yields it, asking recursively for the subexpressions' types. Sizes
//! are tracked by name, as the type checker tracks them: an array's dimensions are size
//! variables in scope (the entry point's size parameters, or local ones bound to a
//! non-negative `i64` inside a lambda or a loop, which makes irregular sizes inside `map`), and
//! only an outermost dimension may be unknown (the result of `filter`, a slice, `++`).
//! Productions that would fail at run time are guarded (indices taken modulo the size under a
//! test that the size is positive, divisors made odd) except with a small probability, so that
//! run-time errors are generated too, but most calls return values.
//!
//! In [`Mode::Smooth`] the generator writes programs for the AD checks: `f64` arithmetic with
//! smooth primitives only, control flow that depends only on integers, and no `filter`.

use crate::ast::{Dim, Entry, Exp, Ty};
use gradus::value::{Array, Buffer, PrimType, Scalar, Value};
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_pcg::Pcg64;
use std::collections::BTreeMap;

/// Which programs to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every type and construct, run-time errors included.
    General,
    /// Smooth `f64` programs for the AD checks.
    Smooth,
}

/// How often each construct was generated (for the long mode's summary).
#[derive(Clone, Debug, Default)]
pub struct Coverage(pub BTreeMap<&'static str, u64>);

impl Coverage {
    /// Counts one use of `what`.
    pub fn note(&mut self, what: &'static str) {
        *self.0.entry(what).or_default() += 1;
    }

    /// Adds another coverage count to this one.
    pub fn merge(&mut self, other: &Coverage) {
        for (k, v) in &other.0 {
            *self.0.entry(k).or_default() += v;
        }
    }
}

/// The state of one generation: the random source, what is in scope, fresh-name counter.
pub struct Gen<'r> {
    rng: &'r mut Pcg64,
    mode: Mode,
    vars: Vec<(String, Ty)>,
    sizes: Vec<String>,
    next: usize,
    helpers: Vec<Entry>,
    /// Whether entry points may declare an array parameter unique and update it in place
    /// after reading it ([`Gen::entry`]).
    pub consume: bool,
    /// In smooth mode, also control flow and indexing that depend on float values:
    /// conditions that compare floats, `i64.f64` (indices and loop counts), `max`, `min`,
    /// `abs`, and `floor`, `ceil`, `round`, `trunc` (no derivative, a value that may steer). Such functions are differentiable almost everywhere but not smooth: the sparse
    /// checks take them ([`crate::sparse_check`]), the finite-difference checks do not.
    pub value_control: bool,
    /// What was generated.
    pub coverage: Coverage,
}

/// The types of the general mode, weighted towards the common ones.
const PRIMS: &[(PrimType, u32)] = &[
    (PrimType::I64, 4),
    (PrimType::I32, 3),
    (PrimType::F64, 4),
    (PrimType::Bool, 2),
    (PrimType::F32, 2),
    (PrimType::I8, 1),
    (PrimType::I16, 1),
    (PrimType::U8, 1),
    (PrimType::U16, 1),
    (PrimType::U32, 1),
    (PrimType::U64, 1),
];

/// The names of the entry points' size parameters.
pub const SIZE_NAMES: [&str; 3] = ["n", "m", "k"];

/// The probability of an unguarded index, division or slice.
const UNGUARDED: f64 = 0.05;

impl<'r> Gen<'r> {
    /// A generator drawing from `rng`.
    pub fn new(rng: &'r mut Pcg64, mode: Mode) -> Self {
        Gen {
            rng,
            mode,
            vars: Vec::new(),
            sizes: Vec::new(),
            next: 0,
            helpers: Vec::new(),
            consume: false,
            value_control: false,
            coverage: Coverage::default(),
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.random_bool(p)
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.random_range(0..n)
    }

    /// A new name. The underscore keeps it apart from the numeric modules (`u8`, `i32`).
    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}_{}", self.next)
    }

    fn prim(&mut self) -> PrimType {
        if self.mode == Mode::Smooth {
            return if self.chance(0.8) {
                PrimType::F64
            } else {
                PrimType::I64
            };
        }
        let total: u32 = PRIMS.iter().map(|(_, w)| w).sum();
        let mut r = self.rng.random_range(0..total);
        for (t, w) in PRIMS {
            if r < *w {
                return *t;
            }
            r -= w;
        }
        PrimType::I64
    }

    /// A size variable in scope, preferring the most recent (local sizes).
    fn size(&mut self) -> String {
        if self.sizes.len() > 1 && self.chance(0.4) {
            return self.sizes.last().unwrap().clone();
        }
        self.sizes.choose(self.rng).unwrap().clone()
    }

    /// A random type in scope: primitive or array of rank 1 to 3.
    fn any_ty(&mut self, allow_unknown: bool) -> Ty {
        let t = self.prim();
        let rank = *[0usize, 0, 1, 1, 1, 2, 2, 3].choose(self.rng).unwrap();
        if rank == 0 {
            return Ty::Prim(t);
        }
        let mut dims: Vec<Dim> = (0..rank).map(|_| Some(self.size())).collect();
        if allow_unknown && self.chance(0.2) {
            dims[0] = None;
        }
        Ty::Array(t, dims)
    }

    fn with_var<T>(&mut self, name: &str, ty: Ty, f: impl FnOnce(&mut Self) -> T) -> T {
        self.vars.push((name.to_string(), ty));
        let r = f(self);
        self.vars.pop();
        r
    }

    fn with_size<T>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> T) -> T {
        self.sizes.push(name.to_string());
        let r = self.with_var(name, Ty::Prim(PrimType::I64), f);
        self.sizes.pop();
        r
    }

    /// A variable of type `ty` in scope; an unknown outer dimension of `ty` matches any.
    fn var_of(&mut self, ty: &Ty) -> Option<Exp> {
        let fits: Vec<String> = self
            .vars
            .iter()
            .filter(|(_, t)| match (t, ty) {
                (Ty::Array(a, da), Ty::Array(b, db)) => {
                    a == b
                        && da.len() == db.len()
                        && (db[0].is_none() || da[0] == db[0])
                        && da[1..] == db[1..]
                }
                _ => t == ty,
            })
            .map(|(n, _)| n.clone())
            .collect();
        // The most recent variables (a lambda's parameters, a loop's accumulator) first.
        if fits.len() > 1 && self.chance(0.5) {
            return Some(Exp::var(&fits[fits.len() - 1]));
        }
        fits.choose(self.rng).map(|n| Exp::var(n))
    }

    /// A variable in scope whose type satisfies `want`, with its type.
    fn var_where(&mut self, want: impl Fn(&Ty) -> bool) -> Option<(String, Ty)> {
        let fits: Vec<(String, Ty)> = self.vars.iter().filter(|(_, t)| want(t)).cloned().collect();
        fits.choose(self.rng).cloned()
    }

    /// A literal of type `t`: mostly small, sometimes (in the general mode) at the edges of
    /// its type: extreme integers, and NaN, infinities, zeros of both signs, subnormal, tiny
    /// and huge floats.
    pub fn literal(&mut self, t: PrimType) -> Exp {
        if self.mode == Mode::General && t != PrimType::Bool && self.chance(0.08) {
            self.coverage.note("edge-literal");
            return Exp::Lit(edge(self.rng, t));
        }
        let s = match t {
            PrimType::Bool => Scalar::Bool(self.chance(0.5)),
            PrimType::F32 | PrimType::F64 => {
                let v = self.rng.random_range(-6i32..=6) as f64 / 2.0;
                Scalar::from_f64(t, v)
            }
            _ if t.is_unsigned_int() => Scalar::from_i128(t, self.rng.random_range(0..=9)),
            _ => Scalar::from_i128(t, self.rng.random_range(-5..=9)),
        };
        Exp::Lit(s)
    }

    fn leaf(&mut self, t: PrimType) -> Exp {
        if self.chance(0.85)
            && let Some(v) = self.var_of(&Ty::Prim(t))
        {
            return v;
        }
        self.literal(t)
    }

    /// A non-negative `i64` smaller than 5 (a local size or a loop count).
    fn small_count(&mut self, depth: usize) -> Exp {
        if depth == 0 || self.chance(0.3) {
            if self.chance(0.5) && !self.sizes.is_empty() {
                return Exp::var(&self.size());
            }
            return Exp::i64(self.rng.random_range(0..=4));
        }
        let e = self.exp(&Ty::Prim(PrimType::I64), depth - 1);
        Exp::bin("%", e, Exp::i64(5))
    }

    /// An expression of type `ty`, at most `depth` constructs deep.
    pub fn exp(&mut self, ty: &Ty, depth: usize) -> Exp {
        match ty {
            Ty::Prim(t) => self.prim_exp(*t, depth),
            Ty::Array(t, dims) => self.array_exp(*t, dims, depth),
        }
    }

    fn prim_exp(&mut self, t: PrimType, depth: usize) -> Exp {
        if depth == 0 || self.chance(0.15) {
            return self.leaf(t);
        }
        let d = depth - 1;
        loop {
            match self.below(13) {
                0 | 1 if t != PrimType::Bool => return self.arith(t, d),
                0 | 1 => return self.boolean(d),
                2 if t.is_float() => return self.math(t, d),
                3 if t != PrimType::Bool && self.mode == Mode::General => {
                    return self.conversion(t, d);
                }
                3 if t == PrimType::I64 && self.value_control => {
                    self.coverage.note("float-to-index");
                    return Exp::app("i64.f64", vec![self.prim_exp(PrimType::F64, d)]);
                }
                4 => {
                    self.coverage.note("if");
                    let c = self.condition(d);
                    return Exp::If(
                        Box::new(c),
                        Box::new(self.prim_exp(t, d)),
                        Box::new(self.prim_exp(t, d)),
                    );
                }
                5 => return self.let_in(&Ty::Prim(t), d),
                6 => return self.index_scalar(t, d),
                7 => return self.reduce(t, d),
                8 if t == PrimType::I64 => {
                    self.coverage.note("length");
                    let ty = self.any_ty(true);
                    if ty.rank() > 0 {
                        return Exp::app("length", vec![self.exp(&ty, d)]);
                    }
                }
                9 => return self.loop_exp(&Ty::Prim(t), d),
                10 => return self.local_sizes(&Ty::Prim(t), d),
                11 if t != PrimType::Bool => return self.arith(t, d),
                12 => {
                    if self.chance(0.5)
                        && let Some(call) = self.call_helper(&Ty::Prim(t), d)
                    {
                        return call;
                    }
                    if self.mode == Mode::General && self.chance(0.5) {
                        return self.tuple_loop(&Ty::Prim(t), d);
                    }
                    return self.leaf(t);
                }
                _ => {}
            }
        }
    }

    /// A boolean: a comparison or a logical combination. In smooth mode comparisons are of
    /// integers only, so that control flow does not depend on the differentiated input, unless
    /// [`Gen::value_control`] (then half of the conditions compare floats).
    fn condition(&mut self, depth: usize) -> Exp {
        if self.value_control && self.chance(0.5) {
            self.coverage.note("float-compare");
            let op = *["<", "<=", ">", ">="].choose(self.rng).unwrap();
            let d = depth.saturating_sub(1);
            return Exp::bin(
                op,
                self.prim_exp(PrimType::F64, d),
                self.prim_exp(PrimType::F64, d),
            );
        }
        self.prim_exp(PrimType::Bool, depth)
    }

    fn boolean(&mut self, d: usize) -> Exp {
        match self.below(5) {
            4 if self.mode == Mode::General => self.conversion(PrimType::Bool, d),
            0 => {
                self.coverage.note("logic");
                let op = *["&&", "||"].choose(self.rng).unwrap();
                Exp::bin(op, self.condition(d), self.condition(d))
            }
            1 => Exp::Not(Box::new(self.condition(d))),
            _ => {
                self.coverage.note("compare");
                let u = loop {
                    let u = self.prim();
                    let allowed = match self.mode {
                        Mode::General => u != PrimType::Bool,
                        Mode::Smooth => u == PrimType::I64 || self.value_control,
                    };
                    if allowed {
                        break u;
                    }
                };
                if self.mode == Mode::Smooth && u.is_float() {
                    self.coverage.note("float-compare");
                }
                let op = *["==", "!=", "<", "<=", ">", ">="].choose(self.rng).unwrap();
                Exp::bin(op, self.prim_exp(u, d), self.prim_exp(u, d))
            }
        }
    }

    fn arith(&mut self, t: PrimType, d: usize) -> Exp {
        let a = self.prim_exp(t, d);
        let b = self.prim_exp(t, d);
        let name = t.name();
        if t.is_float() {
            self.coverage.note("float-arith");
            let smooth = self.mode == Mode::Smooth;
            if !smooth && self.chance(0.25) {
                return self.float_identity(t, a, b);
            }
            if smooth && self.value_control && self.chance(0.2) {
                self.coverage.note("float-max-min-abs");
                return match self.below(3) {
                    0 => Exp::app(&format!("{name}.max"), vec![a, b]),
                    1 => Exp::app(&format!("{name}.min"), vec![a, b]),
                    _ => Exp::app(&format!("{name}.abs"), vec![a]),
                };
            }
            return match self.below(if smooth { 5 } else { 9 }) {
                0 => Exp::bin("+", a, b),
                1 => Exp::bin("-", a, b),
                2 => Exp::bin("*", a, b),
                3 if smooth => {
                    // a / (1 + b * b): smooth everywhere.
                    let denom = Exp::bin("+", self.literal_one(t), Exp::bin("*", b.clone(), b));
                    Exp::bin("/", a, denom)
                }
                3 => Exp::bin("/", a, b),
                4 => Exp::Neg(Box::new(a)),
                5 => Exp::app(&format!("{name}.max"), vec![a, b]),
                6 => Exp::app(&format!("{name}.min"), vec![a, b]),
                7 => Exp::bin("%", a, b),
                _ => Exp::app(&format!("{name}.abs"), vec![a]),
            };
        }
        self.coverage.note("int-arith");
        let guarded = |g: &mut Self, b: Exp| {
            if g.chance(UNGUARDED) {
                g.coverage.note("unguarded-division");
                b
            } else {
                Exp::bin("|", b, Exp::Lit(Scalar::from_i128(t, 1)))
            }
        };
        match self.below(16) {
            0 | 1 => Exp::bin("+", a, b),
            2 => Exp::bin("-", a, b),
            3 | 4 => Exp::bin("*", a, b),
            5 => {
                self.coverage.note("division");
                let op = *["/", "%", "//", "%%"].choose(self.rng).unwrap();
                let b = guarded(self, b);
                Exp::bin(op, a, b)
            }
            6 => Exp::bin("&", a, b),
            7 => Exp::bin("|", a, b),
            8 => Exp::bin("^", a, b),
            9 if self.mode == Mode::General => {
                self.coverage.note("shift");
                let op = *["<<", ">>"].choose(self.rng).unwrap();
                Exp::bin(op, a, b)
            }
            10 => {
                self.coverage.note("power");
                let e = Exp::bin("&", b, Exp::Lit(Scalar::from_i128(t, 3)));
                Exp::bin("**", a, e)
            }
            11 => Exp::app(&format!("{name}.max"), vec![a, b]),
            12 => Exp::app(&format!("{name}.min"), vec![a, b]),
            13 if t.is_signed_int() => Exp::Neg(Box::new(a)),
            14 if t.is_signed_int() => Exp::app(&format!("{name}.abs"), vec![a]),
            _ => Exp::bin("+", a, b),
        }
    }

    /// An expression that is an identity, or a constant, for finite values only or only up
    /// to the sign of a zero (`0 * x`, `x * 0 + y`, `x - x`, `x / x`, `0 / x`, `x + 0`), or
    /// exactly (`x * 1`, `x - 0`, `-0 + x`, `x / 1`): IEEE 754 gives NaN, an infinity or a
    /// zero of the other sign for some `x`, and the optimiser must keep that.
    fn float_identity(&mut self, t: PrimType, a: Exp, b: Exp) -> Exp {
        self.coverage.note("float-identity");
        // Often a variable: the inputs carry the NaNs and infinities.
        let a = if self.chance(0.5) { self.leaf(t) } else { a };
        let lit = |v: f64| Exp::Lit(Scalar::from_f64(t, v));
        let zero = if self.chance(0.75) { 0.0 } else { -0.0 };
        match self.below(12) {
            0 => Exp::bin("*", lit(zero), a),
            1 => Exp::bin("*", a, lit(zero)),
            2 => Exp::bin("+", Exp::bin("*", a, lit(zero)), b),
            3 => Exp::bin("-", a.clone(), a),
            4 => Exp::bin("/", a.clone(), a),
            5 => Exp::bin("/", lit(zero), a),
            6 => Exp::bin("+", a, lit(zero)),
            7 => Exp::bin("+", lit(zero), a),
            8 => Exp::bin("*", a, lit(1.0)),
            9 => Exp::bin("-", a, lit(zero)),
            10 => Exp::bin("/", a, lit(if zero == 0.0 { 1.0 } else { -1.0 })),
            _ => Exp::bin("-", lit(zero), a),
        }
    }

    fn literal_one(&self, t: PrimType) -> Exp {
        Exp::Lit(Scalar::one(t))
    }

    fn math(&mut self, t: PrimType, d: usize) -> Exp {
        self.coverage.note("float-math");
        let name = t.name();
        let a = self.prim_exp(t, d);
        let f = |s: &str| format!("{name}.{s}");
        if self.mode == Mode::Smooth && self.value_control && self.chance(0.25) {
            self.coverage.note("float-piecewise-constant");
            let fun = *["floor", "ceil", "round", "trunc"]
                .choose(self.rng)
                .unwrap();
            return Exp::app(&f(fun), vec![a]);
        }
        if self.mode == Mode::Smooth {
            let one = self.literal_one(t);
            let sq = Exp::bin("+", one, Exp::bin("*", a.clone(), a.clone()));
            return match self.below(6) {
                0 => Exp::app(&f("sin"), vec![a]),
                1 => Exp::app(&f("cos"), vec![a]),
                2 => Exp::app(&f("tanh"), vec![a]),
                3 => Exp::app(&f("exp"), vec![Exp::app(&f("sin"), vec![a])]),
                4 => Exp::app(&f("sqrt"), vec![sq]),
                _ => Exp::app(&f("log"), vec![sq]),
            };
        }
        let fun = *[
            "sin", "cos", "exp", "log", "sqrt", "tanh", "floor", "ceil", "round", "trunc",
        ]
        .choose(self.rng)
        .unwrap();
        Exp::app(&f(fun), vec![a])
    }

    /// A conversion to `t` from any other type, drawn uniformly so that every pair is
    /// generated; the operand is sometimes a literal at the edge of its type.
    fn conversion(&mut self, t: PrimType, d: usize) -> Exp {
        self.coverage.note("conversion");
        let u = loop {
            let u = *PrimType::ALL.choose(self.rng).unwrap();
            if u != t {
                break u;
            }
        };
        if u.is_signed_int() && t.is_unsigned_int() && t.bits() > u.bits() {
            self.coverage.note("conversion-signed-to-wider-unsigned");
        }
        if u.is_float() && t.is_int() {
            self.coverage.note("conversion-float-to-int");
        }
        if u == PrimType::Bool {
            return Exp::app(&format!("{}.bool", t.name()), vec![self.condition(d)]);
        }
        let e = if self.chance(0.2) {
            self.coverage.note("edge-literal");
            Exp::Lit(edge(self.rng, u))
        } else {
            self.prim_exp(u, d)
        };
        Exp::app(&format!("{}.{}", t.name(), u.name()), vec![e])
    }

    fn let_in(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("let");
        let vty = self.any_ty(true);
        let x = self.fresh("v");
        let value = self.exp(&vty, d);
        let body = self.with_var(&x, vty, |g| g.exp(ty, d));
        Exp::Let(x, Box::new(value), Box::new(body))
    }

    /// The size of dimension `k` of the array named `a` of type `ty`.
    fn dim_size(a: &str, ty: &Ty, k: usize) -> Exp {
        match &ty.dims()[k] {
            Some(s) => Exp::var(s),
            None => Exp::app("length", vec![Exp::var(a)]),
        }
    }

    /// `a[i, ...]` with `rank` indices, guarded by a test that the sizes are positive unless
    /// unguarded; `fallback` is the value when a size is zero.
    fn guarded_index(&mut self, a: &str, ty: &Ty, rank: usize, fallback: Exp, d: usize) -> Exp {
        self.coverage.note("index");
        if self.chance(UNGUARDED) {
            self.coverage.note("unguarded-index");
            let idx = (0..rank)
                .map(|_| Exp::i64(self.rng.random_range(-1..=5)))
                .collect();
            return Exp::Index(Box::new(Exp::var(a)), idx);
        }
        let (idx, cond) = self.guarded_indices(a, ty, rank, d);
        Exp::If(
            Box::new(cond),
            Box::new(Exp::Index(Box::new(Exp::var(a)), idx)),
            Box::new(fallback),
        )
    }

    /// `rank` indices into the array `a` of type `ty` and the condition under which they are
    /// in bounds: either `i % size` under `size > 0`, or `i` itself under `i >= 0 && i <
    /// size` (a test the compiler can see proves the index in bounds).
    fn guarded_indices(&mut self, a: &str, ty: &Ty, rank: usize, d: usize) -> (Vec<Exp>, Exp) {
        let bounds_test = self.chance(0.4);
        if bounds_test {
            self.coverage.note("bounds-test");
        }
        let mut idx = Vec::new();
        let mut cond: Option<Exp> = None;
        for k in 0..rank {
            let size = Self::dim_size(a, ty, k);
            let i = self.prim_exp(PrimType::I64, d.min(1));
            let test = if bounds_test {
                idx.push(i.clone());
                Exp::bin(
                    "&&",
                    Exp::bin(">=", i.clone(), Exp::i64(0)),
                    Exp::bin("<", i, size),
                )
            } else {
                idx.push(Exp::bin("%", i, size.clone()));
                Exp::bin(">", size, Exp::i64(0))
            };
            cond = Some(match cond {
                None => test,
                Some(c) => Exp::bin("&&", c, test),
            });
        }
        (idx, cond.expect("rank is positive"))
    }

    fn index_scalar(&mut self, t: PrimType, d: usize) -> Exp {
        if self.chance(0.7)
            && let Some((a, aty)) = self.var_where(|ty| ty.rank() > 0 && ty.elem() == t)
        {
            let fallback = self.leaf(t);
            return self.guarded_index(&a, &aty, aty.rank(), fallback, d);
        }
        let rank = 1 + self.below(3);
        let mut dims: Vec<Dim> = (0..rank).map(|_| Some(self.size())).collect();
        if self.chance(0.2) {
            dims[0] = None;
        }
        let aty = Ty::Array(t, dims);
        let fallback = self.leaf(t);
        if let Some(Exp::Var(a)) = self.var_of(&aty) {
            let real = self
                .vars
                .iter()
                .rev()
                .find(|(n, _)| *n == a)
                .unwrap()
                .1
                .clone();
            return self.guarded_index(&a, &real, rank, fallback, d);
        }
        let a = self.fresh("a");
        let arr = self.exp(&aty, d);
        let body = self.with_var(&a, aty.clone(), |g| {
            g.guarded_index(&a, &aty, rank, fallback, d)
        });
        Exp::Let(a, Box::new(arr), Box::new(body))
    }

    /// An associative and commutative operator on `t` and its neutral element.
    fn operator(&mut self, t: PrimType) -> (Exp, Exp) {
        let name = t.name();
        let module = |f: &str| Exp::Raw(format!("{name}.{f}"));
        if t == PrimType::Bool {
            return if self.chance(0.5) {
                (Exp::Op("&&"), Exp::Lit(Scalar::Bool(true)))
            } else {
                (Exp::Op("||"), Exp::Lit(Scalar::Bool(false)))
            };
        }
        let zero = Exp::Lit(Scalar::zero(t));
        if self.mode == Mode::Smooth {
            return (Exp::Op("+"), zero);
        }
        let choices = if t.is_float() { 4 } else { 8 };
        match self.below(choices) {
            0 | 1 => (Exp::Op("+"), zero),
            2 => (module("max"), module("lowest")),
            3 => (module("min"), module("highest")),
            4 => (Exp::Op("*"), Exp::Lit(Scalar::one(t))),
            5 => (
                Exp::Op("&"),
                Exp::Lit(Scalar::from_i128(
                    t,
                    if t.is_unsigned_int() {
                        (1i128 << t.bits()) - 1
                    } else {
                        -1
                    },
                )),
            ),
            6 => (Exp::Op("|"), zero),
            _ => (
                Exp::lambda(&["p", "q"], Exp::bin("^", Exp::var("p"), Exp::var("q"))),
                zero,
            ),
        }
    }

    fn reduce(&mut self, t: PrimType, d: usize) -> Exp {
        self.coverage.note("reduce");
        let (op, ne) = self.operator(t);
        let existing = self.var_where(|ty| ty.rank() == 1 && ty.elem() == t);
        let arr = if let Some((v, _)) = existing.filter(|_| self.chance(0.5)) {
            Exp::var(&v)
        } else if self.chance(0.3) {
            self.irregular_array(t, d)
        } else {
            let dim = if self.chance(0.3) {
                None
            } else {
                Some(self.size())
            };
            self.array_exp(t, &[dim], d)
        };
        let f = if self.chance(0.2) {
            "reduce_comm"
        } else {
            "reduce"
        };
        Exp::app(f, vec![op, ne, arr])
    }

    /// A rank-1 array whose size is computed from values (not a size in scope): `iota`,
    /// `replicate` or a map over `iota` of `x % 5` for some `i64` x.
    fn irregular_array(&mut self, t: PrimType, d: usize) -> Exp {
        self.coverage.note("irregular");
        let count = self.small_count(d);
        let s = self.fresh("s");
        let body = self.with_size(&s, |g| g.array_exp(t, &[Some(s.clone())], d));
        Exp::Let(s, Box::new(count), Box::new(body))
    }

    /// Binds a local size (`x % 5` of some `i64`) and generates `ty` with it in scope: arrays
    /// built inside a lambda whose sizes differ from one element to the next.
    fn local_sizes(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("local-size");
        let count = self.small_count(d);
        let s = self.fresh("s");
        let body = self.with_size(&s, |g| g.exp(ty, d));
        Exp::Let(s, Box::new(count), Box::new(body))
    }

    fn loop_bound(&mut self, d: usize) -> Exp {
        self.small_count(d.min(1))
    }

    fn loop_exp(&mut self, ty: &Ty, d: usize) -> Exp {
        let acc = self.fresh("acc");
        let init = self.exp(ty, d);
        match self.below(3) {
            0 => {
                self.coverage.note("loop-for");
                let var = self.fresh("i");
                let bound = self.loop_bound(d);
                let body = self.with_var(&acc, ty.clone(), |g| {
                    g.with_var(&var, Ty::Prim(PrimType::I64), |g| g.exp(ty, d))
                });
                Exp::LoopFor {
                    acc,
                    init: Box::new(init),
                    var,
                    bound: Box::new(bound),
                    body: Box::new(body),
                }
            }
            1 => {
                self.coverage.note("loop-in");
                let var = self.fresh("x");
                let aty = self.any_ty(true);
                let aty = if aty.rank() == 0 {
                    aty.with_outer(Some(self.size()))
                } else {
                    aty
                };
                let arr = self.exp(&aty, d);
                let body = self.with_var(&acc, ty.clone(), |g| {
                    g.with_var(&var, aty.row(), |g| g.exp(ty, d))
                });
                Exp::LoopIn {
                    acc,
                    init: Box::new(init),
                    var,
                    arr: Box::new(arr),
                    body: Box::new(body),
                }
            }
            _ => {
                self.coverage.note("loop-while");
                let counter = self.fresh("c");
                let bound = self.loop_bound(d);
                let body = self.with_var(&acc, ty.clone(), |g| {
                    g.with_var(&counter, Ty::Prim(PrimType::I64), |g| g.exp(ty, d))
                });
                Exp::LoopWhile {
                    acc,
                    counter,
                    init: Box::new(init),
                    bound: Box::new(bound),
                    body: Box::new(body),
                }
            }
        }
    }

    fn array_exp(&mut self, t: PrimType, dims: &[Dim], depth: usize) -> Exp {
        let ty = Ty::Array(t, dims.to_vec());
        if dims.len() == 3 {
            self.coverage.note("rank-3");
        }
        if let Some(v) = self.var_of(&ty)
            && (depth == 0 || self.chance(0.3))
        {
            return v;
        }
        if depth == 0 {
            return self.array_leaf(t, dims);
        }
        let d = depth - 1;
        if dims[0].is_none() {
            // An unknown size: something whose size the type checker does not know, or any
            // known size.
            match self.below(5) {
                0 if self.mode == Mode::General => return self.filter(t, dims, d),
                1 => return self.slice(t, dims, d),
                2 => {
                    self.coverage.note("concat");
                    let mut known = dims.to_vec();
                    known[0] = Some(self.size());
                    let a = self.array_exp(t, &known, d);
                    known[0] = Some(self.size());
                    let b = self.array_exp(t, &known, d);
                    return Exp::bin("++", a, b);
                }
                _ => {
                    let mut known = dims.to_vec();
                    known[0] = Some(self.size());
                    return self.array_exp(t, &known, depth);
                }
            }
        }
        let d0 = dims[0].clone().unwrap();
        let row = ty.row();
        loop {
            match self.below(20) {
                0..=2 => return self.map(&ty, d),
                3 => {
                    self.coverage.note("replicate");
                    return Exp::app("replicate", vec![Exp::var(&d0), self.exp(&row, d)]);
                }
                4 => {
                    self.coverage.note("tabulate");
                    let i = self.fresh("i");
                    let body = self.with_var(&i, Ty::Prim(PrimType::I64), |g| g.exp(&row, d));
                    return Exp::app("tabulate", vec![Exp::var(&d0), Exp::lambda(&[&i], body)]);
                }
                5 if dims.len() == 1 && (t != PrimType::Bool || self.mode == Mode::General) => {
                    self.coverage.note("scan");
                    let (op, ne) = self.operator(t);
                    return Exp::app("scan", vec![op, ne, self.array_exp(t, dims, d)]);
                }
                6 if dims.len() == 1 && t != PrimType::Bool => return self.hist(t, &d0, d),
                7 => return self.scatter(&ty, d),
                8 if dims.len() >= 2 => {
                    self.coverage.note("transpose");
                    let mut swapped = dims.to_vec();
                    swapped.swap(0, 1);
                    return Exp::app("transpose", vec![self.array_exp(t, &swapped, d)]);
                }
                9 => {
                    let f = *["reverse", "rotate"].choose(self.rng).unwrap();
                    self.coverage
                        .note(if f == "reverse" { "reverse" } else { "rotate" });
                    let a = self.array_exp(t, dims, d);
                    return if f == "rotate" {
                        let r = self.prim_exp(PrimType::I64, d.min(1));
                        Exp::app("rotate", vec![r, a])
                    } else {
                        Exp::app("reverse", vec![a])
                    };
                }
                10 => {
                    self.coverage.note("if");
                    let c = self.condition(d);
                    return Exp::If(
                        Box::new(c),
                        Box::new(self.array_exp(t, dims, d)),
                        Box::new(self.array_exp(t, dims, d)),
                    );
                }
                11 => return self.let_in(&ty, d),
                12 => return self.update(&ty, d),
                13 => return self.loop_exp(&ty, d),
                14 if dims.len() == 1 && t != PrimType::Bool => return self.row_reduce(&ty, d),
                15 => return self.index_row(&ty, d),
                16 => return self.local_sizes(&ty, d),
                17 => {
                    if let Some(call) = self.call_helper(&ty, d) {
                        return call;
                    }
                }
                18 if self.mode == Mode::General => return self.tuple_map(&ty, d),
                19 if self.mode == Mode::General => return self.tuple_loop(&ty, d),
                _ => {}
            }
        }
    }

    /// An array from leaves only: a variable, `iota`, or `replicate`.
    fn array_leaf(&mut self, t: PrimType, dims: &[Dim]) -> Exp {
        let size = match &dims[0] {
            Some(s) => Exp::var(s),
            None => Exp::var(&self.size()),
        };
        if t == PrimType::I64 && dims.len() == 1 && self.chance(0.5) {
            return Exp::app("iota", vec![size]);
        }
        let inner = if dims.len() == 1 {
            self.leaf(t)
        } else {
            self.array_leaf(t, &dims[1..])
        };
        Exp::app("replicate", vec![size, inner])
    }

    fn map(&mut self, ty: &Ty, d: usize) -> Exp {
        let d0 = ty.dims()[0].clone();
        let arity = *[1usize, 1, 1, 2, 2, 3].choose(self.rng).unwrap();
        let mut srcs = Vec::new();
        let mut params = Vec::new();
        let mut ptys = Vec::new();
        for _ in 0..arity {
            if self.chance(0.6)
                && let Some((v, vty)) = self.var_where(|ty| ty.rank() > 0 && ty.dims()[0] == d0)
            {
                srcs.push(Exp::var(&v));
                params.push(self.fresh("x"));
                ptys.push(vty.row());
                continue;
            }
            let sty = self.any_ty(false);
            let sty = match sty {
                Ty::Prim(t) => Ty::Array(t, vec![d0.clone()]),
                Ty::Array(t, mut ds) => {
                    ds[0] = d0.clone();
                    Ty::Array(t, ds)
                }
            };
            srcs.push(self.exp(&sty, d));
            params.push(self.fresh("x"));
            ptys.push(sty.row());
        }
        self.coverage.note(match arity {
            1 => "map",
            2 => "map2",
            _ => "map3",
        });
        let saved = self.vars.len();
        for (p, t) in params.iter().zip(&ptys) {
            self.vars.push((p.clone(), t.clone()));
        }
        let body = self.exp(&ty.row(), d);
        self.vars.truncate(saved);
        let f = match arity {
            1 => "map",
            2 => "map2",
            _ => "map3",
        };
        let mut args = vec![Exp::Lambda(params, Box::new(body))];
        args.extend(srcs);
        Exp::app(f, args)
    }

    fn filter(&mut self, t: PrimType, dims: &[Dim], d: usize) -> Exp {
        self.coverage.note("filter");
        let mut known = dims.to_vec();
        known[0] = Some(self.size());
        let src_ty = Ty::Array(t, known);
        let src = self.array_exp(t, src_ty.dims(), d);
        let x = self.fresh("x");
        let pred = self.with_var(&x, src_ty.row(), |g| g.condition(d));
        Exp::app("filter", vec![Exp::lambda(&[&x], pred), src])
    }

    fn slice(&mut self, t: PrimType, dims: &[Dim], d: usize) -> Exp {
        self.coverage.note("slice");
        let s = self.size();
        let mut known = dims.to_vec();
        known[0] = Some(s.clone());
        let src = self.array_exp(t, &known, d);
        let bound = |g: &mut Self| {
            let i = g.prim_exp(PrimType::I64, d.min(1));
            if g.chance(UNGUARDED) {
                g.coverage.note("unguarded-slice");
                i
            } else {
                Exp::bin("%", i, Exp::bin("+", Exp::var(&s), Exp::i64(1)))
            }
        };
        let b = bound(self);
        if self.chance(0.5) {
            Exp::Slice(Box::new(src), Some(Box::new(b)), None)
        } else {
            Exp::Slice(Box::new(src), None, Some(Box::new(b)))
        }
    }

    fn hist(&mut self, t: PrimType, bins: &str, d: usize) -> Exp {
        let (op, ne) = self.operator(t);
        let m = Some(self.size());
        let is = self.array_exp(PrimType::I64, std::slice::from_ref(&m), d);
        let vs = self.array_exp(t, &[m], d);
        if self.chance(0.5) {
            self.coverage.note("hist");
            Exp::app("hist", vec![op, ne, Exp::var(bins), is, vs])
        } else {
            self.coverage.note("reduce_by_index");
            let dest = self.array_exp(t, &[Some(bins.to_string())], d);
            Exp::app(
                "reduce_by_index",
                vec![Exp::app("copy", vec![dest]), op, ne, is, vs],
            )
        }
    }

    fn scatter(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("scatter");
        let dest = self.exp(ty, d);
        let m = Some(self.size());
        let is = self.array_exp(PrimType::I64, std::slice::from_ref(&m), d);
        let vs = self.exp(&ty.row().with_outer(m), d);
        Exp::app("scatter", vec![Exp::app("copy", vec![dest]), is, vs])
    }

    /// `reduce (\a b -> map2 op a b) (replicate n ne) rows`: a reduction whose operator works
    /// on whole rows.
    fn row_reduce(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("row-reduce");
        let t = ty.elem();
        let d0 = ty.dims()[0].clone().unwrap();
        let (op, ne) = self.operator(t);
        let rows_ty = ty.with_outer(Some(self.size()));
        let rows = self.exp(&rows_ty, d);
        let vop = Exp::lambda(
            &["ra", "rb"],
            Exp::app("map2", vec![op, Exp::var("ra"), Exp::var("rb")]),
        );
        Exp::app(
            "reduce",
            vec![vop, Exp::app("replicate", vec![Exp::var(&d0), ne]), rows],
        )
    }

    /// A row of a higher-rank array, guarded.
    fn index_row(&mut self, ty: &Ty, d: usize) -> Exp {
        if ty.rank() >= 3 {
            return self.map(ty, d);
        }
        let outer = ty.with_outer(Some(self.size()));
        let a = self.fresh("a");
        let arr = self.exp(&outer, d);
        let fallback = self.array_leaf(ty.elem(), ty.dims());
        let body = self.with_var(&a, outer.clone(), |g| {
            g.guarded_index(&a, &outer, 1, fallback, d)
        });
        Exp::Let(a, Box::new(arr), Box::new(body))
    }

    /// An in-place update of a copy, guarded by a test that the updated sizes are positive.
    fn update(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("update");
        let a = self.fresh("a");
        let src = self.exp(ty, d);
        let rank = 1 + self.below(ty.rank());
        let mut value_ty = ty.clone();
        for _ in 0..rank {
            value_ty = value_ty.row();
        }
        let value = self.exp(&value_ty, d);
        let name = self.fresh("u");
        let unguarded = self.chance(UNGUARDED);
        let mut idx = Vec::new();
        let mut cond: Option<Exp> = None;
        for k in 0..rank {
            let size = Self::dim_size(&a, ty, k);
            let i = self.prim_exp(PrimType::I64, d.min(1));
            if unguarded {
                idx.push(i);
                continue;
            }
            idx.push(Exp::bin("%", i, size.clone()));
            let positive = Exp::bin(">", size, Exp::i64(0));
            cond = Some(match cond {
                None => positive,
                Some(c) => Exp::bin("&&", c, positive),
            });
        }
        let updated = Exp::Update {
            name: name.clone(),
            src: Box::new(Exp::var(&a)),
            index: idx,
            value: Box::new(value),
            body: Box::new(Exp::var(&name)),
        };
        let body = match cond {
            Some(c) => Exp::If(Box::new(c), Box::new(updated), Box::new(Exp::var(&a))),
            None => {
                self.coverage.note("unguarded-update");
                updated
            }
        };
        Exp::Let(a, Box::new(src), Box::new(body))
    }

    /// A random entry point named `name`: size parameters, one to four value parameters (the
    /// first an array) and a body of a random type.
    pub fn entry(&mut self, name: &str, depth: usize) -> Entry {
        self.vars.clear();
        self.sizes = SIZE_NAMES.iter().map(|s| s.to_string()).collect();
        let count = 1 + self.below(4);
        let mut params = Vec::new();
        for k in 0..count {
            let ty = loop {
                let ty = self.any_ty(false);
                if k > 0 || ty.rank() > 0 {
                    break ty;
                }
            };
            params.push((format!("p{k}"), ty));
        }
        let used: Vec<String> = SIZE_NAMES
            .iter()
            .filter(|s| {
                params
                    .iter()
                    .any(|(_, t)| t.dims().iter().any(|d| d.as_deref() == Some(**s)))
            })
            .map(|s| s.to_string())
            .collect();
        self.sizes = used.clone();
        for (p, t) in &params {
            self.vars.push((p.clone(), t.clone()));
        }
        for s in &used {
            self.vars.push((s.clone(), Ty::Prim(PrimType::I64)));
        }
        if self.consume && self.chance(0.3) {
            let (p, pty) = params[0].clone();
            let (body, result) = self.consume_body(&p, &pty, depth);
            return Entry {
                name: name.to_string(),
                sizes: used,
                params,
                result,
                body,
                unique: vec![p],
                tuple: true,
            };
        }
        // A body that is a single variable or literal tests nothing: draw again.
        let mut body = Exp::i64(0);
        let mut result = Ty::Prim(PrimType::I64);
        for _ in 0..8 {
            result = self.any_ty(true);
            body = self.exp(&result, depth);
            if body.size() >= 4 {
                break;
            }
        }
        Entry {
            name: name.to_string(),
            sizes: used,
            params,
            result,
            body,
            unique: Vec::new(),
            tuple: false,
        }
    }

    /// The body of an entry point whose parameter `p` is unique: reads of `p`, then an
    /// in-place update of `p` itself (`scatter`, `with`, or `with` in a loop), which consumes
    /// it, then a tuple of what was read and the updated array:
    ///
    /// ```text
    /// let r = map (\i -> if i >= 0 && i < n then p[i] else 0) is   -- or another read
    /// let w = scatter p js vs
    /// in (r', w)
    /// ```
    ///
    /// The compiler must not move a read of `p` after the update, nor update `p` where a
    /// read still needs it. The type of the tuple's first component.
    fn consume_body(&mut self, p: &str, pty: &Ty, depth: usize) -> (Exp, Ty) {
        self.coverage.note("unique-param");
        let d = depth.saturating_sub(1).max(1);
        let (read, rty) = self.read_of(p, pty, d);
        let r = self.fresh("r");
        let saved = self.vars.clone();
        // `p` is consumed by the update: out of scope from here on.
        self.vars.retain(|(n, _)| n != p);
        self.vars.push((r.clone(), rty.clone()));
        let update = self.consuming_update(p, pty, d);
        let w = self.fresh("w");
        self.vars.push((w.clone(), pty.clone()));
        let first = match self.below(10) {
            0..=2 => Exp::var(&r),
            3..=6 if rty.rank() > 0 => {
                // A map over what was read, which fusion may merge with the read.
                let x = self.fresh("x");
                let body = self.with_var(&x, rty.row(), |g| {
                    if rty.rank() == 1 {
                        g.arith_with(rty.elem(), Exp::var(&x), d)
                    } else {
                        g.exp(&rty.row(), d)
                    }
                });
                Exp::app("map", vec![Exp::lambda(&[&x], body), Exp::var(&r)])
            }
            _ => self.exp(&rty, d),
        };
        let second = if self.chance(0.7) {
            Exp::var(&w)
        } else {
            self.exp(pty, d)
        };
        self.vars = saved;
        let body = Exp::Let(
            r,
            Box::new(read),
            Box::new(Exp::Let(
                w,
                Box::new(update),
                Box::new(Exp::Tuple(vec![first, second])),
            )),
        );
        (body, rty)
    }

    /// An expression reading the array `p` (mostly), of a fresh type: a `map` whose lambda
    /// indexes `p`, a scalar, or an array (copied unless it is a fresh `map` or `tabulate`, so
    /// that it does not alias `p`).
    fn read_of(&mut self, p: &str, pty: &Ty, d: usize) -> (Exp, Ty) {
        match self.below(4) {
            0 | 1 => {
                self.coverage.note("read-before-update");
                let m = Some(self.size());
                let src_ty = Ty::Array(PrimType::I64, vec![m.clone()]);
                let src = self.array_exp(PrimType::I64, src_ty.dims(), d);
                let x = self.fresh("x");
                let fallback = self.leaf(pty.elem());
                let body = self.with_var(&x, Ty::Prim(PrimType::I64), |g| {
                    let rank = pty.rank();
                    let idx = g.guarded_index(p, pty, rank, fallback, d);
                    if g.chance(0.5) {
                        idx
                    } else {
                        g.arith_with(pty.elem(), idx, d)
                    }
                });
                let rty = Ty::Array(pty.elem(), vec![m]);
                (Exp::app("map", vec![Exp::lambda(&[&x], body), src]), rty)
            }
            2 => {
                let t = self.prim();
                (self.prim_exp(t, d + 1), Ty::Prim(t))
            }
            _ => {
                let ty = match self.any_ty(false) {
                    Ty::Prim(t) => Ty::Array(t, vec![Some(self.size())]),
                    ty => ty,
                };
                let e = self.array_exp(ty.elem(), ty.dims(), d + 1);
                let fresh = matches!(&e, Exp::App(f, _) if ["map", "map2", "map3", "tabulate"].contains(&f.as_str()));
                let e = if fresh { e } else { Exp::app("copy", vec![e]) };
                (e, ty)
            }
        }
    }

    /// `e op x` or `x op e` for a random `x` of type `t`.
    fn arith_with(&mut self, t: PrimType, e: Exp, d: usize) -> Exp {
        if t == PrimType::Bool {
            let other = self.condition(d.min(1));
            return Exp::bin("&&", e, other);
        }
        let other = self.prim_exp(t, d.min(1));
        let op = *["+", "*", "-"].choose(self.rng).unwrap();
        if self.chance(0.5) {
            Exp::bin(op, e, other)
        } else {
            Exp::bin(op, other, e)
        }
    }

    /// An in-place update of the array `p` itself, consuming it: `scatter p is vs`,
    /// `p with [i] = v` (guarded), or a loop updating it.
    fn consuming_update(&mut self, p: &str, pty: &Ty, d: usize) -> Exp {
        match self.below(5) {
            0 | 1 => {
                self.coverage.note("scatter-in-place");
                let m = Some(self.size());
                let is = self.array_exp(PrimType::I64, std::slice::from_ref(&m), d);
                let vs = self.exp(&pty.row().with_outer(m), d);
                Exp::app("scatter", vec![Exp::var(p), is, vs])
            }
            2 | 3 => {
                self.coverage.note("with-in-place");
                self.guarded_with(p, pty, d)
            }
            _ => {
                self.coverage.note("loop-in-place");
                let acc = self.fresh("acc");
                let var = self.fresh("i");
                let bound = self.loop_bound(d);
                let body = self.with_var(&acc, pty.clone(), |g| {
                    g.with_var(&var, Ty::Prim(PrimType::I64), |g| {
                        g.guarded_with(&acc, pty, d)
                    })
                });
                Exp::LoopFor {
                    acc,
                    init: Box::new(Exp::var(p)),
                    var,
                    bound: Box::new(bound),
                    body: Box::new(body),
                }
            }
        }
    }

    /// `(if sizes > 0 then a with [i % size, ...] = v else a)`, or unguarded rarely.
    fn guarded_with(&mut self, a: &str, ty: &Ty, d: usize) -> Exp {
        let rank = 1 + self.below(ty.rank());
        let mut value_ty = ty.clone();
        for _ in 0..rank {
            value_ty = value_ty.row();
        }
        let value = self.exp(&value_ty, d);
        let (idx, cond) = if self.chance(UNGUARDED) {
            let idx = (0..rank)
                .map(|_| self.prim_exp(PrimType::I64, d.min(1)))
                .collect();
            (idx, None)
        } else {
            let (idx, cond) = self.guarded_indices(a, ty, rank, d);
            (idx, Some(cond))
        };
        let updated = Exp::With(Box::new(Exp::var(a)), idx, Box::new(value));
        match cond {
            Some(c) => Exp::If(Box::new(c), Box::new(updated), Box::new(Exp::var(a))),
            None => updated,
        }
    }

    /// Makes `helpers` callable from the expressions generated from now on.
    pub fn set_helpers(&mut self, helpers: &[Entry]) {
        self.helpers = helpers.to_vec();
    }

    /// A call of a helper function whose result can have type `ty`, with its sizes
    /// instantiated with sizes in scope; `None` when no helper fits.
    fn call_helper(&mut self, ty: &Ty, d: usize) -> Option<Exp> {
        let fits: Vec<Entry> = self
            .helpers
            .iter()
            .filter(|h| {
                !h.tuple
                    && h.result.elem() == ty.elem()
                    && h.result.rank() == ty.rank()
                    && h.result
                        .dims()
                        .iter()
                        .zip(ty.dims())
                        .all(|(hd, want)| hd.is_some() || want.is_none())
            })
            .cloned()
            .collect();
        let h = fits.choose(self.rng)?.clone();
        let mut map: BTreeMap<String, String> = BTreeMap::new();
        for (hd, want) in h.result.dims().iter().zip(ty.dims()) {
            if let (Some(hd), Some(want)) = (hd, want) {
                match map.get(hd) {
                    Some(prev) if prev != want => return None,
                    _ => {
                        map.insert(hd.clone(), want.clone());
                    }
                }
            }
        }
        for s in &h.sizes {
            if !map.contains_key(s) {
                let size = self.size();
                map.insert(s.clone(), size);
            }
        }
        self.coverage.note("call");
        let args = h
            .params
            .iter()
            .map(|(_, pty)| {
                let aty = match pty {
                    Ty::Prim(t) => Ty::Prim(*t),
                    Ty::Array(t, ds) => Ty::Array(
                        *t,
                        ds.iter()
                            .map(|d| d.as_ref().map(|n| map[n].clone()))
                            .collect(),
                    ),
                };
                self.exp(&aty, d)
            })
            .collect();
        Some(Exp::App(h.name.clone(), args))
    }

    /// `(unzip (map (\x -> (a, b)) xs)).k`: a map with two results, one of them used.
    fn tuple_map(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("tuple");
        let d0 = ty.dims()[0].clone();
        let other = self.any_ty(false);
        let other = match other {
            Ty::Array(t, mut ds) if ds.len() < 3 => {
                ds[0] = Some(self.size());
                Ty::Array(t, ds)
            }
            _ => Ty::Prim(other.elem()),
        };
        let (sv, sty) = match self.var_where(|t| t.rank() > 0 && t.dims()[0] == d0) {
            Some(v) => v,
            None => {
                let sty = Ty::Array(self.prim(), vec![d0.clone()]);
                (String::new(), sty)
            }
        };
        let src = if sv.is_empty() {
            self.exp(&sty, d)
        } else {
            Exp::var(&sv)
        };
        let x = self.fresh("x");
        let (a, b) = self.with_var(&x, sty.row(), |g| (g.exp(&ty.row(), d), g.exp(&other, d)));
        let pick = self.below(2);
        let items = if pick == 0 { vec![a, b] } else { vec![b, a] };
        let mapped = Exp::app(
            "map",
            vec![Exp::Lambda(vec![x], Box::new(Exp::Tuple(items))), src],
        );
        Exp::Proj(Box::new(Exp::app("unzip", vec![mapped])), pick)
    }

    /// A `for` loop over a pair, one component returned.
    fn tuple_loop(&mut self, ty: &Ty, d: usize) -> Exp {
        self.coverage.note("loop-tuple");
        let other = Ty::Prim(self.prim());
        let (a, b) = (self.fresh("acc"), self.fresh("acc"));
        let var = self.fresh("i");
        let inits = vec![self.exp(ty, d), self.exp(&other, d)];
        let bound = self.loop_bound(d);
        let bodies = self.with_var(&a, ty.clone(), |g| {
            g.with_var(&b, other.clone(), |g| {
                g.with_var(&var, Ty::Prim(PrimType::I64), |g| {
                    vec![g.exp(ty, d), g.exp(&other, d)]
                })
            })
        });
        Exp::LoopTuple {
            accs: vec![a, b],
            inits,
            var,
            bound: Box::new(bound),
            bodies,
            pick: 0,
        }
    }

    /// A smooth `f64` body for the AD checks over `c: [n][m]f64` (a constant), `x: [n]f64`
    /// and `s: f64`, of type `f64`, `[n]f64` or `[n][m]f64`.
    pub fn smooth_body(&mut self, depth: usize) -> (Exp, Ty) {
        self.vars.clear();
        self.sizes = vec!["n".into(), "m".into()];
        let n = Some("n".to_string());
        let m = Some("m".to_string());
        self.vars.push((
            "c".into(),
            Ty::Array(PrimType::F64, vec![n.clone(), m.clone()]),
        ));
        self.vars
            .push(("x".into(), Ty::Array(PrimType::F64, vec![n.clone()])));
        self.vars.push(("s".into(), Ty::Prim(PrimType::F64)));
        self.vars.push(("n".into(), Ty::Prim(PrimType::I64)));
        self.vars.push(("m".into(), Ty::Prim(PrimType::I64)));
        let result = match self.below(3) {
            0 => Ty::Prim(PrimType::F64),
            1 => Ty::Array(PrimType::F64, vec![n]),
            _ => Ty::Array(PrimType::F64, vec![n, m]),
        };
        (self.exp(&result, depth), result)
    }
}

/// Random values of the entry point's parameter types, with random sizes.
pub fn inputs(rng: &mut Pcg64, entry: &Entry, mode: Mode) -> Vec<Value> {
    let sizes: BTreeMap<String, usize> = entry
        .sizes
        .iter()
        .map(|s| {
            let v = *[0usize, 1, 1, 2, 2, 3, 3, 4, 5].choose(rng).unwrap();
            (s.clone(), v)
        })
        .collect();
    entry
        .params
        .iter()
        .map(|(_, ty)| {
            let shape: Vec<usize> = ty
                .dims()
                .iter()
                .map(|d| sizes[d.as_deref().unwrap()])
                .collect();
            value(rng, ty.elem(), &shape, mode)
        })
        .collect()
}

/// A random value of element type `t` and shape `shape` (a scalar for an empty shape).
pub fn value(rng: &mut Pcg64, t: PrimType, shape: &[usize], mode: Mode) -> Value {
    if shape.is_empty() {
        return Value::Scalar(scalar(rng, t, mode));
    }
    let len: usize = shape.iter().product();
    let mut buf = Buffer::with_capacity(t, len);
    for _ in 0..len {
        buf.push(scalar(rng, t, mode));
    }
    Value::Array(Array::new(shape.to_vec(), buf).expect("shape matches the buffer"))
}

/// A random scalar: mostly small, sometimes at the edges of its type.
pub fn scalar(rng: &mut Pcg64, t: PrimType, mode: Mode) -> Scalar {
    if mode == Mode::Smooth && t.is_float() {
        return Scalar::from_f64(t, rng.random_range(-1.5..1.5));
    }
    match t {
        PrimType::Bool => Scalar::Bool(rng.random_bool(0.5)),
        PrimType::F32 | PrimType::F64 => {
            let r = rng.random_range(0..24);
            let v = match r {
                0 => 0.0,
                1 => -0.0,
                2 => rng.random_range(-1e3..1e3),
                3..=7 => return edge(rng, t),
                _ => rng.random_range(-16i32..=16) as f64 / 4.0,
            };
            Scalar::from_f64(t, v)
        }
        _ => {
            let bits = t.bits();
            let (lo, hi) = if t.is_unsigned_int() {
                (0i128, (1i128 << bits) - 1)
            } else {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            };
            let v = match rng.random_range(0..20) {
                0 => lo,
                1 => hi,
                2 => rng.random_range(lo..=hi),
                _ => rng.random_range(-6i128..=9).clamp(lo, hi),
            };
            Scalar::from_i128(t, v)
        }
    }
}

/// A value at the edge of type `t`: the smallest and largest integers and their neighbours,
/// `-1`, the unsigned value with only the top bit set; NaN, ±∞, ±0, the smallest and a larger
/// subnormal, the smallest normal, the largest finite value, and huge and tiny values.
pub fn edge(rng: &mut Pcg64, t: PrimType) -> Scalar {
    match t {
        PrimType::Bool => Scalar::Bool(rng.random_bool(0.5)),
        PrimType::F32 => {
            let v = match rng.random_range(0..13) {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                3 => 0.0,
                4 => -0.0,
                5 => f32::from_bits(1),
                6 => -f32::from_bits(0x0040_0000),
                7 => f32::MIN_POSITIVE,
                8 => f32::MAX,
                9 => f32::MIN,
                10 => 1e30,
                11 => -1e-30,
                _ => 16777217.0,
            };
            Scalar::F32(v)
        }
        PrimType::F64 => {
            let v = match rng.random_range(0..13) {
                0 => f64::NAN,
                1 => f64::INFINITY,
                2 => f64::NEG_INFINITY,
                3 => 0.0,
                4 => -0.0,
                5 => f64::from_bits(1),
                6 => -f64::from_bits(0x0008_0000_0000_0000),
                7 => f64::MIN_POSITIVE,
                8 => f64::MAX,
                9 => f64::MIN,
                10 => 1e300,
                11 => -1e-300,
                _ => 9007199254740993.0,
            };
            Scalar::F64(v)
        }
        _ => {
            let bits = t.bits();
            let (lo, hi) = if t.is_unsigned_int() {
                (0i128, (1i128 << bits) - 1)
            } else {
                (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
            };
            let v = match rng.random_range(0..7) {
                0 => lo,
                1 => hi,
                2 => lo + 1,
                3 => hi - 1,
                4 => -1,
                5 => 1i128 << (bits - 1),
                _ => 0,
            };
            Scalar::from_i128(t, v)
        }
    }
}
