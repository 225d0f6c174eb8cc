//! The tool's state between messages: the programs compiled so far (one per module), and the
//! answers to each kind of message.

use super::evals::{self, Eval};
use super::json::{self, Result};
use super::protocol::{Message, Response, Timing};
use crate::common::{Backend, BackendArgs, catch_panic};
use gradus::program::{CallError, Program};
use gradus::value::{Value, ValueRef};
use serde_json::Value as Json;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// How `evaluate` repeats a function: at least `min_runs` times, and until the runs have
/// taken `min_seconds` in all.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Runs {
    /// The least number of runs (at least 1).
    pub min_runs: usize,
    /// The least total time of the runs.
    pub min_time: Duration,
}

impl Runs {
    /// The `min_runs` and `min_seconds` fields of an input (one run and no minimum time
    /// when absent, as for `hello`).
    pub fn of_input(input: &Json) -> Result<Runs> {
        let (mut min_runs, mut min_seconds) = (1, 0.0);
        if let Json::Object(o) = input {
            if let Some(r) = o.get("min_runs") {
                min_runs = json::to_size(r, "min_runs")?.max(1);
            }
            if let Some(s) = o.get("min_seconds") {
                min_seconds = json::to_f64(s, "min_seconds")?;
                if !(min_seconds.is_finite() && min_seconds >= 0.0) {
                    return Err(format!(
                        "min_seconds must be a non-negative number, not {min_seconds}"
                    ));
                }
            }
        }
        Ok(Runs {
            min_runs,
            min_time: Duration::from_secs_f64(min_seconds),
        })
    }
}

/// A compiled module.
struct Module {
    eval: &'static Eval,
    program: Program,
}

/// The programs and options of a session.
pub struct Runner {
    dir: PathBuf,
    backend_args: BackendArgs,
    backend: Backend,
    opt: gradus::opt::OptOptions,
    modules: HashMap<String, Module>,
}

/// A failure: the message for the eval and the timings taken before it.
type Failure = (String, Vec<Timing>);

impl Runner {
    /// A runner compiling `dir/MODULE.fut` for each module, for the given backend.
    pub fn new(dir: PathBuf, backend_args: BackendArgs, opt: gradus::opt::OptOptions) -> Runner {
        let backend = backend_args.resolve();
        Runner {
            dir,
            backend_args,
            backend,
            opt,
            modules: HashMap::new(),
        }
    }

    /// The configuration reported in the `start` response.
    pub fn config(&self) -> Json {
        serde_json::json!({
            "backend": self.backend.name(),
            "threads": self.backend_args.threads,
            "checks": !self.backend_args.no_checks,
            "programs": self.dir.display().to_string(),
        })
    }

    /// Compiles a module's program unless it is compiled already; the timings are those of
    /// the gradus pipeline (`compile`) and of generating and compiling C (`native`).
    fn define(&mut self, module: &str) -> std::result::Result<Vec<Timing>, Failure> {
        if self.modules.contains_key(module) {
            return Ok(Vec::new());
        }
        let Some(eval) = evals::find(module) else {
            return Err((
                format!("gradus has no converter for the module \"{module}\""),
                Vec::new(),
            ));
        };
        let path = self.dir.join(format!("{module}.fut"));
        let name = path.display().to_string();
        let source = std::fs::read_to_string(&path)
            .map_err(|e| (format!("cannot read the program {name}: {e}"), Vec::new()))?;
        let start = Instant::now();
        let compiled = catch_panic(|| Program::from_source_with(&name, &source, &self.opt));
        let mut timings = vec![Timing::new("compile", start.elapsed())];
        let program = match compiled {
            Ok(Ok(p)) => p,
            Ok(Err(d)) => return Err((d.render(), timings)),
            Err(p) => {
                return Err((
                    format!("internal error: gradus panicked while compiling {name}: {p}"),
                    timings,
                ));
            }
        };
        let start = Instant::now();
        let program = self
            .backend_args
            .prepare(self.backend, program)
            .map_err(|m| (m, Vec::new()))?;
        if self.backend != Backend::Interpreter {
            timings.push(Timing::new("native", start.elapsed()));
        }
        let entries = program.entry_points();
        if let Some(missing) = eval
            .functions
            .iter()
            .find(|f| !entries.iter().any(|e| e.name.starts_with(*f)))
        {
            return Err((
                format!("{name} has no entry point for the function \"{missing}\""),
                timings,
            ));
        }
        self.modules
            .insert(module.to_string(), Module { eval, program });
        Ok(timings)
    }

