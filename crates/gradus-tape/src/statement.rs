//! Statement-level taping (docs/tape.md §Statements): a small expression over a few [`Var`]s,
//! evaluated once in forward mode with one tangent per input, is recorded as one node whose
//! partials are those tangents — one record per assignment instead of one per operation, the
//! preaccumulation of C++ tapes such as CoDiPack. Takes the inputs and a closure over
//! `DualN<f64, N>`; guarantees the value of the closure on `f64` inputs (the forward-mode value)
//! and exact partials, with the record-time folding of [`Var`]'s operations.

use crate::record::with_active;
use crate::var::Var;
use gradus_num::DualN;

/// Records `f(inputs)` as one node with `N` operands.
///
/// `f` runs once on forward-mode duals with `N` tangents, input `i` carrying the `i`-th unit
/// tangent, so the tangents of its result are the partials with respect to the inputs; they
/// go on the tape as one record (one or two operands: 24 bytes; more: 24 and 12 per operand)
/// in place of one record per operation of `f`. The closure can only compute on the duals
/// (and constants): it cannot reach the tape. Write `f` over [`Real`](crate::Real) to share
/// it with the scalar version of the program.
///
/// Worth it where a statement has more operations than inputs: `(k * px - mu * vx) / m` is
/// four records as operations and one as a statement. The forward evaluation costs about `N`
/// times the expression's primal.
///
/// ```
/// use gradus_tape::{Real, grad, statement};
/// let (y, g) = grad(&[2.0, 3.0], |x| {
///     statement([x[0], x[1]], |[a, b]| (a * b + a.sin()) / b)
/// });
/// assert_eq!(y, (6.0 + 2f64.sin()) / 3.0);
/// let expected = [(3.0 + 2f64.cos()) / 3.0, (2.0 * 3.0 - (6.0 + 2f64.sin())) / 9.0];
/// assert!((g[0] - expected[0]).abs() < 1e-15 && (g[1] - expected[1]).abs() < 1e-15);
/// ```
pub fn statement<'r, const N: usize>(
    inputs: [Var<'r>; N],
    f: impl FnOnce([DualN<f64, N>; N]) -> DualN<f64, N>,
) -> Var<'r> {
    let y = f(std::array::from_fn(|i| {
        DualN::variable(inputs[i].value(), i)
    }));
    match N {
        0 => Var::constant(y.v),
        1 => inputs[0].unary((y.v, y.d[0])),
        2 => inputs[0].binary(inputs[1], (y.v, y.d[0], y.d[1])),
        _ => {
            if inputs.iter().all(|t| t.is_constant()) {
                return Var::constant(y.v);
            }
            let ops = inputs.iter().zip(y.d).map(|(t, p)| (t.id(), p * t.scale()));
            let id = with_active!(|seg| seg.push_many(ops));
            Var::from_parts(y.v, id)
        }
    }
}
