//! The protocol round trip through the binary, on `hello`.

use serde_json::{Value, json};
use std::io::Write;
use std::process::{Command, Stdio};

fn session(messages: &[Value]) -> Vec<Value> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gradbench-tape"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    {
        let mut stdin = child.stdin.take().unwrap();
        for m in messages {
            writeln!(stdin, "{m}").unwrap();
        }
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "exit status {:?}", out.status);
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("each response is JSON"))
        .collect()
}

#[test]
fn hello_round_trip() {
    let r = session(&[
        json!({"id": 0, "kind": "start", "eval": "hello"}),
        json!({"id": 1, "kind": "define", "module": "hello"}),
        json!({"id": 2, "kind": "evaluate", "module": "hello", "function": "square", "input": 3.0}),
        json!({"id": 3, "kind": "analysis", "of": 2, "valid": true}),
        json!({"id": 4, "kind": "evaluate", "module": "hello", "function": "double", "input": 9.0}),
        json!({"id": 5, "kind": "define", "module": "no-such-eval"}),
        json!({"id": 6, "kind": "end"}),
    ]);
    assert_eq!(r.len(), 6, "{r:?}");
    for (i, resp) in r.iter().enumerate() {
        assert_eq!(resp["id"], json!(i));
    }
    assert_eq!(r[0]["tool"], "gradbench-tape");
    assert_eq!(r[1]["success"], true);
    assert_eq!(r[2]["success"], true);
    assert_eq!(r[2]["output"], 9.0);
    let timings = r[2]["timings"].as_array().unwrap();
    assert_eq!(timings.len(), 1);
    assert_eq!(timings[0]["name"], "evaluate");
    assert!(timings[0]["nanoseconds"].is_u64());
    assert_eq!(r[4]["output"], 18.0);
    assert_eq!(r[5]["success"], false);
}

#[test]
fn bad_input_is_a_failure_not_a_crash() {
    let r = session(&[
        json!({"id": 0, "kind": "evaluate", "module": "hello", "function": "square", "input": "x"}),
        json!({"id": 1, "kind": "evaluate", "module": "hello", "function": "cube", "input": 1.0}),
        json!({"id": 2, "kind": "evaluate", "module": "gmm", "function": "objective", "input": {"d": 2}}),
        json!({"id": 3, "kind": "evaluate", "module": "lse", "function": "gradient", "input": {"x": []}}),
        json!({"id": 4, "kind": "bogus"}),
    ]);
    assert_eq!(r.len(), 5, "{r:?}");
    for resp in &r {
        assert_eq!(resp["success"], false, "{resp}");
        assert!(resp["error"].is_string());
    }
}

#[test]
fn runs_at_least_min_runs() {
    let r = session(&[
        json!({"id": 0, "kind": "evaluate", "module": "lse", "function": "primal",
        "input": {"x": [1.0, 2.0], "min_runs": 5, "min_seconds": 0}}),
    ]);
    assert_eq!(r[0]["timings"].as_array().unwrap().len(), 5);
}
