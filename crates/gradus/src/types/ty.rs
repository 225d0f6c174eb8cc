//! Source-level types as the type checker infers them.
//!
//! A [`Ty`] is what a source expression has: primitives, arrays (whose elements may be tuples
//! and records), records (tuples are records with fields `0`, `1`, ...), functions, rigid type
//! parameters and unification variables. Sizes ([`Size`]) are kept as far as the checker can
//! tell them; where it cannot, a size is [`Size::Unknown`] and the check happens at run time.

use crate::core::scalar::PrimType;
use std::collections::BTreeMap;
use std::fmt;

/// A unification variable for types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TyVar(pub u32);

/// A unification variable for sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SizeVar(pub u32);

/// Identifies one binding of a name (a parameter, a `let`, a size parameter, a top-level
/// constant): sizes refer to bindings, not to strings, so shadowing cannot confuse them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BindingId(pub u32);

/// An array dimension.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Size {
    /// A constant.
    Const(i64),
    /// The value of an `i64` binding (a size parameter or an `i64` variable), with its name for
    /// printing.
    Named(BindingId, String),
    /// `a + b`, `a * b`, `a - b` of sizes, or `a / c`, `a % c` with a non-zero constant `c`
    /// (compared syntactically, docs/language.md §Size rules).
    Op(char, Box<Size>, Box<Size>),
    /// Not yet known: to be found by unification.
    Var(SizeVar),
    /// Known only at run time (the result of `filter`, a computed slice, ...).
    Unknown,
}

/// The name of a pseudo-constructor that messages add to a sum type known only to have some
/// constructors (printed `...`, as in `#some i32 | ...`).
pub const OPEN_SUM: &str = "...";

/// A source-level type.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// A primitive type.
    Prim(PrimType),
    /// An array: dimensions (outermost first, at least one) of an element type that is not
    /// itself an array.
    Array(Vec<Size>, Box<Ty>),
    /// A record; tuples are records with fields `"0"`, `"1"`, ...; the unit type is the empty
    /// record.
    Record(BTreeMap<String, Ty>),
    /// A sum type: constructor names (without `#`) and their payload types. The tag of a
    /// constructor is its position in name order.
    Sum(BTreeMap<String, Vec<Ty>>),
    /// A function from the first type to the second.
    Arrow(Box<Ty>, Box<Ty>),
    /// A rigid type parameter (inside the declaration that binds it).
    Param(String),
    /// A unification variable.
    Var(TyVar),
}

impl Ty {
    /// The unit type `()`.
    pub fn unit() -> Ty {
        Ty::Record(BTreeMap::new())
    }
    /// A tuple of the given components (a single component is returned as it is).
    pub fn tuple(mut items: Vec<Ty>) -> Ty {
        if items.len() == 1 {
            return items.remove(0);
        }
        Ty::Record(
            items
                .into_iter()
                .enumerate()
                .map(|(i, t)| (i.to_string(), t))
                .collect(),
        )
    }
    /// The components if this record is a tuple (fields `0..n`, n ≠ 1).
    pub fn tuple_components(&self) -> Option<Vec<&Ty>> {
        match self {
            Ty::Record(fields) if is_tuple_fields(fields) => {
                let mut v: Vec<(usize, &Ty)> = fields
                    .iter()
                    .filter_map(|(k, t)| k.parse::<usize>().ok().map(|i| (i, t)))
                    .collect();
                v.sort_by_key(|(i, _)| *i);
                Some(v.into_iter().map(|(_, t)| t).collect())
            }
            _ => None,
        }
    }
    /// `[d]self`, merging with existing dimensions.
    pub fn array_of(self, d: Size) -> Ty {
        match self {
            Ty::Array(mut dims, elem) => {
                dims.insert(0, d);
                Ty::Array(dims, elem)
            }
            other => Ty::Array(vec![d], Box::new(other)),
        }
    }
    /// The type of one row of an array (`None` if not an array).
    pub fn row(&self) -> Option<Ty> {
        match self {
            Ty::Array(dims, elem) if dims.len() > 1 => {
                Some(Ty::Array(dims[1..].to_vec(), elem.clone()))
            }
            Ty::Array(_, elem) => Some((**elem).clone()),
            _ => None,
        }
    }
    /// Array rank (0 for non-arrays).
    pub fn rank(&self) -> usize {
        match self {
            Ty::Array(dims, _) => dims.len(),
            _ => 0,
        }
    }
    /// Whether the type contains a function type.
    pub fn contains_function(&self) -> bool {
        match self {
            Ty::Arrow(..) => true,
            Ty::Array(_, e) => e.contains_function(),
            Ty::Record(fs) => fs.values().any(Ty::contains_function),
            Ty::Sum(cs) => cs.values().flatten().any(Ty::contains_function),
            _ => false,
        }
    }
}

/// Whether record fields are those of a tuple: `0, 1, ..., n-1` with `n >= 2`.
pub fn is_tuple_fields(fields: &BTreeMap<String, Ty>) -> bool {
    fields.len() >= 2 && (0..fields.len()).all(|i| fields.contains_key(&i.to_string()))
}

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Size::Const(n) => write!(f, "{n}"),
            Size::Named(_, name) => f.write_str(name),
            Size::Op(op, a, b) => write!(f, "{a} {op} {b}"),
            Size::Var(_) | Size::Unknown => Ok(()),
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Prim(t) => write!(f, "{t}"),
            Ty::Array(dims, elem) => {
                for d in dims {
                    write!(f, "[{d}]")?;
                }
                match **elem {
                    Ty::Sum(_) => write!(f, "({elem})"),
                    _ => write!(f, "{elem}"),
                }
            }
            Ty::Record(fields) => {
                if let Some(items) = self.tuple_components() {
                    write!(f, "(")?;
                    for (i, t) in items.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        write!(f, "{t}")?;
                    }
                    write!(f, ")")
                } else if fields.is_empty() {
                    write!(f, "()")
                } else {
                    write!(f, "{{")?;
                    for (i, (k, t)) in fields.iter().enumerate() {
                        if i > 0 {
                            write!(f, ", ")?;
                        }
                        write!(f, "{k}: {t}")?;
                    }
                    write!(f, "}}")
                }
            }
            Ty::Arrow(a, b) => match **a {
                Ty::Arrow(..) | Ty::Sum(_) => write!(f, "({a}) -> {b}"),
                _ => write!(f, "{a} -> {b}"),
            },
            Ty::Sum(cs) => {
                let closed = cs.iter().filter(|(c, _)| *c != OPEN_SUM);
                for (i, (c, payload)) in closed.enumerate() {
                    if i > 0 {
                        write!(f, " | ")?;
                    }
                    write!(f, "#{c}")?;
                    for t in payload {
                        match t {
                            Ty::Arrow(..) | Ty::Sum(_) => write!(f, " ({t})")?,
                            _ => write!(f, " {t}")?,
                        }
                    }
                }
                if cs.contains_key(OPEN_SUM) {
                    write!(f, " | {OPEN_SUM}")?;
                }
                Ok(())
            }
            Ty::Param(name) => write!(f, "{name}"),
            Ty::Var(v) => write!(f, "?t{}", v.0),
        }
    }
}
