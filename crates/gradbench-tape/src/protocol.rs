//! GradBench's JSON-lines protocol: one message per line on stdin, one response per line on
//! stdout, with the message's `id`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::io::{BufRead, Write};

/// A message from the eval (fields this tool does not use are ignored).
#[derive(Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Message {
    /// Start of a session.
    Start {
        /// Message ID.
        id: Value,
    },
    /// Asks whether the tool implements `module`.
    Define {
        /// Message ID.
        id: Value,
        /// The eval's name.
        module: String,
    },
    /// Asks for `function` of `module` on `input`.
    Evaluate {
        /// Message ID.
        id: Value,
        /// The eval's name.
        module: String,
        /// The function's name.
        function: String,
        /// The input JSON.
        input: Value,
    },
    /// The eval's verdict on an earlier evaluation.
    Analysis {
        /// Message ID.
        id: Value,
    },
    /// End of the session (no response).
    End {
        /// Message ID.
        #[serde(default)]
        id: Value,
    },
}

/// One timing entry of an `evaluate` response.
#[derive(Debug, Serialize)]
pub struct Timing {
    /// Always `"evaluate"`.
    pub name: &'static str,
    /// Duration of one run.
    pub nanoseconds: u64,
}

/// Answers one message; `None` for `end`.
pub fn respond(message: Message) -> Option<Value> {
    Some(match message {
        Message::Start { id } => serde_json::json!({ "id": id, "tool": "gradbench-tape" }),
        Message::Define { id, module } => {
            let success = crate::MODULES.contains(&module.as_str());
            if success {
                serde_json::json!({ "id": id, "success": true })
            } else {
                serde_json::json!({
                    "id": id,
                    "success": false,
                    "error": format!("gradbench-tape does not implement {module:?}"),
                })
            }
        }
        Message::Evaluate {
            id,
            module,
            function,
            input,
        } => {
            let result = std::panic::catch_unwind(|| crate::evaluate(&module, &function, &input))
                .unwrap_or_else(|_| Err(format!("{module}::{function} panicked")));
            match result {
                Ok((output, ns)) => {
                    let timings: Vec<Timing> = ns
                        .into_iter()
                        .map(|nanoseconds| Timing {
                            name: "evaluate",
                            nanoseconds,
                        })
                        .collect();
                    serde_json::json!({
                        "id": id,
                        "success": true,
                        "output": output,
                        "timings": timings,
                    })
                }
                Err(error) => {
                    eprintln!("gradbench-tape: {error}");
                    serde_json::json!({ "id": id, "success": false, "error": error })
                }
            }
        }
        Message::Analysis { id } => serde_json::json!({ "id": id }),
        Message::End { .. } => return None,
    })
}

/// Reads messages from `input` and writes responses to `output` until `end` or end of input.
/// A line that is not a message gets an error on stderr and, when it carries an `id`, a
/// response with `success: false`.
pub fn serve(input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let response = match serde_json::from_str::<Message>(&line) {
            Ok(message) => match respond(message) {
                Some(r) => r,
                None => break,
            },
            Err(e) => {
                eprintln!("gradbench-tape: bad message: {e}");
                let id = serde_json::from_str::<Value>(&line)
                    .ok()
                    .and_then(|v| v.get("id").cloned());
                match id {
                    Some(id) => serde_json::json!({
                        "id": id,
                        "success": false,
                        "error": format!("bad message: {e}"),
                    }),
                    None => continue,
                }
            }
        };
        writeln!(output, "{response}")?;
        output.flush()?;
    }
    Ok(())
}
