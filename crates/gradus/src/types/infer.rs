//! Unification variables, their constraints, substitution and unification.
//!
//! Type variables carry a level (for let-generalisation) and three kinds of constraint:
//! a set of primitive types (overloaded literals and operators, docs/language.md §Overloaded
//! literals and operators), "no function" (equality, non-lifted type parameters, `if` results, loop
//! parameters, array elements) and required record fields (field access on a value whose type is
//! not known yet). A fourth, required constructors, is what a constructor expression or pattern
//! says about a type that is not known yet (`#some x`): the variable can only become a sum type
//! that has those constructors with those payloads; a variable still unbound when its declaration
//! is finished becomes the sum of exactly those constructors (as in Futhark).
//! Size variables carry only a level. Size unification never fails: a conflict between two
//! known sizes is left to the run-time checks (docs/language.md §Size rules).

use super::ty::{Size, SizeVar, Ty, TyVar};
use crate::core::scalar::PrimType;
use crate::diag::Span;
use std::collections::BTreeMap;

/// A set of primitive types, one bit per [`PrimType::ALL`] entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PrimSet(pub u16);

fn prim_index(t: PrimType) -> usize {
    PrimType::ALL.iter().position(|&p| p == t).unwrap_or(0)
}

impl PrimSet {
    fn from_fn(f: impl Fn(PrimType) -> bool) -> PrimSet {
        let mut bits = 0;
        for (i, t) in PrimType::ALL.iter().enumerate() {
            if f(*t) {
                bits |= 1 << i;
            }
        }
        PrimSet(bits)
    }
    pub fn numeric() -> PrimSet {
        PrimSet::from_fn(PrimType::is_numeric)
    }
    pub fn integral() -> PrimSet {
        PrimSet::from_fn(PrimType::is_int)
    }
    pub fn float() -> PrimSet {
        PrimSet::from_fn(PrimType::is_float)
    }
    pub fn ordered() -> PrimSet {
        PrimSet::from_fn(|_| true)
    }
    pub fn bool_or_int() -> PrimSet {
        PrimSet::from_fn(|t| t == PrimType::Bool || t.is_int())
    }
    pub fn contains(self, t: PrimType) -> bool {
        self.0 & (1 << prim_index(t)) != 0
    }
    pub fn inter(self, o: PrimSet) -> PrimSet {
        PrimSet(self.0 & o.0)
    }
    fn members(self) -> impl Iterator<Item = PrimType> {
        PrimType::ALL.into_iter().filter(move |t| self.contains(*t))
    }
    pub fn single(self) -> Option<PrimType> {
        if self.0.count_ones() == 1 {
            self.members().next()
        } else {
            None
        }
    }
    /// The default of docs/language.md §Overloaded literals and operators: `i32`, else `f64`, else
    /// `bool`, else the first member.
    pub fn default_type(self) -> Option<PrimType> {
        [PrimType::I32, PrimType::F64, PrimType::Bool]
            .into_iter()
            .find(|t| self.contains(*t))
            .or_else(|| self.members().next())
    }
    pub fn describe(self) -> String {
        if self == PrimSet::numeric() {
            "a numeric type".into()
        } else if self == PrimSet::integral() {
            "an integer type".into()
        } else if self == PrimSet::float() {
            "a floating-point type".into()
        } else if self == PrimSet::ordered() {
            "a numeric type or `bool`".into()
        } else if self == PrimSet::bool_or_int() {
            "`bool` or an integer type".into()
        } else {
            let names: Vec<String> = self.members().map(|t| format!("`{t}`")).collect();
            format!("one of {}", names.join(", "))
        }
    }
}

/// What is known about an unbound type variable.
#[derive(Clone, Debug)]
pub(crate) struct VarInfo {
    pub level: u32,
    pub prims: Option<PrimSet>,
    pub no_fun: bool,
    pub fields: Option<BTreeMap<String, Ty>>,
    /// Where the first field access on it happened.
    pub field_span: Option<Span>,
    /// Constructors (with payload types) that the sum type it stands for must have.
    pub constrs: Option<BTreeMap<String, Vec<Ty>>>,
}

