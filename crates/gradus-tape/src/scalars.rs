//! Structured inputs (docs/tape.md §API, `Scalars`): flatten a value made of `f64`s into input
//! nodes, call the closure with the same structure of [`Var`]s, and return the gradient in the
//! original shape — the paper's interleave / deinterleave with a rebuild function.
//!
//! Implemented for `f64`, arrays, `Vec`s and tuples of up to four elements, nested freely.
//! User structs implement the trait by delegating to their fields (a derive macro is not
//! provided yet).

use crate::record::{Tape, record_raw};
use crate::reverse::Buffers;
use crate::var::Var;

/// A value built from `f64` leaves that can be differentiated as a whole.
///
/// ```
/// use gradus_tape::grad_of;
/// // Parameters: a weight vector and a bias.
/// let params = (vec![1.0, 2.0], 0.5);
/// let (loss, g) = grad_of(&params, |(w, b), _| (w[0] * 3.0 + w[1] * 4.0 + *b).square());
/// assert_eq!(loss, 11.5 * 11.5);
/// assert_eq!(g, (vec![2.0 * 11.5 * 3.0, 2.0 * 11.5 * 4.0], 2.0 * 11.5));
/// ```
pub trait Scalars {
    /// The same shape with [`Var`] leaves.
    type Of<'r>;
    /// Appends the leaves in a fixed order.
    fn flatten(&self, out: &mut Vec<f64>);
    /// Builds the `Var` version from the leaves' `Var`s, in the order of `flatten`.
    fn with_vars<'r>(&self, vars: &mut dyn Iterator<Item = Var<'r>>) -> Self::Of<'r>;
    /// Builds a value of this shape from leaves in the order of `flatten`.
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = f64>) -> Self;
}

impl Scalars for f64 {
    type Of<'r> = Var<'r>;
    fn flatten(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
    fn with_vars<'r>(&self, vars: &mut dyn Iterator<Item = Var<'r>>) -> Var<'r> {
        vars.next().expect("gradus-tape: Scalars: too few leaves")
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = f64>) -> f64 {
        leaves.next().expect("gradus-tape: Scalars: too few leaves")
    }
}

impl<T: Scalars> Scalars for Vec<T> {
    type Of<'r> = Vec<T::Of<'r>>;
    fn flatten(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|t| t.flatten(out));
    }
    fn with_vars<'r>(&self, vars: &mut dyn Iterator<Item = Var<'r>>) -> Self::Of<'r> {
        self.iter().map(|t| t.with_vars(vars)).collect()
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = f64>) -> Self {
        self.iter().map(|t| t.rebuild(leaves)).collect()
    }
}

impl<T: Scalars, const N: usize> Scalars for [T; N] {
    type Of<'r> = [T::Of<'r>; N];
    fn flatten(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|t| t.flatten(out));
    }
    fn with_vars<'r>(&self, vars: &mut dyn Iterator<Item = Var<'r>>) -> Self::Of<'r> {
        std::array::from_fn(|i| self[i].with_vars(vars))
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = f64>) -> Self {
        std::array::from_fn(|i| self[i].rebuild(leaves))
    }
}

macro_rules! tuple_scalars {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Scalars),*> Scalars for ($($t,)*) {
            type Of<'r> = ($($t::Of<'r>,)*);
            fn flatten(&self, out: &mut Vec<f64>) {
                $(self.$i.flatten(out);)*
            }
            fn with_vars<'r>(&self, vars: &mut dyn Iterator<Item = Var<'r>>) -> Self::Of<'r> {
                ($(self.$i.with_vars(vars),)*)
            }
            fn rebuild(&self, leaves: &mut dyn Iterator<Item = f64>) -> Self {
                ($(self.$i.rebuild(leaves),)*)
            }
        }
    };
}
tuple_scalars!(A 0);
tuple_scalars!(A 0, B 1);
tuple_scalars!(A 0, B 1, C 2);
tuple_scalars!(A 0, B 1, C 2, D 3);

/// Gradient of a scalar function of structured parameters: returns `(f(params), ∇f)` with the
/// gradient in the shape of `params` (see [`Scalars`]).
///
/// The closure also receives the flat input `Var`s (in the order of [`Scalars::flatten`]); most
/// closures ignore them. (They carry the recording's brand: Rust does not let a closure's
/// result lifetime be fixed by an associated type alone.)
pub fn grad_of<P, F>(params: &P, f: F) -> (f64, P)
where
    P: Scalars,
    F: for<'r> FnOnce(&P::Of<'r>, &[Var<'r>]) -> Var<'r>,
{
    let mut x = Vec::new();
    params.flatten(&mut x);
    let rec = record_raw(&x, Buffers::default(), |xs, values, ids| {
        let structured = params.with_vars(&mut xs.iter().copied());
        let y = f(&structured, xs);
        values.push(y.value());
        ids.push(y.output_id());
    });
    let g = rec.pullback(&[1.0]);
    (rec.outputs()[0], params.rebuild(&mut g.into_iter()))
}

impl Tape {
    /// [`grad_of`] reusing this tape's buffers.
    pub fn grad_of<P, F>(&mut self, params: &P, f: F) -> (f64, P)
    where
        P: Scalars,
        F: for<'r> FnOnce(&P::Of<'r>, &[Var<'r>]) -> Var<'r>,
    {
        let mut x = Vec::new();
        params.flatten(&mut x);
        let mut g = vec![0.0; x.len()];
        let y = self.grad_into(
            &x,
            |xs| {
                let structured = params.with_vars(&mut xs.iter().copied());
                f(&structured, xs)
            },
            &mut g,
        );
        (y, params.rebuild(&mut g.into_iter()))
    }
}
