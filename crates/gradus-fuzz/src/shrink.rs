//! Shrinking: a failing entry point and its input reduced to a small one that fails the same
//! way, and written out as a test-block program.
//!
//! The shrinker is greedy. It tries, for each node of the body in turn, to replace it by one
//! of its subexpressions or by a zero literal of some type; a candidate that the front end
//! rejects (most are ill-typed) costs a parse and a type check, one that compiles is run
//! through the failure's own test (`fails`), and the first that still fails is kept. Then it
//! shrinks the input: sizes one step down (truncating every array along that size), scalars
//! and array elements to zero. It starts over after every success and stops at a fixed point
//! or when its time is up.

use crate::ast::{Entry, Exp};
use crate::diff::{Case, Outcome, Subject};
use gradus::program::{CallError, Program};
use gradus::value::{Array, Buffer, PrimType, Scalar, Value};
use std::time::{Duration, Instant};

/// The subject of one entry point called once, after `helpers` (source text).
pub fn subject(helpers: &str, entry: &Entry, args: &[Value]) -> Subject {
    Subject {
        name: "shrunk.fut".into(),
        source: format!("{helpers}{}", entry.print()),
        cases: vec![Case {
            entry: entry.name.clone(),
            args: args.to_vec(),
        }],
    }
}

fn nth_mut(e: &mut Exp, k: usize) -> Option<&mut Exp> {
    fn go<'a>(e: &'a mut Exp, counter: &mut usize) -> Option<&'a mut Exp> {
        if *counter == 0 {
            return Some(e);
        }
        *counter -= 1;
        for c in e.children_mut() {
            if let Some(r) = go(c, counter) {
                return Some(r);
            }
        }
        None
    }
    let mut counter = k;
    go(e, &mut counter)
}

/// Replacements tried for a node, smallest first.
fn candidates(node: &Exp) -> Vec<Exp> {
    let mut out: Vec<Exp> = PrimType::ALL
        .iter()
        .map(|&t| Exp::Lit(Scalar::zero(t)))
        .filter(|l| l != node)
        .collect();
    let mut copy = node.clone();
    let mut children: Vec<Exp> = copy.children_mut().into_iter().map(|c| c.clone()).collect();
    children.sort_by_key(|c| c.size());
    out.extend(children);
    out
}

fn accepted(helpers: &str, entry: &Entry) -> bool {
    Program::from_source("shrunk.fut", &format!("{helpers}{}", entry.print())).is_ok()
}

/// `v` with dimension `axis` cut to `len` elements.
fn truncate(v: &Value, axis: usize, len: usize) -> Value {
    let Value::Array(a) = v else { return v.clone() };
    let shape = a.shape().to_vec();
    let mut new_shape = shape.clone();
    new_shape[axis] = len;
    let total: usize = new_shape.iter().product();
    let mut buf = Buffer::with_capacity(a.elem_type(), total);
    for flat in 0..total {
        // The multi-index in the new shape is the same multi-index in the old.
        let mut rem = flat;
        let mut old = 0;
        let mut stride = 1;
        let mut idx = vec![0; shape.len()];
        for k in (0..shape.len()).rev() {
            idx[k] = rem % new_shape[k];
            rem /= new_shape[k];
        }
        for k in (0..shape.len()).rev() {
            old += idx[k] * stride;
            stride *= shape[k];
        }
        buf.push(a.buffer().get(old));
    }
    Value::Array(Array::new(new_shape, buf).expect("shape matches"))
}

fn zeroed(v: &Value) -> Value {
    match v {
        Value::Scalar(s) => Value::Scalar(Scalar::zero(s.prim_type())),
        Value::Array(a) => {
            let buf = Buffer::filled(Scalar::zero(a.elem_type()), a.len());
            Value::Array(Array::new(a.shape().to_vec(), buf).expect("shape matches"))
        }
    }
}

fn with_element_zero(v: &Value, i: usize) -> Option<Value> {
    let Value::Array(a) = v else { return None };
    let zero = Scalar::zero(a.elem_type());
    if a.buffer().get(i) == zero {
        return None;
    }
    let mut b = a.clone();
    b.buffer_mut().set(i, zero);
    Some(Value::Array(b))
}