/// Why two types do not unify.
#[derive(Clone, Debug)]
pub(crate) enum UErr {
    Mismatch,
    Occurs,
    NotIn(Ty, PrimSet),
    Function,
    NoField(Ty, String),
    NoConstr(Ty, String),
}

impl UErr {
    /// A note explaining the failure beyond "expected X, found Y".
    pub fn detail(&self) -> Option<String> {
        match self {
            UErr::Mismatch => None,
            UErr::Occurs => Some("this would need an infinite type".into()),
            UErr::NotIn(Ty::Var(_), set) => Some(format!("the type must be {}", set.describe())),
            UErr::NotIn(t, set) => Some(format!("`{t}` is not {}", set.describe())),
            UErr::Function => Some("a function type is not allowed here".into()),
            UErr::NoField(t, f) => Some(format!("`{t}` has no field `{f}`")),
            UErr::NoConstr(Ty::Var(_), c) => {
                Some(format!("the constructor `#{c}` needs a sum type here"))
            }
            UErr::NoConstr(t, c) => Some(format!("`{t}` has no constructor `#{c}`")),
        }
    }
}

/// A change to the size substitution, to be taken back when a unification of parts fails.
enum SizeUndo {
    /// The variable was bound (it was free before).
    Bound(SizeVar),
    /// The variable's level was lowered from this one.
    Level(SizeVar, u32),
}

/// The substitution and the variables' constraints.
#[derive(Default)]
pub(crate) struct Unifier {
    pub tvars: Vec<VarInfo>,
    tsubst: Vec<Option<Ty>>,
    slevels: Vec<u32>,
    ssubst: Vec<Option<Size>>,
    /// When set, size unification does nothing (coercions, loop results).
    pub sizes_off: bool,
}

impl Unifier {
    pub fn fresh(&mut self, level: u32, prims: Option<PrimSet>, no_fun: bool) -> Ty {
        let v = TyVar(self.tvars.len() as u32);
        self.tvars.push(VarInfo {
            level,
            prims,
            no_fun,
            fields: None,
            field_span: None,
            constrs: None,
        });
        self.tsubst.push(None);
        Ty::Var(v)
    }
    pub fn fresh_size(&mut self, level: u32) -> Size {
        let v = SizeVar(self.slevels.len() as u32);
        self.slevels.push(level);
        self.ssubst.push(None);
        Size::Var(v)
    }
    pub fn tvar_count(&self) -> usize {
        self.tvars.len()
    }
    pub fn svar_count(&self) -> usize {
        self.slevels.len()
    }
    pub fn is_bound(&self, v: TyVar) -> bool {
        matches!(self.tsubst.get(v.0 as usize), Some(Some(_)))
    }
    pub fn size_is_bound(&self, v: SizeVar) -> bool {
        matches!(self.ssubst.get(v.0 as usize), Some(Some(_)))
    }
    pub fn info(&self, v: TyVar) -> Option<&VarInfo> {
        self.tvars.get(v.0 as usize)
    }
    pub fn size_level(&self, v: SizeVar) -> u32 {
        self.slevels.get(v.0 as usize).copied().unwrap_or(0)
    }

    /// Binds a variable without any check (generalisation and defaulting).
    pub fn set(&mut self, v: TyVar, t: Ty) {
        if let Some(slot) = self.tsubst.get_mut(v.0 as usize) {
            *slot = Some(t);
        }
    }
    /// Binds a size variable without any check.
    pub fn set_size(&mut self, v: SizeVar, s: Size) {
        if let Some(slot) = self.ssubst.get_mut(v.0 as usize) {
            *slot = Some(s);
        }
    }

