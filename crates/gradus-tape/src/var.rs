//! `Var`: a recorded scalar (docs/tape.md §Data structures), with operator overloading and the
//! elementary functions of [`gradus_num::Real`], whose partials come from [`gradus_num::rules`].

use crate::id::NodeId;
use crate::record::with_active;
use gradus_num::{Real, rules};
use std::cmp::Ordering;
use std::fmt;
use std::iter::Sum;
use std::marker::PhantomData;
use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Rem, Sub, SubAssign};

/// A scalar of a recording: its value, a node ([`NodeId::CONSTANT`] for constants) and a
/// coefficient: the derivative of the value with respect to the node's value.
///
/// 24 bytes, `Copy`, `Send` and `Sync`. The invariant lifetime `'r` brands the recording: the
/// closures given to [`grad`](crate::grad) and [`record`](crate::record) are generic over it, so
/// a `Var` cannot escape its recording or be combined with another recording's `Var`s — the
/// compiler rejects it.
///
/// Every operation is recorded into the job running on the current thread.
///
/// # Panics
/// An operation that records (two or more non-constant operands) on a thread that runs no job of a recording (for
/// example a thread the user spawned inside the closure) panics with "gradus-tape: operation on
/// a Var outside its recording's jobs". Use [`join`](crate::join) and
/// [`par_map`](crate::par_map) for parallelism inside a recording.
///
/// Values must flow between parallel tasks only along the fork-join structure (captured at the
/// fork, returned at the join). A `Var` sent to a sibling task through a channel, a lock or a
/// global breaks the order of the reverse pass and gives wrong gradients.
///
/// Constants record nothing: an operation whose operands are all constants returns a constant.
/// Operations with one operand that is not a constant (`x.exp()`, `x * c`, `c - x`, `x / c`, …)
/// record nothing either: they return that operand's node with the coefficient multiplied by
/// the operation's partial derivative, and the next operation with two operands folds the
/// coefficients into its partials (see the note "Coefficients" in `var.rs`). A coefficient that
/// would not be finite is recorded as a node instead; one that is exactly 0 (`x * 0.0`) gives
/// a constant.
/// Nested recordings are independent; a `Var` of an outer recording must not be used inside an
/// inner one (the brand catches mixing the two in one operation, not every such use).
///
/// Comparisons (`==`, `<`, …) compare values only.
#[derive(Clone, Copy)]
pub struct Var<'r> {
    value: f64,
    id: NodeId,
    /// `∂ value / ∂ node`: 1 for inputs and recorded nodes; always finite.
    scale: f64,
    brand: PhantomData<fn(&'r ()) -> &'r ()>,
}

