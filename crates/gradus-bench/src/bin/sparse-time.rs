//! Times sparse Jacobians and Hessians (`Program::sparse`) on the native backend (sequential
//! C) against the objective, dense forward mode and hand-compressed Jacobians
//! (benchmarks/README.md §Sparse Jacobians and Hessians).
//!
//! ```text
//! sparse-time pde [--runs R] [--dense-max N] N...   # benchmarks/sparse/pde.fut at n = N
//! sparse-time ba [--runs R] INPUT.in                 # benchmarks/sparse/ba_plain.fut vs ba.fut
//! ```
//!
//! Every time is the median of `--runs` calls (default 5) after one untimed call, except the
//! first call of a sparse derivative, which is timed once: it traces the pattern and colours
//! it. Run from the repository root. Each sparse derivative's line ends with a checksum of its
//! values (their sum and the sum of their magnitudes) for comparison with other tools
//! (`benchmarks/sparse/jax_compare.py`).

use gradus::derive::Derivative;
use gradus::program::{Backend, Program};
use gradus::sparse::{SparseKind, SparsePlan};
use gradus::value::Value;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: sparse-time pde [--runs R] [--dense-max N] N... | \
sparse-time ba [--runs R] INPUT.in";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 5usize;
    let mut dense_max = 10_000usize;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut number = |what: &str| -> Option<usize> {
            let v = it.next().and_then(|v| v.parse().ok());
            if v.is_none() {
                eprintln!("{what} takes a number\n{USAGE}");
            }
            v
        };
        match a.as_str() {
            "--runs" => match number("--runs") {
                Some(v) => runs = v.max(1),
                None => return ExitCode::from(2),
            },
            "--dense-max" => match number("--dense-max") {
                Some(v) => dense_max = v,
                None => return ExitCode::from(2),
            },
            _ => rest.push(a.clone()),
        }
    }
    let result = match rest.first().map(String::as_str) {
        Some("pde") => rest[1..]
            .iter()
            .map(|n| match n.parse::<usize>() {
                Ok(n) => pde(n, runs, dense_max),
                Err(_) => Err(format!("`{n}` is not a size\n{USAGE}")),
            })
            .collect::<Result<Vec<()>, String>>()
            .map(|_| ()),
        Some("ba") if rest.len() == 2 => ba(&rest[1], runs),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(m) => {
            eprintln!("{m}");
            ExitCode::FAILURE
        }
    }
}

fn load(path: &str) -> Result<Program, String> {
    let p = Program::from_file_with(std::path::Path::new(path), &Default::default())
        .map_err(|d| d.render())?;
    p.with_backend(Backend::Native(gradus::NativeOptions::sequential()))
        .map_err(|e| e.to_string())
}

/// The median of `runs` timed calls of `f` after one untimed call, in seconds.
fn median(runs: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<f64, String> {
    f()?;
    let mut ts = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        f()?;
        ts.push(t.elapsed().as_secs_f64());
    }
    ts.sort_by(f64::total_cmp);
    Ok(ts[ts.len() / 2])
}

fn once(f: impl FnOnce() -> Result<(), String>) -> Result<f64, String> {
    let t = Instant::now();
    f()?;
    Ok(t.elapsed().as_secs_f64())
}

fn ms(s: f64) -> String {
    format!("{:.3} ms", s * 1e3)
}

fn plan_line(p: &SparsePlan) -> String {
    format!(
        "nnz {} | colours {} ({:?}; lower bound {}) | trace {} | colouring {}",
        p.pattern.nnz(),
        p.colouring.count,
        p.products,
        p.pattern.max_row_len(),
        ms(p.trace_seconds),
        ms(p.colour_seconds)
    )
}

/// The number of values, their sum and the sum of their magnitudes: enough to compare the
/// values of one sparse derivative with another tool's without writing them out.
fn checksum(values: &Value) -> Result<String, String> {
    let v = values
        .to_ndarray::<f64>()
        .ok_or("the values of a sparse derivative are not f64")?;
    let (sum, abs) = v.iter().fold((0.0, 0.0), |(s, a), x| (s + x, a + x.abs()));
    Ok(format!(
        "checksum: {} values, sum {sum:.12e}, sum of magnitudes {abs:.12e}",
        v.len()
    ))
}

fn point(n: usize, s: f64) -> Value {
    let xs: Vec<f64> = (0..n).map(|q| 0.1 * ((q as f64) + s).sin()).collect();
    Value::from_ndarray(gradus::ndarray::Array1::from(xs))
}

fn call(p: &Program, entry: &str, args: &[Value]) -> Result<Vec<Value>, String> {
    p.call(entry, args.to_vec()).map_err(|e| e.to_string())
}