    /// Follows variable bindings at the head of a type.
    pub fn shallow(&self, t: &Ty) -> Ty {
        let mut t = t.clone();
        while let Ty::Var(v) = &t {
            match self.tsubst.get(v.0 as usize) {
                Some(Some(u)) => t = u.clone(),
                _ => break,
            }
        }
        t
    }

    /// Applies the substitution everywhere, normalising nested arrays.
    pub fn resolve(&self, t: &Ty) -> Ty {
        match t {
            Ty::Var(v) => match self.tsubst.get(v.0 as usize) {
                Some(Some(u)) => self.resolve(u),
                _ => t.clone(),
            },
            Ty::Prim(_) | Ty::Param(_) => t.clone(),
            Ty::Array(dims, elem) => {
                let mut dims: Vec<Size> = dims.iter().map(|d| self.resolve_size(d)).collect();
                match self.resolve(elem) {
                    Ty::Array(d2, e2) => {
                        dims.extend(d2);
                        Ty::Array(dims, e2)
                    }
                    e => Ty::Array(dims, Box::new(e)),
                }
            }
            Ty::Record(fs) => Ty::Record(
                fs.iter()
                    .map(|(k, v)| (k.clone(), self.resolve(v)))
                    .collect(),
            ),
            Ty::Sum(cs) => Ty::Sum(
                cs.iter()
                    .map(|(k, ts)| (k.clone(), ts.iter().map(|t| self.resolve(t)).collect()))
                    .collect(),
            ),
            Ty::Arrow(a, b) => Ty::Arrow(Box::new(self.resolve(a)), Box::new(self.resolve(b))),
        }
    }

    pub fn resolve_size(&self, s: &Size) -> Size {
        match s {
            Size::Var(v) => match self.ssubst.get(v.0 as usize) {
                Some(Some(u)) => self.resolve_size(u),
                _ => s.clone(),
            },
            Size::Op(o, a, b) => Size::Op(
                *o,
                Box::new(self.resolve_size(a)),
                Box::new(self.resolve_size(b)),
            ),
            _ => s.clone(),
        }
    }

    fn occurs(&self, v: TyVar, t: &Ty) -> bool {
        match t {
            Ty::Var(u) => {
                if *u == v {
                    return true;
                }
                match self.tsubst.get(u.0 as usize) {
                    Some(Some(t2)) => self.occurs(v, t2),
                    _ => false,
                }
            }
            Ty::Prim(_) | Ty::Param(_) => false,
            Ty::Array(_, e) => self.occurs(v, e),
            Ty::Record(fs) => fs.values().any(|f| self.occurs(v, f)),
            Ty::Sum(cs) => cs.values().flatten().any(|f| self.occurs(v, f)),
            Ty::Arrow(a, b) => self.occurs(v, a) || self.occurs(v, b),
        }
    }

    fn size_occurs(&self, v: SizeVar, s: &Size) -> bool {
        match s {
            Size::Var(u) => {
                if *u == v {
                    return true;
                }
                match self.ssubst.get(u.0 as usize) {
                    Some(Some(s2)) => self.size_occurs(v, s2),
                    _ => false,
                }
            }
            Size::Op(_, a, b) => self.size_occurs(v, a) || self.size_occurs(v, b),
            _ => false,
        }
    }

    /// Lowers the levels of the variables in `t` to at most `level`.
    fn lower_levels(&mut self, t: &Ty, level: u32) {
        match self.shallow(t) {
            Ty::Var(v) => {
                if let Some(info) = self.tvars.get_mut(v.0 as usize)
                    && info.level > level
                {
                    info.level = level;
                }
            }
            Ty::Prim(_) | Ty::Param(_) => {}
            Ty::Array(dims, e) => {
                for d in &dims {
                    self.lower_size_levels(d, level);
                }
                self.lower_levels(&e, level);
            }
            Ty::Record(fs) => {
                for f in fs.values() {
                    self.lower_levels(f, level);
                }
            }
            Ty::Sum(cs) => {
                for f in cs.values().flatten() {
                    self.lower_levels(f, level);
                }
            }
            Ty::Arrow(a, b) => {
                self.lower_levels(&a, level);
                self.lower_levels(&b, level);
            }
        }
    }

