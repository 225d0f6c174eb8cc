//! The `lstm` eval: the ADBench LSTM (diagonal weights) over a character sequence, and the
//! gradient of its loss with respect to the main and extra parameters, by one recording on the
//! tape.

use crate::runner::timed_json;
use crate::{Evaluated, parse, unknown_function};
use gradus_num::Real;
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Input {
    main_params: Vec<Vec<f64>>,
    extra_params: Vec<Vec<f64>>,
    state: Vec<Vec<f64>>,
    sequence: Vec<Vec<f64>>,
}

/// The problem: `l` layers, `b` bits per character, `c` characters; parameters flattened
/// row by row.
pub struct Lstm {
    l: usize,
    b: usize,
    main: Vec<f64>,
    extra: Vec<f64>,
    state: Vec<f64>,
    sequence: Vec<f64>,
}

fn sigmoid<S: Real>(x: S) -> S {
    S::one() / (S::one() + (-x).exp())
}

impl Lstm {
    fn new(input: Input) -> Result<Lstm, String> {
        let l = input.main_params.len() / 2;
        let b = input.main_params.first().map_or(0, |r| r.len() / 4);
        let shape = |rows: &[Vec<f64>], count: usize, len: usize| {
            rows.len() == count && rows.iter().all(|r| r.len() == len)
        };
        if l == 0
            || b == 0
            || !shape(&input.main_params, 2 * l, 4 * b)
            || !shape(&input.extra_params, 3, b)
            || !shape(&input.state, 2 * l, b)
            || !shape(&input.sequence, input.sequence.len(), b)
            || input.sequence.len() < 2
        {
            return Err(
                "lstm: expected main_params 2l × 4b, extra_params 3 × b, state 2l × b \
                        and at least 2 rows of b in sequence"
                    .into(),
            );
        }
        Ok(Lstm {
            l,
            b,
            main: input.main_params.concat(),
            extra: input.extra_params.concat(),
            state: input.state.concat(),
            sequence: input.sequence.concat(),
        })
    }

    /// The loss: minus the mean log-likelihood of each next character.
    pub fn objective<S: Real>(&self, main: &[S], extra: &[S]) -> S {
        let (l, b) = (self.l, self.b);
        let mut state: Vec<S> = self.state.iter().map(|&v| S::from_f64(v)).collect();
        let (in_weight, out_weight, out_bias) = (&extra[..b], &extra[b..2 * b], &extra[2 * b..]);
        let mut input = vec![S::zero(); b];
        let mut total = S::zero();
        let chars: Vec<&[f64]> = self.sequence.chunks(b).collect();
        for t in 0..chars.len() - 1 {
            for i in 0..b {
                input[i] = S::from_f64(chars[t][i]) * in_weight[i];
            }
            for layer in 0..l {
                let p = &main[8 * b * layer..][..8 * b];
                let (weight, bias) = p.split_at(4 * b);
                let (hidden, cell) = state[2 * b * layer..][..2 * b].split_at_mut(b);
                for i in 0..b {
                    let forget = sigmoid(input[i] * weight[i] + bias[i]);
                    let ingate = sigmoid(hidden[i] * weight[b + i] + bias[b + i]);
                    let outgate = sigmoid(input[i] * weight[2 * b + i] + bias[2 * b + i]);
                    let change = (hidden[i] * weight[3 * b + i] + bias[3 * b + i]).tanh();
                    cell[i] = cell[i] * forget + ingate * change;
                    hidden[i] = outgate * cell[i].tanh();
                }
                input.copy_from_slice(hidden);
            }
            let ypred: Vec<S> = (0..b)
                .map(|i| input[i] * out_weight[i] + out_bias[i])
                .collect();
            let lse = (ypred.iter().map(|y| y.exp()).sum::<S>() + S::from_f64(2.0)).ln();
            for (y, &gold) in ypred.iter().zip(chars[t + 1]) {
                total += S::from_f64(gold) * (*y - lse);
            }
        }
        let count = ((chars.len() - 1) * b) as f64;
        -total / S::from_f64(count)
    }

    /// The gradient with respect to the main parameters then the extra parameters.
    pub fn gradient(&self) -> Vec<f64> {
        let x = [self.main.as_slice(), self.extra.as_slice()].concat();
        let nm = self.main.len();
        gradus_tape::grad(&x, |v| self.objective(&v[..nm], &v[nm..])).1
    }
}

/// Runs `objective` or `jacobian`.
pub fn evaluate(function: &str, input: &Value) -> Evaluated {
    let lstm = Lstm::new(parse("lstm", input)?)?;
    match function {
        "objective" => timed_json(input, || lstm.objective(&lstm.main, &lstm.extra)),
        "jacobian" => timed_json(input, || lstm.gradient()),
        _ => Err(unknown_function("lstm", function)),
    }
}