impl<'r> Var<'r> {
    #[inline]
    pub(crate) fn from_parts(value: f64, id: NodeId) -> Var<'r> {
        Var {
            value,
            id,
            scale: 1.0,
            brand: PhantomData,
        }
    }
    /// Replaces the value, keeping the node and the coefficient (for the inputs of a reused
    /// tape).
    #[inline(always)]
    pub(crate) fn set_value(&mut self, value: f64) {
        self.value = value;
    }
    /// The coefficient `∂ value / ∂ node` (1 for a recorded node; irrelevant for a constant).
    #[inline(always)]
    pub(crate) fn scale(self) -> f64 {
        self.scale
    }
    /// The ID of a node whose adjoint is this value's: its node if the coefficient is 1,
    /// otherwise a node recorded now (for outputs).
    #[inline]
    pub(crate) fn output_id(self) -> NodeId {
        if self.is_constant() || self.scale == 1.0 {
            return self.id;
        }
        let (a, p) = (self.id, self.scale);
        with_active!(|seg| seg.push1(a, p))
    }
    /// A constant (records nothing, receives no adjoint).
    #[inline]
    pub fn constant(value: f64) -> Var<'r> {
        Var::from_parts(value, NodeId::CONSTANT)
    }
    /// The primal value.
    #[inline]
    pub fn value(self) -> f64 {
        self.value
    }
    /// The node this value depends on: the last operation with two or more non-constant
    /// operands that led to it (or an input), whose value it depends on through operations
    /// with one such operand only.
    #[inline]
    pub fn id(self) -> NodeId {
        self.id
    }
    /// Whether this is a constant.
    #[inline]
    pub fn is_constant(self) -> bool {
        self.id.is_constant()
    }

    /// A value `v` with partial `p` with respect to `self`: `self`'s node with the coefficient
    /// multiplied by `p`, a constant where that product is 0 (a passive value: `w * 0.0`, or a
    /// weight times a `relu` that cut), or a recorded node where it is not finite.
    #[inline(always)]
    pub(crate) fn unary(self, (v, p): (f64, f64)) -> Var<'r> {
        let scale = self.scale * p;
        if self.id.is_constant() || scale == 0.0 {
            return Var::constant(v);
        }
        if scale.is_finite() {
            return Var {
                value: v,
                id: self.id,
                scale,
                brand: PhantomData,
            };
        }
        let a = self.id;
        let id = with_active!(|seg| seg.push1(a, scale));
        Var::from_parts(v, id)
    }

    /// A value `v` with partials `pa`, `pb` with respect to `self` and `o`: one record with the
    /// operands' coefficients folded into the partials, or, when one operand is a constant,
    /// [`unary`](Self::unary) of the other.
    #[inline(always)]
    pub(crate) fn binary(self, o: Var<'r>, vp: (f64, f64, f64)) -> Var<'r> {
        self.binary_as::<false>(o, vp)
    }

    /// [`binary`](Self::binary); an addition (`ADD`) may fold into the record before it (see
    /// `Segment::push_add`).
    #[inline(always)]
    fn binary_as<const ADD: bool>(self, o: Var<'r>, (v, pa, pb): (f64, f64, f64)) -> Var<'r> {
        let (a, b) = (self.id, o.id);
        if a.is_constant() {
            return o.unary((v, pb));
        }
        if b.is_constant() {
            return self.unary((v, pa));
        }
        let (pa, pb) = (pa * self.scale, pb * o.scale);
        let id = if ADD {
            with_active!(|seg| seg.push_add(a, pa, b, pb))
        } else {
            with_active!(|seg| seg.push_pair(a, pa, b, pb))
        };
        Var::from_parts(v, id)
    }

    /// A value with derivative 0: a constant.
    #[inline]
    fn flat(v: f64) -> Var<'r> {
        Var::constant(v)
    }

    /// `self` or `o`, whichever the rule selected (no new node).
    #[inline]
    fn select(self, o: Var<'r>, first: bool) -> Var<'r> {
        if first { self } else { o }
    }
}

/// The sum of `terms` as one n-ary node rather than a chain of additions: 24 bytes, and 12
/// per non-constant operand, or 8 per operand where the terms are consecutive nodes of the
/// running job (`xᵢ.exp()` over a slice of inputs, say: the coefficients folded from the
/// elementwise functions become the partials, resolved by one `axpy`).
///
/// ```
/// let (y, g) = gradus_tape::grad(&[1.0, 2.0, 3.0], |x| gradus_tape::sum(x));
/// assert_eq!((y, g), (6.0, vec![1.0, 1.0, 1.0]));
/// ```
pub fn sum<'r>(terms: &[Var<'r>]) -> Var<'r> {
    let value: f64 = terms.iter().map(|t| t.value).sum();
    if terms.iter().all(|t| t.is_constant()) {
        return Var::constant(value);
    }
    let id = with_active!(|seg| seg.push_sum(terms));
    Var::from_parts(value, id)
}

/// The buffers of a [`sum_iter`] in progress: the coefficients of terms that are consecutive
/// nodes so far (their nodes implied by the first), and (node, coefficient) pairs once they
/// are not.
#[derive(Default)]
struct SumTerms {
    scales: Vec<f64>,
    pairs: Vec<(NodeId, f64)>,
}

impl SumTerms {
    /// Appends the terms buffered as coefficients, nodes from `first` on, to the pairs.
    fn list(&mut self, first: u64) {
        let nodes = (0..).map(|i| NodeId::from_bits(first.wrapping_add(i)));
        self.pairs.extend(nodes.zip(self.scales.iter().copied()));
    }
}

std::thread_local! {
    /// Kept between calls of [`sum_iter`] (taken out while in use, so a nested `sum_iter` gets
    /// fresh ones).
    static SUM_TERMS: std::cell::Cell<SumTerms> = std::cell::Cell::new(SumTerms::default());
}