    fn lower_size_levels(&mut self, s: &Size, level: u32) {
        self.lower_size_levels_logged(s, level, &mut Vec::new());
    }

    /// Makes the two types equal.
    pub fn unify(&mut self, a: &Ty, b: &Ty) -> Result<(), UErr> {
        let a = self.shallow(a);
        let b = self.shallow(b);
        match (&a, &b) {
            (Ty::Var(x), Ty::Var(y)) if x == y => Ok(()),
            (Ty::Var(x), Ty::Var(y)) => self.bind_var_var(*x, *y),
            (Ty::Var(x), _) => self.bind(*x, &b),
            (_, Ty::Var(y)) => self.bind(*y, &a),
            (Ty::Prim(p), Ty::Prim(q)) if p == q => Ok(()),
            (Ty::Param(p), Ty::Param(q)) if p == q => Ok(()),
            (Ty::Arrow(a1, r1), Ty::Arrow(a2, r2)) => {
                self.unify(a1, a2)?;
                self.unify(r1, r2)
            }
            (Ty::Record(f1), Ty::Record(f2)) => {
                if f1.len() != f2.len() || f1.keys().zip(f2.keys()).any(|(x, y)| x != y) {
                    return Err(UErr::Mismatch);
                }
                for (k, t1) in f1 {
                    if let Some(t2) = f2.get(k) {
                        self.unify(t1, t2)?;
                    }
                }
                Ok(())
            }
            (Ty::Sum(c1), Ty::Sum(c2)) => {
                if c1.len() != c2.len()
                    || c1
                        .iter()
                        .zip(c2.iter())
                        .any(|((x, xs), (y, ys))| x != y || xs.len() != ys.len())
                {
                    return Err(UErr::Mismatch);
                }
                for (xs, ys) in c1.values().zip(c2.values()) {
                    for (x, y) in xs.iter().zip(ys) {
                        self.unify(x, y)?;
                    }
                }
                Ok(())
            }
            (Ty::Array(d1, _), Ty::Array(d2, _)) => {
                if let (Some(s1), Some(s2)) = (d1.first(), d2.first()) {
                    self.unify_size(s1, s2);
                }
                match (a.row(), b.row()) {
                    (Some(r1), Some(r2)) => self.unify(&r1, &r2),
                    _ => Err(UErr::Mismatch),
                }
            }
            _ => Err(UErr::Mismatch),
        }
    }

    fn bind_var_var(&mut self, x: TyVar, y: TyVar) -> Result<(), UErr> {
        let (Some(ix), Some(iy)) = (self.info(x).cloned(), self.info(y).cloned()) else {
            return Err(UErr::Mismatch);
        };
        let prims = match (ix.prims, iy.prims) {
            (Some(a), Some(b)) => {
                let s = a.inter(b);
                if s.0 == 0 {
                    return Err(UErr::NotIn(Ty::Var(y), a));
                }
                Some(s)
            }
            (a, b) => a.or(b),
        };
        // A type with constructors is a sum: neither a primitive nor a record. Checked before
        // the variables are merged, so that the message shows them apart.
        let not_sum = |i: &VarInfo| i.prims.is_some() || i.fields.is_some();
        let first_constr =
            |i: &VarInfo| i.constrs.as_ref().and_then(|cs| cs.keys().next().cloned());
        if let Some(c) = first_constr(&ix).filter(|_| not_sum(&iy)) {
            return Err(UErr::NoConstr(Ty::Var(y), c));
        }
        if let Some(c) = first_constr(&iy).filter(|_| not_sum(&ix)) {
            return Err(UErr::NoConstr(Ty::Var(x), c));
        }
        self.set(x, Ty::Var(y));
        if let Some(info) = self.tvars.get_mut(y.0 as usize) {
            info.level = ix.level.min(iy.level);
            info.prims = prims;
            info.no_fun = ix.no_fun || iy.no_fun;
            if info.field_span.is_none() {
                info.field_span = ix.field_span;
            }
        }
        if let Some(fx) = ix.fields.clone() {
            for (f, t) in fx {
                let ft = self.require_field(y, &f, None);
                self.unify(&ft, &t)?;
            }
        }
        if let Some(cx) = ix.constrs {
            for (c, ts) in cx {
                self.require_constr(Ty::Var(y), &c, &ts)?;
            }
        }
        if let Some(p) = prims.and_then(PrimSet::single) {
            self.set(y, Ty::Prim(p));
        }
        Ok(())
    }