/// Shrinks `entry` (which may call the functions of `helpers`) called with `args` while
/// `fails` holds, for at most `budget`.
pub fn shrink(
    helpers: &str,
    entry: &Entry,
    args: &[Value],
    fails: &dyn Fn(&Subject) -> bool,
    budget: Duration,
) -> (Entry, Vec<Value>) {
    let start = Instant::now();
    let mut best = entry.clone();
    let mut best_args = args.to_vec();
    let out_of_time = || start.elapsed() > budget;
    'restart: loop {
        if out_of_time() {
            break;
        }
        // The body.
        let nodes = best.body.size();
        for k in 0..nodes {
            let node = nth_mut(&mut best.body, k).expect("node in range").clone();
            for replacement in candidates(&node) {
                if out_of_time() {
                    break 'restart;
                }
                let mut candidate = best.clone();
                *nth_mut(&mut candidate.body, k).expect("node in range") = replacement;
                if candidate.body.size() >= best.body.size() || !accepted(helpers, &candidate) {
                    continue;
                }
                if fails(&subject(helpers, &candidate, &best_args)) {
                    best = candidate;
                    continue 'restart;
                }
            }
        }
        // The input: sizes first, then values.
        let sizes = sizes_of(&best, &best_args);
        for (name, value) in sizes {
            if value == 0 || out_of_time() {
                continue;
            }
            let cut: Vec<Value> = best
                .params
                .iter()
                .zip(&best_args)
                .map(|((_, ty), v)| {
                    let mut v = v.clone();
                    for (axis, d) in ty.dims().iter().enumerate() {
                        if d.as_deref() == Some(name.as_str()) {
                            v = truncate(&v, axis, value - 1);
                        }
                    }
                    v
                })
                .collect();
            if fails(&subject(helpers, &best, &cut)) {
                best_args = cut;
                continue 'restart;
            }
        }
        for i in 0..best_args.len() {
            let z = zeroed(&best_args[i]);
            if z != best_args[i] {
                let mut cand = best_args.clone();
                cand[i] = z;
                if fails(&subject(helpers, &best, &cand)) {
                    best_args = cand;
                    continue 'restart;
                }
            }
            let len = match &best_args[i] {
                Value::Array(a) => a.len().min(16),
                Value::Scalar(_) => 0,
            };
            for j in 0..len {
                if out_of_time() {
                    break 'restart;
                }
                if let Some(v) = with_element_zero(&best_args[i], j) {
                    let mut cand = best_args.clone();
                    cand[i] = v;
                    if fails(&subject(helpers, &best, &cand)) {
                        best_args = cand;
                        continue 'restart;
                    }
                }
            }
        }
        break;
    }
    (best, best_args)
}

/// The value of each size parameter, read from the arguments' shapes.
fn sizes_of(entry: &Entry, args: &[Value]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for ((_, ty), v) in entry.params.iter().zip(args) {
        for (axis, d) in ty.dims().iter().enumerate() {
            if let (Some(name), Value::Array(a)) = (d, v)
                && !out.iter().any(|(n, _)| n == name)
            {
                out.push((name.clone(), a.shape()[axis]));
            }
        }
    }
    out
}

/// Escapes the characters that are special in a regular expression.
fn regex_escape(s: &str) -> String {
    let mut o = String::new();
    for ch in s.chars() {
        if "\\.^$|?*+()[]{}".contains(ch) {
            o.push('\\');
        }
        o.push(ch);
    }
    o
}

/// A test-block program: `note` as a comment, the helper functions, the entry point, and one
/// case whose expected result is the oracle's `outcome`.
pub fn test_program(
    note: &str,
    helpers: &str,
    entry: &Entry,
    args: &[Value],
    outcome: &Outcome,
) -> String {
    let mut s = String::new();
    for line in note.lines() {
        s.push_str("-- ");
        s.push_str(line);
        s.push('\n');
    }
    s.push_str("-- ==\n");
    s.push_str(&format!("-- entry: {}\n", entry.name));
    let input: Vec<String> = args.iter().map(gradus::data::write_text).collect();
    s.push_str(&format!("-- input {{ {} }}\n", input.join(" ")));
    match outcome {
        Ok(vs) => {
            let out: Vec<String> = vs.iter().map(gradus::data::write_text).collect();
            s.push_str(&format!("-- output {{ {} }}\n", out.join(" ")));
        }
        Err(CallError::Runtime(e)) => {
            s.push_str(&format!("-- error: {}\n", regex_escape(&e.message)));
        }
        Err(e) => {
            s.push_str(&format!("-- error: {}\n", regex_escape(&e.to_string())));
        }
    }
    s.push('\n');
    s.push_str(helpers);
    s.push_str(&entry.print());
    s
}