/// [`sum`] of the terms an iterator yields, without collecting them into a slice of `Var`s
/// first: `sum_iter(x.iter().map(|&v| (v - m).exp()))` records one node, 8 bytes per term
/// where the terms are consecutive nodes of the running job (as [`sum`]). While the terms are
/// consecutive nodes only their coefficients are buffered (8 bytes each), otherwise
/// (node, coefficient) pairs, in buffers the thread keeps, so a large sum allocates nothing
/// after the first. The value is summed in order from 0, as `Iterator::sum` does; a single
/// non-constant term records nothing, two record one addition.
///
/// ```
/// let (y, g) = gradus_tape::grad(&[1.0, 2.0, 3.0], |x| {
///     gradus_tape::sum_iter(x.iter().map(|&v| v * v))
/// });
/// assert_eq!((y, g), (14.0, vec![2.0, 4.0, 6.0]));
/// ```
pub fn sum_iter<'r, I: IntoIterator<Item = Var<'r>>>(terms: I) -> Var<'r> {
    let mut buf = SUM_TERMS.take();
    buf.scales.clear();
    buf.pairs.clear();
    let (mut value, mut last) = (0.0, Var::constant(0.0));
    // The first term's node; `dense` while every term is the node after the previous one.
    let (mut first, mut dense) = (0u64, true);
    for t in terms {
        value += t.value;
        if t.is_constant() {
            continue;
        }
        last = t;
        if dense {
            if buf.scales.is_empty() {
                first = t.id.bits();
            }
            if t.id.bits() == first.wrapping_add(buf.scales.len() as u64) {
                buf.scales.push(t.scale);
                continue;
            }
            dense = false;
            buf.list(first);
        }
        buf.pairs.push((t.id, t.scale));
    }
    if dense && buf.scales.len() <= 2 {
        // No node for fewer than three: the term itself, or one addition.
        dense = false;
        buf.list(first);
    }
    let out = if dense {
        let id = with_active!(|seg| seg.push_sum_dense(NodeId::from_bits(first), &buf.scales));
        Var::from_parts(value, id)
    } else {
        match buf.pairs.len() {
            0 => Var::constant(value),
            // One operand: its node and coefficient, with the constants added to the value.
            1 => Var { value, ..last },
            2 => {
                let [(a, pa), (b, pb)] = [buf.pairs[0], buf.pairs[1]];
                let id = with_active!(|seg| seg.push_pair(a, pa, b, pb));
                Var::from_parts(value, id)
            }
            _ => {
                let id = with_active!(|seg| seg.push_many(buf.pairs.iter().copied()));
                Var::from_parts(value, id)
            }
        }
    };
    SUM_TERMS.set(buf);
    out
}

/// The dot product `Σ uᵢ vᵢ` (summed in index order from 0) as one node, rather than `2n`
/// nodes of 24 bytes: a side whose operands are consecutive nodes of the running job (a slice
/// of the inputs, or of values computed one record each) takes 8 bytes per operand and is
/// resolved by one vectorised `axpy`; another side takes 12 bytes per operand. The reverse
/// pass makes `2n` independent updates instead of following a chain of additions. Dot products
/// of one or two pairs are recorded as the operations of the loop, which cost less. The value is that of the loop
/// `acc = acc + u[i] * v[i]` from `acc = 0`. `dot(u, u)` (the same slice on both sides) is a
/// squared norm: one side, whose partials are `2 uᵢ`.
///
/// # Panics
/// If `u` and `v` differ in length.
///
/// ```
/// let (y, g) = gradus_tape::grad(&[1.0, 2.0, 3.0, 4.0], |x| gradus_tape::dot(&x[..2], &x[2..]));
/// assert_eq!((y, g), (11.0, vec![3.0, 4.0, 1.0, 2.0]));
/// ```
pub fn dot<'r>(u: &[Var<'r>], v: &[Var<'r>]) -> Var<'r> {
    /// Dot products up to this length are recorded as operations.
    const SHORT_DOT: usize = 2;
    assert_eq!(
        u.len(),
        v.len(),
        "gradus-tape: dot of slices of lengths {} and {}",
        u.len(),
        v.len()
    );
    if u.len() <= SHORT_DOT {
        return short_dot(u, v);
    }
    // The first operands decide the common case without a pass over both sides.
    if u[0].is_constant() && v[0].is_constant() && u.iter().chain(v).all(|t| t.is_constant()) {
        return constant_dot(u, v);
    }
    let (value, id) = if std::ptr::eq(u, v) {
        // A squared norm: one side whose partials are 2 uᵢ.
        with_active!(|seg| seg.push_dot_self(u))
    } else {
        with_active!(|seg| seg.push_dot(u, v))
    };
    Var::from_parts(value, id)
}

/// [`dot`] of one or two pairs, recorded as the operations of the loop: cheaper than a node
/// with side arrays.
#[inline(never)]
fn short_dot<'r>(u: &[Var<'r>], v: &[Var<'r>]) -> Var<'r> {
    u.iter()
        .zip(v)
        .fold(Var::constant(0.0), |acc, (&a, &b)| acc + a * b)
}

/// [`dot`] of constants: a constant.
#[cold]
fn constant_dot<'r>(u: &[Var<'r>], v: &[Var<'r>]) -> Var<'r> {
    let value = u
        .iter()
        .zip(v)
        .fold(0.0, |acc, (a, b)| acc + a.value * b.value);
    Var::constant(value)
}

/// The dot product `Σ uᵢ cᵢ` of values and constant weights (summed in index order from 0)
/// as one node: 24 bytes, and 8 per operand where `u` is a range of consecutive nodes of the
/// running job (12 otherwise), resolved by one `axpy`. Products of one or two pairs are
/// recorded as the loop's operations. The value is that of the loop `acc = acc + u[i] * c[i]`
/// from `acc = 0`.
///
/// # Panics
/// If `u` and `c` differ in length.
///
/// ```
/// let (y, g) = gradus_tape::grad(&[1.0, 2.0, 3.0], |x| gradus_tape::dot_const(x, &[4.0, 5.0, 6.0]));
/// assert_eq!((y, g), (32.0, vec![4.0, 5.0, 6.0]));
/// ```
pub fn dot_const<'r>(u: &[Var<'r>], c: &[f64]) -> Var<'r> {
    assert_eq!(
        u.len(),
        c.len(),
        "gradus-tape: dot_const of slices of lengths {} and {}",
        u.len(),
        c.len()
    );
    if u.len() <= 2 || u.iter().all(|t| t.is_constant()) {
        // The loop: cheaper than a node with side arrays, and a constant if `u` is.
        return u
            .iter()
            .zip(c)
            .fold(Var::constant(0.0), |acc, (&a, &w)| acc + a * w);
    }
    let (value, id) = with_active!(|seg| seg.push_dot_const(u, c));
    Var::from_parts(value, id)
}