    fn bind(&mut self, v: TyVar, t: &Ty) -> Result<(), UErr> {
        if self.occurs(v, t) {
            return Err(UErr::Occurs);
        }
        let Some(info) = self.info(v).cloned() else {
            return Err(UErr::Mismatch);
        };
        if let Some(set) = info.prims {
            match t {
                Ty::Prim(p) if set.contains(*p) => {}
                _ => return Err(UErr::NotIn(t.clone(), set)),
            }
        }
        if info.no_fun {
            self.require_no_fun(t, &[])?;
        }
        if let Some(fields) = &info.fields {
            match t {
                Ty::Record(fs) => {
                    for (f, ft) in fields {
                        match fs.get(f) {
                            Some(t2) => {
                                let t2 = t2.clone();
                                self.unify(ft, &t2)?;
                            }
                            None => return Err(UErr::NoField(t.clone(), f.clone())),
                        }
                    }
                }
                _ => {
                    let f = fields.keys().next().cloned().unwrap_or_default();
                    return Err(UErr::NoField(t.clone(), f));
                }
            }
        }
        if let Some(constrs) = &info.constrs {
            if !matches!(t, Ty::Sum(_)) {
                let c = constrs.keys().next().cloned().unwrap_or_default();
                return Err(UErr::NoConstr(t.clone(), c));
            }
            for (c, ts) in constrs {
                self.require_constr(t.clone(), c, ts)?;
            }
        }
        self.lower_levels(t, info.level);
        self.set(v, t.clone());
        Ok(())
    }

    /// Requires that `t` contains no function type; unbound variables in it get the
    /// constraint. `lifted` lists the rigid type parameters that may be functions.
    pub fn require_no_fun(&mut self, t: &Ty, lifted: &[String]) -> Result<(), UErr> {
        match self.shallow(t) {
            Ty::Var(v) => {
                if let Some(info) = self.tvars.get_mut(v.0 as usize) {
                    // Already constrained: stop here, so that cyclic field constraints
                    // (`x.a == x`) cannot make this recurse forever.
                    if info.no_fun {
                        return Ok(());
                    }
                    info.no_fun = true;
                    let fields = info.fields.clone();
                    let constrs = info.constrs.clone();
                    for f in fields.iter().flat_map(|fs| fs.values()) {
                        self.require_no_fun(f, lifted)?;
                    }
                    for f in constrs.iter().flat_map(|cs| cs.values()).flatten() {
                        self.require_no_fun(f, lifted)?;
                    }
                }
                Ok(())
            }
            Ty::Prim(_) => Ok(()),
            Ty::Param(p) => {
                if lifted.contains(&p) {
                    Err(UErr::Function)
                } else {
                    Ok(())
                }
            }
            Ty::Arrow(..) => Err(UErr::Function),
            Ty::Array(_, e) => self.require_no_fun(&e, lifted),
            Ty::Record(fs) => {
                for f in fs.values() {
                    self.require_no_fun(f, lifted)?;
                }
                Ok(())
            }
            Ty::Sum(cs) => {
                for f in cs.values().flatten() {
                    self.require_no_fun(f, lifted)?;
                }
                Ok(())
            }
        }
    }