    /// Evaluates a function: converts the input, runs the entry point as often as asked,
    /// converts the last results. One `evaluate` timing per run.
    fn evaluate(
        &mut self,
        module: &str,
        function: &str,
        input: &Json,
    ) -> std::result::Result<(Json, Vec<Timing>), Failure> {
        let mut timings = self.define(module)?;
        let m = &self.modules[module];
        if !m.eval.functions.contains(&function) {
            return Err((
                format!(
                    "the module \"{module}\" has no function \"{function}\" (its functions: {})",
                    m.eval.functions.join(", ")
                ),
                timings,
            ));
        }
        let runs = Runs::of_input(input).map_err(|e| (e, timings.clone()))?;
        let call = (m.eval.input)(function, input)
            .map_err(|e| (format!("bad input: {e}"), timings.clone()))?;
        let mut total = Duration::ZERO;
        let mut count = 0;
        let native = self.backend != Backend::Interpreter;
        let refs: Vec<ValueRef> = call.args.iter().map(Value::as_value_ref).collect();
        let results = loop {
            let args = if native {
                Vec::new()
            } else {
                call.args.clone()
            };
            let start = Instant::now();
            // A run ends when its results are ready. The native backend hands them over in
            // its own buffers: they are copied out (as the output is written by the other
            // tools, outside their timing) only after the last run.
            let r = catch_panic(|| -> std::result::Result<_, CallError> {
                if native {
                    m.program.call_with(call.entry, &refs, |res| {
                        let took = start.elapsed();
                        let last = count + 1 >= runs.min_runs && total + took >= runs.min_time;
                        (
                            took,
                            last.then(|| res.iter().map(ValueRef::to_value).collect()),
                        )
                    })
                } else {
                    let results = m.program.call(call.entry, args)?;
                    Ok((start.elapsed(), Some(results)))
                }
            });
            let (took, results) = match r {
                Ok(Ok(r)) => r,
                Ok(Err(CallError::Runtime(e))) => return Err((e.to_string(), timings)),
                Ok(Err(e)) => return Err((format!("bad input: {e}"), timings)),
                Err(p) => {
                    return Err((
                        format!(
                            "internal error: gradus panicked while running {module}.{}: {p}",
                            call.entry
                        ),
                        timings,
                    ));
                }
            };
            timings.push(Timing::new("evaluate", took));
            total += took;
            count += 1;
            if let Some(results) = results
                && count >= runs.min_runs
                && total >= runs.min_time
            {
                break results;
            }
        };
        let output = (m.eval.output)(function, &results).map_err(|e| (e, timings.clone()))?;
        Ok((output, timings))
    }

    /// The response to a message.
    pub fn handle(&mut self, message: Message) -> Response {
        match message {
            Message::Start { id, .. } => Response {
                tool: Some("gradus".to_string()),
                config: Some(self.config()),
                ..Response::ack(id)
            },
            Message::Define { id, module } => match self.define(&module) {
                Ok(timings) => Response {
                    success: Some(true),
                    timings: (!timings.is_empty()).then_some(timings),
                    ..Response::ack(id)
                },
                Err((error, timings)) => Response::failure(id, error, timings),
            },
            Message::Evaluate {
                id,
                module,
                function,
                input,
                ..
            } => match self.evaluate(&module, &function, &input) {
                Ok((output, timings)) => Response {
                    success: Some(true),
                    output: Some(output),
                    timings: Some(timings),
                    ..Response::ack(id)
                },
                Err((error, timings)) => Response::failure(id, error, timings),
            },
            Message::Analysis { id, .. } => Response::ack(id),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runs_of_inputs() {
        assert_eq!(
            Runs::of_input(&json!(3.0)),
            Ok(Runs {
                min_runs: 1,
                min_time: Duration::ZERO
            })
        );
        assert_eq!(
            Runs::of_input(&json!({"min_runs": 5, "min_seconds": 0.5})),
            Ok(Runs {
                min_runs: 5,
                min_time: Duration::from_millis(500)
            })
        );
        assert_eq!(Runs::of_input(&json!({"min_runs": 0})).unwrap().min_runs, 1);
        assert!(Runs::of_input(&json!({"min_seconds": -1})).is_err());
        assert!(Runs::of_input(&json!({"min_runs": "x"})).is_err());
    }
}
