//! Loops of float sums printed in lanes.
//!
//! Takes a sequential `for` loop whose body the lowering marked with [`LANE_SUM`] (a loop
//! that carries only float sums, with no inner loop, allocation or jump out; see
//! `lower::combine`). Guarantees the same sums with their additions regrouped: iteration
//! `i` of each whole block of [`LANES`] adds into lane `i mod LANES` (lane 0 is the
//! accumulator itself), the iterations left over add into lane 0, and the lanes are added
//! into the accumulator at the end. The lanes' additions do not depend on each other, so
//! the C compiler can put them side by side in one vector register without reassociating
//! anything itself (no `-fassociative-math`, no OpenMP `simd` reduction, whose per-lane
//! copies in memory cost more than a short loop): the grouping is fixed here, the same
//! whatever the compiler or the vector width. Every other float operation keeps its IEEE
//! result.
//!
//! Also takes a loop of sums over rows (marked `SIMD_SUM`) whose body sums each row in lanes:
//! where the rows' lengths can be computed before it, guarantees the loop printed twice behind
//! a run-time test on those lengths, vectorised across short rows and in lanes along long
//! ones ([`Printer::short_rows_choice`]); both give the same sums up to their grouping.

use super::Printer;
use super::outline::bodies;
use crate::backend::lower::imp::{Ex, IdxOp, Stm};
use crate::backend::lower::{LANE_SUM, SIMD_SUM};
use crate::core::scalar::Scalar;

/// The lanes of a loop of sums: four `f64` fill a 256-bit vector.
const LANES: usize = 4;
// The lanes' final combination below adds exactly four lanes, pairwise.
const _: () = assert!(LANES == 4);

/// The longest rows for which a loop of sums over rows is vectorised across rows rather than
/// its rows in lanes (see [`Printer::short_rows_choice`]).
const SHORT_ROWS: i64 = 16;

/// How many assignments [`resolve`] follows back before it gives up.
const RESOLVE_DEPTH: usize = 8;

/// The first line of a loop printed in lanes (after its opening brace), by which a loop of
/// sums around it knows not to be marked for vectorisation itself.
pub(super) const OPENING: &str = "/* sums in lanes */";

impl Printer<'_> {
    /// Prints the loop `for var < bound` with body `body` in lanes when the body is marked
    /// with [`LANE_SUM`] (and this is not GPU code); returns whether it did.
    pub(super) fn sums_in_lanes(&mut self, var: &str, bound: &Ex, body: &[Stm], d: usize) -> bool {
        let mark = body.iter().find_map(|s| match s {
            Stm::Comment(c) => c.strip_prefix(LANE_SUM),
            _ => None,
        });
        let Some(mark) = mark.filter(|_| self.gpu.is_none() && !self.lanes_off) else {
            return false;
        };
        let mut words = mark.split(' ');
        let ty = match words.next() {
            Some("f64") => "double",
            Some("f32") => "float",
            _ => return false,
        };
        let accs: Vec<&str> = words.collect();
        if accs.is_empty() {
            return false;
        }
        let (n, whole, blk) = (
            format!("{var}_n"),
            format!("{var}_whole"),
            format!("{var}_blk"),
        );
        let b = self.ex(bound);
        self.line(d, "{");
        self.line(d + 1, OPENING);
        self.line(d + 1, &format!("const int64_t {n} = {b};"));
        self.line(
            d + 1,
            &format!("const int64_t {whole} = {n} - {n} % {LANES};"),
        );
        for a in &accs {
            let lanes: Vec<String> = (1..LANES).map(|l| format!("{a}_l{l} = 0")).collect();
            self.line(d + 1, &format!("{ty} {};", lanes.join(", ")));
        }
        let head = format!("for (int64_t {blk} = 0; {blk} < {whole}; {blk} += {LANES}) {{");
        self.line(d + 1, &head);
        for l in 0..LANES {
            self.line(d + 2, "{");
            self.line(
                d + 3,
                &format!("const int64_t {var} GR_UNUSED = {blk} + {l};"),
            );
            for a in accs.iter().filter(|_| l > 0) {
                self.line(d + 3, &format!("{ty} {a} = {a}_l{l};"));
            }
            self.in_loop(|p| p.stms(body, d + 3));
            for a in accs.iter().filter(|_| l > 0) {
                self.line(d + 3, &format!("{a}_l{l} = {a};"));
            }
            self.line(d + 2, "}");
        }
        self.line(d + 1, "}");
        let rest = format!("for (int64_t {var} = {whole}; {var} < {n}; {var}++) {{");
        self.line(d + 1, &rest);
        self.in_loop(|p| p.stms(body, d + 2));
        self.line(d + 1, "}");
        for a in &accs {
            self.line(d + 1, &format!("{a} = ({a} + {a}_l1) + ({a}_l2 + {a}_l3);"));
        }
        self.line(d, "}");
        true
    }

    /// Prints the loop `s` twice, behind a test at run time, where it is a loop of sums over
    /// rows (marked for vectorisation itself) whose body sums each row in lanes, and the
    /// lengths of those rows are known before it starts; returns whether it did.
    ///
    /// Which is faster depends on the rows' length. Vectorised across rows (the rows' loops
    /// printed plainly, the outer loop marked), GCC computes several rows at once, which wins
    /// on short rows: GMM d = 10 (rows of 1 to 10 products), objective 535 against 672 µs. On
    /// long rows the lanes win (GMM d = 32: rows of 1 to 32, 1.36× faster in lanes). So the
    /// test takes the first where every row's loop runs at most [`SHORT_ROWS`] iterations at
    /// the outer loop's first and last iteration. A row's length is known before the loop
    /// when it is computed, at the body's top level, from the outer counter and variables
    /// bound before the loop, without reading memory (see [`resolve`]).
    pub(super) fn short_rows_choice(&mut self, s: &Stm, d: usize) -> bool {
        let Stm::For {
            var, bound, body, ..
        } = s
        else {
            return false;
        };
        let simd_sum = body
            .iter()
            .any(|st| matches!(st, Stm::Comment(c) if c.starts_with(SIMD_SUM)));
        if self.gpu.is_some() || self.lanes_off || !simd_sum {
            return false;
        }
        let Some(rows) = row_lengths(body) else {
            return false;
        };
        let last = Ex::Idx(
            IdxOp::Sub,
            Box::new(bound.clone()),
            Box::new(Ex::Const(Scalar::I64(1))),
        );
        let first = Ex::Const(Scalar::I64(0));
        let mut tests = Vec::new();
        for row in &rows {
            for at in [&first, &last] {
                let n = self.ex(&substitute(row, var, at));
                tests.push(format!("({n}) <= {SHORT_ROWS}"));
            }
        }
        let start = self.out.len();
        self.line(d, &format!("if ({}) {{", tests.join(" && ")));
        self.lanes_off = true;
        self.plain_for(s, d + 1);
        self.lanes_off = false;
        if !self.out[start..].contains("GR_SIMD_SUM(") {
            // Not vectorisable across rows (it can leave the loop early): lanes only.
            self.out.truncate(start);
            self.plain_for(s, d);
            return true;
        }
        self.line(d, "} else {");
        self.plain_for(s, d + 1);
        self.line(d, "}");
        true
    }
}