/// The matrix-vector product `m v` of a row-major matrix `m` with `v.len()` columns: one
/// [`dot`] node per row, so each row costs 8 bytes per operand on a side whose operands are
/// consecutive nodes (a row of inputs, say) and 12 otherwise, instead of two 24-byte nodes per
/// entry.
///
/// # Panics
/// If `m.len()` is not a multiple of `v.len()` (or `v` is empty and `m` is not).
///
/// ```
/// let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let (y, g) = gradus_tape::grad(&x, |p| {
///     let r = gradus_tape::matvec(&p[..4], &p[4..]);
///     r[0] + r[1]
/// });
/// assert_eq!(y, (1.0 * 5.0 + 2.0 * 6.0) + (3.0 * 5.0 + 4.0 * 6.0));
/// assert_eq!(g, vec![5.0, 6.0, 5.0, 6.0, 1.0 + 3.0, 2.0 + 4.0]);
/// ```
pub fn matvec<'r>(m: &[Var<'r>], v: &[Var<'r>]) -> Vec<Var<'r>> {
    if v.is_empty() {
        assert!(
            m.is_empty(),
            "gradus-tape: matvec of a matrix of {} entries and an empty vector",
            m.len()
        );
        return Vec::new();
    }
    assert!(
        m.len().is_multiple_of(v.len()),
        "gradus-tape: matvec of a matrix of {} entries and a vector of length {} (not a \
         multiple)",
        m.len(),
        v.len()
    );
    m.chunks_exact(v.len()).map(|row| dot(row, v)).collect()
}

impl fmt::Debug for Var<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Var({} @ {:?} × {})", self.value, self.id, self.scale)
    }
}

impl fmt::Display for Var<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.value, f)
    }
}

impl PartialEq for Var<'_> {
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        self.value == o.value
    }
}
impl PartialOrd for Var<'_> {
    #[inline]
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        self.value.partial_cmp(&o.value)
    }
}
impl PartialEq<f64> for Var<'_> {
    #[inline]
    fn eq(&self, o: &f64) -> bool {
        self.value == *o
    }
}
impl PartialOrd<f64> for Var<'_> {
    #[inline]
    fn partial_cmp(&self, o: &f64) -> Option<Ordering> {
        self.value.partial_cmp(o)
    }
}