fn pde(n: usize, runs: usize, dense_max: usize) -> Result<(), String> {
    let prog = load("benchmarks/sparse/pde.fut")?;
    let x = vec![point(n, 0.0)];
    println!("## pde n = {n}");
    for (kind, entry) in [
        (SparseKind::Jacobian, "residual"),
        (SparseKind::Hessian, "energy"),
    ] {
        let objective = median(runs, || call(&prog, entry, &x).map(|_| ()))?;
        let sparse = prog.sparse(kind, entry, None).map_err(|e| e.to_string())?;
        let first = once(|| {
            sparse
                .call(x.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        })?;
        let later = median(runs, || {
            sparse
                .call(x.clone())
                .map(|_| ())
                .map_err(|e| e.to_string())
        })?;
        let plan = sparse.plan(&x).map_err(|e| e.to_string())?;
        let values = sparse.call(x.clone()).map_err(|e| e.to_string())?;
        println!(
            "{} of {entry}: objective {} | first call {} | later calls {} ({:.1}x the objective) | {} | {}",
            kind.name(),
            ms(objective),
            ms(first),
            ms(later),
            later / objective,
            plan_line(&plan),
            checksum(&values[0])?
        );
        if n <= dense_max {
            let dense = match kind {
                SparseKind::Jacobian => {
                    median(runs.min(3), || call(&prog, "dense_forward", &x).map(|_| ()))?
                }
                SparseKind::Hessian => {
                    let h = prog
                        .derive(Derivative::Hessian, entry, None)
                        .map_err(|e| e.to_string())?;
                    median(runs.min(3), || {
                        h.call(x.clone()).map(|_| ()).map_err(|e| e.to_string())
                    })?
                }
            };
            println!(
                "  dense by forward mode: {} ({:.0}x the sparse later calls, {:.0}x the first)",
                ms(dense),
                dense / later,
                dense / first
            );
        }
    }
    Ok(())
}

fn ba(input: &str, runs: usize) -> Result<(), String> {
    let hand = load("benchmarks/ba.fut")?;
    let plain = load("benchmarks/sparse/ba_plain.fut")?;
    let args = gradus::data::read_file(std::path::Path::new(input)).map_err(|e| e.to_string())?;
    let [cams, x, w, obs, feat]: [Value; 5] = args
        .try_into()
        .map_err(|_| "a BA input has five values".to_string())?;
    let (n, m) = (cams.shape()[0] as i64, x.shape()[0] as i64);
    let params = call(&plain, "params", &[cams.clone(), x.clone(), w.clone()])?.remove(0);
    let hand_args = [cams, x, w, obs.clone(), feat.clone()];
    let plain_args = vec![
        Value::Scalar(gradus::value::Scalar::I64(n)),
        Value::Scalar(gradus::value::Scalar::I64(m)),
        params,
        obs,
        feat,
    ];
    println!("## ba {input}: {n} cameras, {m} points");
    let objective = median(runs, || call(&plain, "residual", &plain_args).map(|_| ()))?;
    let hand_t = median(runs, || call(&hand, "jacobian", &hand_args).map(|_| ()))?;
    let sparse = plain
        .sparse(SparseKind::Jacobian, "residual", Some(2))
        .map_err(|e| e.to_string())?;
    let first = once(|| {
        sparse
            .call(plain_args.clone())
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    let later = median(runs, || {
        sparse
            .call(plain_args.clone())
            .map(|_| ())
            .map_err(|e| e.to_string())
    })?;
    let plan = sparse.plan(&plain_args).map_err(|e| e.to_string())?;
    // Both are in ADBench's layout: the same rows, columns and values.
    let ours = sparse.call(plain_args.clone()).map_err(|e| e.to_string())?;
    let theirs = call(&hand, "jacobian", &hand_args)?;
    let same_pattern = ours[2] == theirs[0] && ours[1] == theirs[1];
    let (a, b) = (
        ours[0].to_ndarray::<f64>().ok_or("values")?,
        theirs[2].to_ndarray::<f64>().ok_or("values")?,
    );
    let diff = a
        .iter()
        .zip(b.iter())
        .map(|(p, q)| (p - q).abs() / (1.0 + q.abs()))
        .fold(0.0, f64::max);
    println!(
        "residual {} | hand-compressed jacobian {} | sparse Jacobian: first call {}, later calls {} ({:.2}x the hand-compressed) | {} | same pattern as the hand-compressed: {same_pattern}, largest relative difference {diff:.1e} | {}",
        ms(objective),
        ms(hand_t),
        ms(first),
        ms(later),
        later / hand_t,
        plan_line(&plan),
        checksum(&ours[0])?
    );
    Ok(())
}
