//! A GradBench tool built on `gradus-tape`: reverse-mode derivatives by operator overloading,
//! with forward mode from `gradus-num` where an eval asks for it.
//!
//! The binary `gradbench-tape` speaks GradBench's JSON-lines protocol on stdin/stdout
//! ([`protocol`]); each eval lives in its own module with a plain-`f64` primal written generically
//! over [`gradus_num::Real`] and its derivatives taken by the tape. [`evaluate`] is the entry
//! point shared by the binary and the tests.

pub mod ba;
pub mod det;
pub mod gmm;
pub mod hello;
pub mod ht;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod nested;
pub mod ode;
pub mod particle;
pub mod protocol;
pub mod runner;
pub mod saddle;

use serde_json::Value;

/// The result of one `evaluate`: the output JSON and one timing (nanoseconds) per run.
pub type Evaluated = Result<(Value, Vec<u64>), String>;

/// The modules (evals) this tool implements.
pub const MODULES: &[&str] = &[
    "hello", "gmm", "lse", "llsq", "ba", "lstm", "ode", "det", "saddle", "particle", "ht",
];

/// Runs `function` of `module` on `input` (the eval's input JSON, including `min_runs` and
/// `min_seconds`). Bad input is an `Err` with a message, never a panic.
pub fn evaluate(module: &str, function: &str, input: &Value) -> Evaluated {
    match module {
        "hello" => hello::evaluate(function, input),
        "gmm" => gmm::evaluate(function, input),
        "lse" => lse::evaluate(function, input),
        "llsq" => llsq::evaluate(function, input),
        "ba" => ba::evaluate(function, input),
        "lstm" => lstm::evaluate(function, input),
        "ode" => ode::evaluate(function, input),
        "det" => det::evaluate(function, input),
        "saddle" => saddle::evaluate(function, input),
        "particle" => particle::evaluate(function, input),
        "ht" => ht::evaluate(function, input),
        _ => Err(format!("unknown module {module:?}")),
    }
}

/// Deserialises an eval input, naming the module on failure.
pub(crate) fn parse<T: serde::de::DeserializeOwned>(
    module: &str,
    input: &Value,
) -> Result<T, String> {
    T::deserialize(input).map_err(|e| format!("{module}: bad input: {e}"))
}

/// The error for a function name a module does not have.
pub(crate) fn unknown_function(module: &str, function: &str) -> String {
    format!("{module}: unknown function {function:?}")
}

/// Serialises an output.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| format!("cannot serialise the output: {e}"))
}