macro_rules! binary_op {
    ($tr:ident, $m:ident, $atr:ident, $am:ident, $rule:path, $add:expr) => {
        impl<'r> $tr for Var<'r> {
            type Output = Var<'r>;
            #[inline(always)]
            fn $m(self, o: Var<'r>) -> Var<'r> {
                self.binary_as::<{ $add }>(o, $rule(self.value, o.value))
            }
        }
        impl<'r> $tr<f64> for Var<'r> {
            type Output = Var<'r>;
            #[inline(always)]
            fn $m(self, o: f64) -> Var<'r> {
                self.binary(Var::constant(o), $rule(self.value, o))
            }
        }
        impl<'r> $tr<Var<'r>> for f64 {
            type Output = Var<'r>;
            #[inline(always)]
            fn $m(self, o: Var<'r>) -> Var<'r> {
                Var::constant(self).binary(o, $rule(self, o.value))
            }
        }
        impl<'r> $atr for Var<'r> {
            #[inline(always)]
            fn $am(&mut self, o: Var<'r>) {
                *self = $tr::$m(*self, o);
            }
        }
        impl<'r> $atr<f64> for Var<'r> {
            #[inline(always)]
            fn $am(&mut self, o: f64) {
                *self = $tr::$m(*self, o);
            }
        }
    };
}

binary_op!(Add, add, AddAssign, add_assign, rules::add, true);
binary_op!(Sub, sub, SubAssign, sub_assign, rules::sub, false);
binary_op!(Mul, mul, MulAssign, mul_assign, rules::mul, false);
binary_op!(Div, div, DivAssign, div_assign, rules::div, false);

impl<'r> Rem for Var<'r> {
    type Output = Var<'r>;
    #[inline]
    fn rem(self, o: Var<'r>) -> Var<'r> {
        self.binary(o, rules::rem(self.value, o.value))
    }
}

impl<'r> Neg for Var<'r> {
    type Output = Var<'r>;
    #[inline]
    fn neg(self) -> Var<'r> {
        self.unary((-self.value, -1.0))
    }
}

impl<'r> Sum for Var<'r> {
    /// Sums in order from the constant 0 with binary additions (a chain of nodes; see
    /// [`sum`](crate::sum) for one n-ary node).
    fn sum<I: Iterator<Item = Var<'r>>>(iter: I) -> Var<'r> {
        iter.fold(Var::constant(0.0), |a, b| a + b)
    }
}

impl<'a, 'r> Sum<&'a Var<'r>> for Var<'r> {
    fn sum<I: Iterator<Item = &'a Var<'r>>>(iter: I) -> Var<'r> {
        iter.fold(Var::constant(0.0), |a, b| a + *b)
    }
}

macro_rules! unary_methods {
    ($($m:ident),*) => {
        $(
            #[inline]
            fn $m(self) -> Self {
                self.unary(rules::$m(self.value))
            }
        )*
    };
}

impl<'r> Real for Var<'r> {
    #[inline]
    fn from_f64(x: f64) -> Self {
        Var::constant(x)
    }
    #[inline]
    fn to_f64(self) -> f64 {
        self.value
    }
    unary_methods!(
        sqrt, cbrt, rsqrt, exp, exp2, ln, log2, log10, log1p, expm1, sin, cos, tan, asin, acos,
        atan, sinh, cosh, tanh, asinh, acosh, atanh, abs, erf, erfc, gamma, lgamma, recip, square,
        digamma
    );
    #[inline]
    fn atan2(self, x: Self) -> Self {
        self.binary(x, rules::atan2(self.value, x.value))
    }
    #[inline]
    fn powi(self, n: i32) -> Self {
        self.unary(rules::powi(self.value, n))
    }
    #[inline]
    fn powf(self, p: Self) -> Self {
        self.binary(p, rules::powf(self.value, p.value))
    }
    #[inline]
    fn min(self, o: Self) -> Self {
        let (_, pa, _) = rules::min(self.value, o.value);
        self.select(o, pa == 1.0)
    }
    #[inline]
    fn max(self, o: Self) -> Self {
        let (_, pa, _) = rules::max(self.value, o.value);
        self.select(o, pa == 1.0)
    }
    #[inline]
    fn hypot(self, o: Self) -> Self {
        self.binary(o, rules::hypot(self.value, o.value))
    }
    #[inline]
    fn floor(self) -> Self {
        Var::flat(self.value.floor())
    }
    #[inline]
    fn ceil(self) -> Self {
        Var::flat(self.value.ceil())
    }
    #[inline]
    fn round(self) -> Self {
        Var::flat(self.value.round())
    }
    #[inline]
    fn trunc(self) -> Self {
        Var::flat(self.value.trunc())
    }
    #[inline]
    fn signum(self) -> Self {
        Var::flat(Real::signum(self.value))
    }
    #[inline]
    fn copysign(self, s: Self) -> Self {
        self.binary(s, rules::copysign(self.value, s.value))
    }
    #[inline]
    fn nextafter(self, t: Self) -> Self {
        self.binary(t, rules::nextafter(self.value, t.value))
    }
    fn dot(u: &[Self], v: &[Self]) -> Self {
        dot(u, v)
    }
    fn dot_const(u: &[Self], c: &[f64]) -> Self {
        dot_const(u, c)
    }
    fn matvec(m: &[Self], v: &[Self]) -> Vec<Self> {
        matvec(m, v)
    }
    #[inline]
    fn mul_add(self, a: Self, b: Self) -> Self {
        // One node with three edges: partials a, self, 1.
        let v = self.value.mul_add(a.value, b.value);
        let ops = [
            (self.id, a.value * self.scale),
            (a.id, self.value * a.scale),
            (b.id, b.scale),
        ];
        if ops.iter().all(|(id, _)| id.is_constant()) {
            return Var::constant(v);
        }
        let id = with_active!(|seg| seg.push_many(ops.into_iter()));
        Var::from_parts(v, id)
    }
}

