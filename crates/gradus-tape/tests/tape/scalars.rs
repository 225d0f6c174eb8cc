//! Structured parameters: gradients come back in the shape of the input.

use gradus_check::{Tolerance, compare, fd};
use gradus_tape::{Scalars, Tape, Var, grad_of, par_map};

/// A user struct implementing `Scalars` by delegating to a tuple of its fields.
#[derive(Clone, Debug, PartialEq)]
struct Layer {
    w: Vec<[f64; 2]>,
    b: f64,
}

struct LayerVars<'r> {
    w: Vec<[Var<'r>; 2]>,
    b: Var<'r>,
}

impl Scalars for Layer {
    type Of<'r> = LayerVars<'r>;
    fn flatten(&self, out: &mut Vec<f64>) {
        (self.w.clone(), self.b).flatten(out)
    }
    fn with_vars<'r>(&self, vars: &mut dyn Iterator<Item = Var<'r>>) -> LayerVars<'r> {
        let (w, b) = (self.w.clone(), self.b).with_vars(vars);
        LayerVars { w, b }
    }
    fn rebuild(&self, leaves: &mut dyn Iterator<Item = f64>) -> Layer {
        let (w, b) = (self.w.clone(), self.b).rebuild(leaves);
        Layer { w, b }
    }
}

#[test]
fn gradients_in_the_shape_of_the_parameters() {
    let params = Layer {
        w: vec![[0.5, -0.25], [1.5, 0.75], [-1.0, 2.0]],
        b: 0.1,
    };
    let data = [[1.0, 2.0], [0.5, -1.0], [2.0, 0.25]];
    let (y, g) = grad_of(&params, |l, _| {
        let terms = par_map(&l.w, |row| {
            data.iter()
                .map(|d| (row[0] * d[0] + row[1] * d[1] + l.b).tanh())
                .sum::<Var>()
        });
        terms.into_iter().sum::<Var>() * l.b
    });
    let primal = |x: &[f64]| {
        let b = x[6];
        (0..3)
            .map(|r| {
                data.iter()
                    .map(|d| (x[2 * r] * d[0] + x[2 * r + 1] * d[1] + b).tanh())
                    .sum::<f64>()
            })
            .sum::<f64>()
            * b
    };
    let mut flat = Vec::new();
    params.flatten(&mut flat);
    assert!((y - primal(&flat)).abs() < 1e-12);
    let fd = fd::grad(&flat, primal);
    let mut g_flat = Vec::new();
    g.flatten(&mut g_flat);
    compare(&g_flat, &fd, Tolerance::FINITE_DIFFERENCE).unwrap();
    assert_eq!(g.w.len(), 3);
    // The same through a reused tape.
    let mut tape = Tape::new();
    let (y2, g2) = tape.grad_of(&(vec![1.0, 2.0], [3.0]), |(v, a), _| v[0] * v[1] * a[0]);
    assert_eq!((y2, g2), (6.0, (vec![6.0, 3.0], [2.0])));
}