    /// Requires that `t` is a sum type with constructor `c` whose payload types are `ts`: if
    /// `t` is an unbound variable, the requirement becomes a constraint on it.
    pub fn require_constr(&mut self, t: Ty, c: &str, ts: &[Ty]) -> Result<(), UErr> {
        match self.shallow(&t) {
            Ty::Var(v) => {
                let Some(info) = self.info(v).cloned() else {
                    return Err(UErr::Mismatch);
                };
                if info.prims.is_some() || info.fields.is_some() {
                    return Err(UErr::NoConstr(Ty::Var(v), c.to_string()));
                }
                if let Some(old) = info.constrs.as_ref().and_then(|cs| cs.get(c)) {
                    if old.len() != ts.len() {
                        return Err(UErr::Mismatch);
                    }
                    for (a, b) in old.clone().iter().zip(ts) {
                        self.unify(a, b)?;
                    }
                    return Ok(());
                }
                for t in ts {
                    self.lower_levels(t, info.level);
                    if info.no_fun {
                        self.require_no_fun(t, &[])?;
                    }
                }
                if let Some(info) = self.tvars.get_mut(v.0 as usize) {
                    info.constrs
                        .get_or_insert_with(BTreeMap::new)
                        .insert(c.to_string(), ts.to_vec());
                }
                Ok(())
            }
            Ty::Sum(cs) => match cs.get(c) {
                Some(payload) if payload.len() == ts.len() => {
                    for (a, b) in payload.iter().zip(ts) {
                        self.unify(a, b)?;
                    }
                    Ok(())
                }
                Some(_) => Err(UErr::Mismatch),
                None => Err(UErr::NoConstr(Ty::Sum(cs), c.to_string())),
            },
            other => Err(UErr::NoConstr(other, c.to_string())),
        }
    }

    /// The type of field `f` of the unbound variable `v`, adding the constraint.
    pub fn require_field(&mut self, v: TyVar, f: &str, span: Option<Span>) -> Ty {
        let level = self.info(v).map_or(0, |i| i.level);
        if let Some(t) = self
            .info(v)
            .and_then(|i| i.fields.as_ref())
            .and_then(|fs| fs.get(f))
        {
            return t.clone();
        }
        let t = self.fresh(level, None, false);
        if let Some(info) = self.tvars.get_mut(v.0 as usize) {
            info.fields
                .get_or_insert_with(BTreeMap::new)
                .insert(f.to_string(), t.clone());
            if info.field_span.is_none() {
                info.field_span = span;
            }
        }
        t
    }

    /// Makes two sizes equal where that is possible; conflicts are left to run time.
    /// Sizes of the same form are made equal part by part (the constants of a sum or a product
    /// with each other), but only when every part can be: `m + 2` against `1 + o` binds
    /// nothing from its parts (`m = 1` would only hold where `o` is 2). A size `x + e` or
    /// `x - e` whose `x` is a variable is then solved for it: `x = size - e` (`x = size + e`),
    /// so `[m + 1]` takes any argument size (docs/language.md §Size rules).
    pub fn unify_size(&mut self, a: &Size, b: &Size) {
        if self.sizes_off {
            return;
        }
        self.unify_size_logged(a, b, &mut Vec::new());
    }