/// The number of iterations of each loop in lanes at the top level of `body`, as expressions
/// over the enclosing loop's counter and variables bound before it; `None` where a loop in
/// lanes is nested deeper, or a length reads memory or a variable assigned in a nested
/// statement (see [`resolve`]), or there is no loop in lanes.
fn row_lengths(body: &[Stm]) -> Option<Vec<Ex>> {
    let mut rows = Vec::new();
    for (k, st) in body.iter().enumerate() {
        match st {
            Stm::For {
                bound,
                body: inner,
                down: false,
                ..
            } if marked_in_lanes(inner) => rows.push(resolve(bound, &body[..k], 0)?),
            _ if bodies(st).iter().any(|b| holds_lanes(b)) => return None,
            _ => {}
        }
    }
    (!rows.is_empty()).then_some(rows)
}

fn marked_in_lanes(body: &[Stm]) -> bool {
    body.iter()
        .any(|s| matches!(s, Stm::Comment(c) if c.starts_with(LANE_SUM)))
}

/// Whether `stms` holds a loop marked for lanes, at any depth.
fn holds_lanes(stms: &[Stm]) -> bool {
    stms.iter().any(|s| match s {
        Stm::For { body, .. } if marked_in_lanes(body) => true,
        _ => bodies(s).iter().any(|b| holds_lanes(b)),
    })
}

/// Whether a statement of `stms`, at any depth, assigns `v`.
fn assigns(stms: &[Stm], v: &str) -> bool {
    stms.iter().any(|s| match s {
        Stm::Decl { name, .. } | Stm::Set { name, .. } => name == v,
        _ => bodies(s).iter().any(|b| assigns(b, v)),
    })
}

/// `e` as of the end of the straight-line statements `before`: each variable they assign
/// replaced by the value last assigned to it, in turn resolved against the statements before
/// that assignment. `None` where `e` (or a value it depends on) reads memory, a variable is
/// assigned inside a nested statement or declared without a value, or the chain is longer
/// than [`RESOLVE_DEPTH`]. Variables not assigned in `before` are left as they are.
fn resolve(e: &Ex, before: &[Stm], depth: usize) -> Option<Ex> {
    if depth > RESOLVE_DEPTH {
        return None;
    }
    let again = |x: &Ex| resolve(x, before, depth);
    Some(match e {
        Ex::Var(v) => {
            if before
                .iter()
                .any(|s| bodies(s).iter().any(|b| assigns(b, v)))
            {
                return None;
            }
            let last = before.iter().rposition(|s| match s {
                Stm::Decl { name, .. } | Stm::Set { name, .. } => name == v,
                _ => false,
            });
            let Some(k) = last else {
                return Some(e.clone());
            };
            match &before[k] {
                Stm::Decl { init: Some(x), .. } | Stm::Set { val: x, .. } => {
                    resolve(x, &before[..k], depth + 1)?
                }
                _ => return None,
            }
        }
        Ex::Const(_) => e.clone(),
        Ex::Prim(op, args) => Ex::Prim(*op, args.iter().map(again).collect::<Option<_>>()?),
        Ex::Idx(op, a, b) => Ex::Idx(*op, Box::new(again(a)?), Box::new(again(b)?)),
        Ex::Not(a) => Ex::Not(Box::new(again(a)?)),
        Ex::Load { .. } => return None,
    })
}

/// `e` with variable `v` replaced by `by`.
fn substitute(e: &Ex, v: &str, by: &Ex) -> Ex {
    let sub = |x: &Ex| substitute(x, v, by);
    match e {
        Ex::Var(x) if x == v => by.clone(),
        Ex::Var(_) | Ex::Const(_) => e.clone(),
        Ex::Prim(op, args) => Ex::Prim(*op, args.iter().map(sub).collect()),
        Ex::Idx(op, a, b) => Ex::Idx(*op, Box::new(sub(a)), Box::new(sub(b))),
        Ex::Not(a) => Ex::Not(Box::new(sub(a))),
        Ex::Load { arr, idx, elem } => Ex::Load {
            elem: *elem,
            arr: arr.clone(),
            idx: Box::new(sub(idx)),
        },
    }
}
