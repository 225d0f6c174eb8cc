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

use super::Printer;
use crate::backend::lower::LANE_SUM;
use crate::backend::lower::imp::{Ex, Stm};

/// The lanes of a loop of sums: four `f64` fill a 256-bit vector.
const LANES: usize = 4;
// The lanes' final combination below adds exactly four lanes, pairwise.
const _: () = assert!(LANES == 4);

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
        let Some(mark) = mark.filter(|_| self.gpu.is_none()) else {
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
}