    /// [`Self::unify_size`], recording in `undo` what it changes; true when the two sizes are
    /// now the same.
    fn unify_size_logged(&mut self, a: &Size, b: &Size, undo: &mut Vec<SizeUndo>) -> bool {
        let a = self.resolve_size(a);
        let b = self.resolve_size(b);
        match (&a, &b) {
            (Size::Var(x), Size::Var(y)) if x == y => true,
            (Size::Var(x), other) | (other, Size::Var(x)) if !self.size_occurs(*x, other) => {
                self.bind_size_logged(*x, other.clone(), undo);
                true
            }
            (Size::Op(o1, a1, b1), Size::Op(o2, a2, b2)) if o1 == o2 => {
                // A constant is matched with the other side's constant: `m + 1` and `1 + n`
                // give `m = n` (not `m = 1`, `n = 1`).
                let commutes = matches!(o1, '+' | '*');
                let is_const = |s: &Size| matches!(s, Size::Const(_));
                let (a2, b2) = if commutes
                    && ((is_const(b1) && is_const(a2)) || (is_const(a1) && is_const(b2)))
                {
                    (b2, a2)
                } else {
                    (a2, b2)
                };
                let mark = undo.len();
                if self.unify_size_logged(a1, a2, undo) && self.unify_size_logged(b1, b2, undo) {
                    return true;
                }
                self.undo_sizes(undo, mark);
                self.solve_size(&a, &b, undo) || self.solve_size(&b, &a, undo)
            }
            (Size::Op(..), _) => self.solve_size(&a, &b, undo),
            (_, Size::Op(..)) => self.solve_size(&b, &a, undo),
            _ => a == b,
        }
    }

    /// Solves `lhs = rhs` for the variable of `lhs` when `lhs` is `x + e`, `e + x` or `x - e`
    /// with `e` made of constants and names, and `rhs` does not mention `x`; true when it did.
    fn solve_size(&mut self, lhs: &Size, rhs: &Size, undo: &mut Vec<SizeUndo>) -> bool {
        if matches!(rhs, Size::Unknown) {
            return false;
        }
        let Size::Op(op, l, r) = lhs else {
            return false;
        };
        let (x, e, inverse) = match (*op, &**l, &**r) {
            ('+', Size::Var(x), e) | ('+', e, Size::Var(x)) => (*x, e, '-'),
            ('-', Size::Var(x), e) => (*x, e, '+'),
            _ => return false,
        };
        // Only for a known `e`: `n + m` of `split` waits for its parts.
        if !self.size_is_ground(e) || self.size_occurs(x, rhs) {
            return false;
        }
        let solution = Size::Op(inverse, Box::new(rhs.clone()), Box::new(e.clone()));
        self.bind_size_logged(x, solution, undo);
        true
    }

    /// Whether `s` is made of constants and names only (no variable, nothing unknown).
    fn size_is_ground(&self, s: &Size) -> bool {
        match self.resolve_size(s) {
            Size::Const(_) | Size::Named(..) => true,
            Size::Op(_, a, b) => self.size_is_ground(&a) && self.size_is_ground(&b),
            Size::Var(_) | Size::Unknown => false,
        }
    }

    /// Binds `x` to `s`, lowering the levels of the variables of `s` to `x`'s.
    fn bind_size_logged(&mut self, x: SizeVar, s: Size, undo: &mut Vec<SizeUndo>) {
        let level = self.size_level(x);
        self.lower_size_levels_logged(&s, level, undo);
        undo.push(SizeUndo::Bound(x));
        self.set_size(x, s);
    }

    fn lower_size_levels_logged(&mut self, s: &Size, level: u32, undo: &mut Vec<SizeUndo>) {
        match self.resolve_size(s) {
            Size::Var(v) => {
                if let Some(l) = self.slevels.get_mut(v.0 as usize)
                    && *l > level
                {
                    undo.push(SizeUndo::Level(v, *l));
                    *l = level;
                }
            }
            Size::Op(_, a, b) => {
                self.lower_size_levels_logged(&a, level, undo);
                self.lower_size_levels_logged(&b, level, undo);
            }
            _ => {}
        }
    }

    /// Takes back the changes recorded in `undo` after its first `mark` entries.
    fn undo_sizes(&mut self, undo: &mut Vec<SizeUndo>, mark: usize) {
        while undo.len() > mark {
            match undo.pop() {
                Some(SizeUndo::Bound(v)) => {
                    if let Some(slot) = self.ssubst.get_mut(v.0 as usize) {
                        *slot = None;
                    }
                }
                Some(SizeUndo::Level(v, l)) => {
                    if let Some(slot) = self.slevels.get_mut(v.0 as usize) {
                        *slot = l;
                    }
                }
                None => {}
            }
        }
    }
}
