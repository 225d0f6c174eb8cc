//! One converter per GradBench eval: how an `evaluate` input becomes the arguments of an
//! entry point of the eval's program (`benchmarks/gradbench/MODULE.fut`), and how the entry
//! point's results become the eval's output. The function names are GradBench's; each is an
//! entry point of the same name unless the converter picks another (`ht`).

use super::json::Result;
use gradus::value::Value;
use serde_json::Value as Json;

mod ba;
mod det;
mod gmm;
mod hello;
mod ht;
mod kmeans;
mod llsq;
mod lse;
mod lstm;
mod ode;
mod particle;
mod saddle;

/// A call of an entry point.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// The entry point.
    pub entry: &'static str,
    /// Its arguments.
    pub args: Vec<Value>,
}

/// The converter of one eval.
pub struct Eval {
    /// The module name (the eval's name, and the program's file stem).
    pub module: &'static str,
    /// The functions the eval may ask for.
    pub functions: &'static [&'static str],
    /// The call for a function (one of `functions`) on an input.
    pub input: fn(function: &str, input: &Json) -> Result<Call>,
    /// The output of a function from the results of its call.
    pub output: fn(function: &str, results: &[Value]) -> Result<Json>,
}

/// All evals this tool implements.
pub const EVALS: &[Eval] = &[
    hello::EVAL,
    ba::EVAL,
    det::EVAL,
    gmm::EVAL,
    ht::EVAL,
    kmeans::EVAL,
    llsq::EVAL,
    lse::EVAL,
    lstm::EVAL,
    ode::EVAL,
    particle::EVAL,
    saddle::EVAL,
];

/// The converter of a module.
pub fn find(module: &str) -> Option<&'static Eval> {
    EVALS.iter().find(|e| e.module == module)
}

/// The entry point named like the function: `function` is one of `functions`, which are
/// `'static`.
fn entry_named(functions: &'static [&'static str], function: &str) -> Result<&'static str> {
    functions
        .iter()
        .copied()
        .find(|f| *f == function)
        .ok_or_else(|| format!("unknown function \"{function}\""))
}

/// The output of an entry point returning one value, as JSON.
fn single_output(_function: &str, results: &[Value]) -> Result<Json> {
    super::json::to_json(super::json::result(results, 0)?)
}