// Inherent forwarding so that `x.sin()` works on a `Var` without importing `Real`.
macro_rules! inherent_unary {
    ($($m:ident),*) => {
        impl<'r> Var<'r> {
            $(
                #[doc = concat!("`", stringify!($m), "`, as [`Real::", stringify!($m), "`].")]
                #[inline]
                pub fn $m(self) -> Var<'r> {
                    Real::$m(self)
                }
            )*
        }
    };
}
inherent_unary!(
    sqrt, cbrt, exp, exp2, ln, log2, log10, log1p, expm1, sin, cos, tan, asin, acos, atan, sinh,
    cosh, tanh, asinh, acosh, atanh, abs, erf, erfc, gamma, lgamma, recip, square
);

impl<'r> Var<'r> {
    /// Integer power, as [`Real::powi`].
    #[inline]
    pub fn powi(self, n: i32) -> Var<'r> {
        Real::powi(self, n)
    }
    /// Real power, as [`Real::powf`].
    #[inline]
    pub fn powf(self, p: Var<'r>) -> Var<'r> {
        Real::powf(self, p)
    }
    /// Four-quadrant arctangent, as [`Real::atan2`].
    #[inline]
    pub fn atan2(self, x: Var<'r>) -> Var<'r> {
        Real::atan2(self, x)
    }
    /// Minimum, as [`Real::min`] (ties select `self`).
    #[inline]
    pub fn min(self, o: Var<'r>) -> Var<'r> {
        Real::min(self, o)
    }
    /// Maximum, as [`Real::max`] (ties select `self`).
    #[inline]
    pub fn max(self, o: Var<'r>) -> Var<'r> {
        Real::max(self, o)
    }
    /// `sqrt(x² + y²)`, as [`Real::hypot`].
    #[inline]
    pub fn hypot(self, o: Var<'r>) -> Var<'r> {
        Real::hypot(self, o)
    }
}

// Note [Coefficients]
//
// A `Var` is (value v, node n, coefficient s) with s = ∂v/∂(value of n). An operation with one
// non-constant operand x and partial p returns (f(x), n_x, s_x · p): by the chain rule every
// later use of the result, which adds ā · q to the adjoint of the result, may add ā · q · s_x ·
// p to n_x directly. A recorded operation with operands x, y therefore stores the partials
// q_x · s_x and q_y · s_y (likewise `sum`, `mul_add`, `dot`'s sides and statements), and an
// output of coefficient s ≠ 1 records one node with partial s, so that its seed reaches n with
// the factor s. Uses are independent: a `Var` may be copied and used any number of times, in
// any job (a captured `Var` keeps its coefficient; its node is reached through the job's proxy
// as before). Coefficients are kept finite — a product that is not becomes a recorded node
// with coefficient 1 — so a zero partial never meets an infinite coefficient at record time,
// and infinities reach the adjoints where they did when every operation was a node. With
// coefficient 1 (no folded operation) the stored partials are the operation's, bit for bit.
// A coefficient that becomes exactly 0 makes the value a constant: its derivative is 0, so
// nothing it would record could change a finite gradient (an infinite or NaN adjoint no
// longer reaches the node through it; this is CoDiPack's default of not storing zero
// Jacobians). In a dense layer after a `relu`, the weights that meet a cut unit then record
// nothing, and the running sum skips them instead of recording an addition with partial 0.
