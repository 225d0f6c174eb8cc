//! The messages of GradBench's protocol (its CONTRIBUTING.md): the eval sends one JSON object
//! per line, the tool answers each with one JSON object carrying the same `id`.

use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// A message from the eval.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Message {
    /// The first message; the eval's name and configuration are informative.
    Start {
        /// The message id (a number, echoed as given).
        id: Json,
        /// The eval's name.
        #[serde(default)]
        eval: Option<String>,
    },
    /// Asks whether the tool implements a module.
    Define {
        /// The message id.
        id: Json,
        /// The module (the eval's name).
        module: String,
    },
    /// Asks the tool to evaluate a function of a module on an input.
    Evaluate {
        /// The message id.
        id: Json,
        /// The module.
        module: String,
        /// The function.
        function: String,
        /// The input, whose form depends on the eval.
        input: Json,
        /// A short description of the input.
        #[serde(default)]
        description: Option<String>,
    },
    /// The eval's verdict on an earlier evaluation.
    Analysis {
        /// The message id.
        id: Json,
        /// The id of the evaluate message analysed.
        of: Json,
        /// Whether the output was right.
        valid: bool,
        /// Why not.
        #[serde(default)]
        error: Option<String>,
    },
}

/// One timed part of the tool's work.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// What was timed: `evaluate` for one run of the function.
    pub name: String,
    /// How long it took.
    pub nanoseconds: u128,
}

impl Timing {
    /// A timing of `d` named `name`.
    pub fn new(name: &str, d: std::time::Duration) -> Timing {
        Timing {
            name: name.to_string(),
            nanoseconds: d.as_nanos(),
        }
    }
}

/// A response to a message. Fields that do not apply to the message's kind are left out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Response {
    /// The id of the message answered.
    pub id: Json,
    /// The tool's name (`start`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The tool's configuration (`start`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<Json>,
    /// Whether the module is defined or the evaluation succeeded (`define`, `evaluate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub success: Option<bool>,
    /// The function's value (`evaluate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<Json>,
    /// Timed parts of the work (`define`, `evaluate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timings: Option<Vec<Timing>>,
    /// Why it failed (`define`, `evaluate`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Response {
    /// A bare acknowledgement of message `id`.
    pub fn ack(id: Json) -> Response {
        Response {
            id,
            tool: None,
            config: None,
            success: None,
            output: None,
            timings: None,
            error: None,
        }
    }

    /// A failure of message `id`.
    pub fn failure(id: Json, error: String, timings: Vec<Timing>) -> Response {
        Response {
            success: Some(false),
            error: Some(error),
            timings: (!timings.is_empty()).then_some(timings),
            ..Response::ack(id)
        }
    }
}

/// A line from the eval: the message, or why it is not one. A line that is JSON with an `id`
/// but not a message this tool knows gets `Unknown`, which is answered with a bare
/// acknowledgement (the protocol asks tools to acknowledge every kind they do not handle).
#[derive(Debug, Clone, PartialEq)]
pub enum Incoming {
    /// A message.
    Message(Message),
    /// A message of a kind this tool does not know, or a `define`/`evaluate` with missing
    /// or mistyped fields (the error says which).
    Unknown {
        /// Its id.
        id: Json,
        /// Its kind, if it has one.
        kind: Option<String>,
        /// Why it could not be read.
        error: String,
    },
}

/// Reads one line from the eval.
pub fn parse_line(line: &str) -> Result<Incoming, String> {
    let json: Json = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
    let Some(obj) = json.as_object() else {
        return Err("a message must be a JSON object".to_string());
    };
    let Some(id) = obj.get("id").cloned() else {
        return Err("the message has no \"id\"".to_string());
    };
    let kind = obj.get("kind").and_then(Json::as_str).map(str::to_string);
    match serde_json::from_value::<Message>(json) {
        Ok(m) => Ok(Incoming::Message(m)),
        Err(e) => Ok(Incoming::Unknown {
            id,
            kind,
            error: e.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn messages_parse() {
        assert_eq!(
            parse_line(r#"{"id": 0, "kind": "start", "eval": "hello"}"#),
            Ok(Incoming::Message(Message::Start {
                id: json!(0),
                eval: Some("hello".into())
            }))
        );
        assert_eq!(
            parse_line(r#"{"id": 1, "kind": "define", "module": "gmm"}"#),
            Ok(Incoming::Message(Message::Define {
                id: json!(1),
                module: "gmm".into()
            }))
        );
        let m = parse_line(
            r#"{"id": 2, "kind": "evaluate", "module": "hello", "function": "square", "input": 3.5, "description": "x"}"#,
        );
        assert_eq!(
            m,
            Ok(Incoming::Message(Message::Evaluate {
                id: json!(2),
                module: "hello".into(),
                function: "square".into(),
                input: json!(3.5),
                description: Some("x".into())
            }))
        );
        let a = parse_line(r#"{"id": 3, "kind": "analysis", "of": 2, "valid": true}"#);
        assert!(matches!(
            a,
            Ok(Incoming::Message(Message::Analysis { valid: true, .. }))
        ));
    }

    #[test]
    fn unknown_kinds_and_bad_lines() {
        match parse_line(r#"{"id": 7, "kind": "frobnicate"}"#) {
            Ok(Incoming::Unknown { id, kind, .. }) => {
                assert_eq!(id, json!(7));
                assert_eq!(kind.as_deref(), Some("frobnicate"));
            }
            other => panic!("{other:?}"),
        }
        match parse_line(r#"{"id": 8, "kind": "define"}"#) {
            Ok(Incoming::Unknown { error, .. }) => assert!(error.contains("module"), "{error}"),
            other => panic!("{other:?}"),
        }
        assert!(parse_line("{").unwrap_err().starts_with("not JSON"));
        assert!(parse_line("[1]").is_err());
        assert!(
            parse_line(r#"{"kind": "start"}"#)
                .unwrap_err()
                .contains("id")
        );
    }

    #[test]
    fn responses_leave_out_empty_fields() {
        let r = Response::ack(json!(4));
        assert_eq!(serde_json::to_string(&r).unwrap(), r#"{"id":4}"#);
        let r = Response {
            success: Some(true),
            output: Some(json!(2.0)),
            timings: Some(vec![Timing {
                name: "evaluate".into(),
                nanoseconds: 12,
            }]),
            ..Response::ack(json!(5))
        };
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"id":5,"success":true,"output":2.0,"timings":[{"name":"evaluate","nanoseconds":12}]}"#
        );
        let f = Response::failure(json!(6), "no".into(), vec![]);
        assert_eq!(
            serde_json::to_string(&f).unwrap(),
            r#"{"id":6,"success":false,"error":"no"}"#
        );
    }
}
