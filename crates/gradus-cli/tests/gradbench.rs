//! `gradus gradbench`, the GradBench tool: the protocol through the binary's standard input
//! and output; each eval's conversion of inputs and outputs, on small hand-made inputs,
//! checked against reference implementations written here (derivatives against central
//! finite differences of the references); and, when `../shared/gradbench` and Python are
//! present, a short run of every eval through GradBench's own eval code, which validates
//! against GradBench's hand-written C++ tool.

use serde_json::{Value as Json, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn programs() -> PathBuf {
    repo_root().join("benchmarks/gradbench")
}

/// A running `gradus gradbench`.
struct Tool {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: i64,
}

impl Tool {
    fn start(backend: &str) -> Tool {
        let dir = programs();
        let mut child = Command::new(env!("CARGO_BIN_EXE_gradus"))
            .args(["gradbench", "--backend", backend, "--programs"])
            .arg(&dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("cannot run gradus");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("no stdout"));
        Tool {
            child,
            stdin,
            stdout,
            next_id: 0,
        }
    }

    /// Sends one line, reads one response line.
    fn send_line(&mut self, line: &str) -> Json {
        let stdin = self.stdin.as_mut().expect("stdin closed");
        writeln!(stdin, "{line}").expect("cannot write to gradus");
        stdin.flush().unwrap();
        let mut response = String::new();
        self.stdout
            .read_line(&mut response)
            .expect("cannot read from gradus");
        serde_json::from_str(&response)
            .unwrap_or_else(|e| panic!("response {response:?} is not JSON: {e}"))
    }

    /// Sends a message with a fresh id; checks the response's id.
    fn send(&mut self, mut message: Json) -> Json {
        let id = self.next_id;
        self.next_id += 1;
        message["id"] = json!(id);
        let r = self.send_line(&message.to_string());
        assert_eq!(r["id"], json!(id), "{r}");
        r
    }

    fn define(&mut self, module: &str) -> Json {
        self.send(json!({"kind": "define", "module": module}))
    }

    /// Evaluates a function once; the response.
    fn evaluate_response(&mut self, module: &str, function: &str, input: Json) -> Json {
        self.send(
            json!({"kind": "evaluate", "module": module, "function": function, "input": input}),
        )
    }

    /// Evaluates a function once; the output (the evaluation must succeed).
    fn evaluate(&mut self, module: &str, function: &str, input: Json) -> Json {
        let r = self.evaluate_response(module, function, input);
        assert_eq!(r["success"], json!(true), "{module}.{function}: {r}");
        r["output"].clone()
    }

    /// Closes standard input; the exit code.
    fn finish(mut self) -> Option<i32> {
        drop(self.stdin.take());
        self.child.wait().expect("gradus did not finish").code()
    }
}

fn num(j: &Json) -> f64 {
    j.as_f64().unwrap_or_else(|| panic!("{j} is not a number"))
}

fn nums(j: &Json) -> Vec<f64> {
    j.as_array()
        .unwrap_or_else(|| panic!("{j} is not an array"))
        .iter()
        .map(num)
        .collect()
}

fn matrix(j: &Json) -> Vec<Vec<f64>> {
    j.as_array()
        .unwrap_or_else(|| panic!("{j} is not an array"))
        .iter()
        .map(nums)
        .collect()
}

#[track_caller]
fn close(actual: f64, expected: f64, tol: f64, what: &str) {
    let scale = 1f64.max(actual.abs() + expected.abs());
    assert!(
        (actual - expected).abs() / scale <= tol,
        "{what}: got {actual}, expected {expected}"
    );
}

#[track_caller]
fn all_close(actual: &[f64], expected: &[f64], tol: f64, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        close(*a, *e, tol, &format!("{what}[{i}]"));
    }
}

/// Central finite differences of `f` at `x`.
fn fd_gradient(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let h = 1e-6 * x[i].abs().max(1.0);
            let mut xp = x.to_vec();
            let mut xm = x.to_vec();
            xp[i] += h;
            xm[i] -= h;
            (f(&xp) - f(&xm)) / (2.0 * h)
        })
        .collect()
}

/// A deterministic pseudo-random number in [lo, hi).
struct Rng(u64);

impl Rng {
    fn next(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        lo + (hi - lo) * ((self.0 >> 11) as f64 / (1u64 << 53) as f64)
    }

    fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        (0..n).map(|_| self.next(lo, hi)).collect()
    }
}

// ---------------------------------------------------------------------------------------
// The protocol

#[test]
fn protocol_round_trip_on_hello() {
    let mut t = Tool::start("c");
    let r = t.send(json!({"kind": "start", "eval": "hello"}));
    assert_eq!(r["tool"], json!("gradus"), "{r}");
    assert_eq!(r["config"]["backend"], json!("c"), "{r}");
    let r = t.define("hello");
    assert_eq!(r["success"], json!(true), "{r}");
    let timings = r["timings"].as_array().expect("define timings");
    assert!(timings.iter().any(|t| t["name"] == json!("compile")), "{r}");
    let mut x = 1.5;
    for _ in 0..3 {
        let r = t.evaluate_response("hello", "square", json!(x));
        assert_eq!(r["success"], json!(true), "{r}");
        close(num(&r["output"]), x * x, 1e-15, "square");
        let timings = r["timings"].as_array().expect("evaluate timings");
        assert_eq!(timings.len(), 1, "{r}");
        assert_eq!(timings[0]["name"], json!("evaluate"));
        assert!(timings[0]["nanoseconds"].as_u64().is_some(), "{r}");
        let y = num(&r["output"]);
        let id = t.next_id - 1;
        let a = t.send(json!({"kind": "analysis", "of": id, "valid": true}));
        assert_eq!(a.as_object().map(|o| o.len()), Some(1), "{a}");
        x = num(&t.evaluate("hello", "double", json!(y)));
        close(x, 2.0 * y, 1e-15, "double");
    }
    // Anything else is acknowledged.
    let r = t.send(json!({"kind": "shutdown"}));
    assert_eq!(r.as_object().map(|o| o.len()), Some(1), "{r}");
    assert_eq!(t.finish(), Some(0));
}

#[test]
fn repeated_runs_and_errors_are_answered() {
    let mut t = Tool::start("interp");
    t.send(json!({"kind": "start"}));
    assert_eq!(t.define("lse")["success"], json!(true));
    // min_runs runs at least, each timed.
    let r = t.evaluate_response(
        "lse",
        "primal",
        json!({"x": [1.0, 2.0], "min_runs": 4, "min_seconds": 0}),
    );
    let evaluate = r["timings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"] == json!("evaluate"))
        .count();
    assert_eq!(evaluate, 4, "{r}");
    // A module with no program, a function the module lacks, malformed inputs: each a
    // failure with a message, and the session goes on.
    let r = t.define("frobnicate");
    assert_eq!(r["success"], json!(false), "{r}");
    assert!(r["error"].as_str().unwrap().contains("frobnicate"), "{r}");
    let failures = [
        ("lse", "hessian", json!({"x": [1.0]}), "hessian"),
        ("lse", "primal", json!({"y": [1.0]}), "\"x\""),
        ("lse", "primal", json!({"x": [1.0, "a"]}), "x[1]"),
        (
            "lse",
            "primal",
            json!({"x": [1.0], "min_runs": "many"}),
            "min_runs",
        ),
        ("gmm", "objective", json!({"d": 2}), "\"k\""),
        (
            "det",
            "primal",
            json!({"A": [1.0, 2.0, 3.0], "ell": 2}),
            "ell = 2",
        ),
        (
            "kmeans",
            "cost",
            json!({"points": [[1.0, 2.0], [3.0]], "centroids": [[0.0, 0.0]]}),
            "points[1]",
        ),
        (
            "ba",
            "objective",
            json!({"n": 1, "m": 1, "p": 0, "cam": vec![0.0; 11], "x": vec![0.0; 3], "w": 1.0, "feat": vec![0.0; 2]}),
            "at least 1",
        ),
        ("ode", "primal", json!({"x": [1.0], "s": 0}), "at least 1"),
        ("saddle", "rr", json!({"start": [1.0]}), "2 elements"),
    ];
    for (module, function, input, needle) in failures {
        let r = t.evaluate_response(module, function, input);
        assert_eq!(r["success"], json!(false), "{module}.{function}: {r}");
        let e = r["error"].as_str().expect("an error message");
        assert!(
            e.contains(needle),
            "{module}.{function}: {e:?} lacks {needle:?}"
        );
    }
    // A define or evaluate lacking fields is answered as a failure.
    let r = t.send(json!({"kind": "evaluate", "module": "lse"}));
    assert_eq!(r["success"], json!(false), "{r}");
    assert_eq!(
        t.evaluate("lse", "primal", json!({"x": [0.0, 0.0]})),
        json!(2f64.ln())
    );
    // A line that is not a message ends the session with exit code 2.
    let stdin = t.stdin.as_mut().unwrap();
    writeln!(stdin, "this is not JSON").unwrap();
    assert_eq!(t.finish(), Some(2));
}

// ---------------------------------------------------------------------------------------
// The evals' conversions, against reference implementations

#[test]
fn lse_llsq_ode_det() {
    let mut t = Tool::start("interp");
    // lse
    let x = [0.5, -1.0, 2.0, 0.25];
    let lse = |x: &[f64]| x.iter().map(|v| v.exp()).sum::<f64>().ln();
    close(
        num(&t.evaluate("lse", "primal", json!({"x": x}))),
        lse(&x),
        1e-14,
        "lse",
    );
    let softmax: Vec<f64> = x.iter().map(|v| (v - lse(&x)).exp()).collect();
    all_close(
        &nums(&t.evaluate("lse", "gradient", json!({"x": x}))),
        &softmax,
        1e-14,
        "lse gradient",
    );
    // llsq
    let x = [0.3, -0.2, 0.5, 0.1];
    let n = 7;
    let llsq = |x: &[f64]| {
        (0..n)
            .map(|i| {
                let ti = -1.0 + i as f64 * 2.0 / (n as f64 - 1.0);
                let si = if ti > 0.0 {
                    1.0
                } else if ti < 0.0 {
                    -1.0
                } else {
                    0.0
                };
                let r = si
                    - x.iter()
                        .enumerate()
                        .map(|(j, xj)| xj * ti.powi(j as i32))
                        .sum::<f64>();
                r * r
            })
            .sum::<f64>()
            / 2.0
    };
    let input = json!({"x": x, "n": n});
    close(
        num(&t.evaluate("llsq", "primal", input.clone())),
        llsq(&x),
        1e-13,
        "llsq",
    );
    all_close(
        &nums(&t.evaluate("llsq", "gradient", input)),
        &fd_gradient(&llsq, &x),
        1e-7,
        "llsq gradient",
    );
    // ode
    let x = [0.5, 1.5, 2.0, 0.75];
    let s = 3;
    let rk4 = |x: &[f64]| {
        let n = x.len();
        let f = |y: &[f64]| -> Vec<f64> {
            (0..n)
                .map(|i| if i == 0 { x[0] } else { x[i] * y[i - 1] })
                .collect()
        };
        let h = 2.0 / s as f64;
        let mut y = vec![0.0; n];
        for _ in 0..s {
            let k1 = f(&y);
            let y1: Vec<f64> = (0..n).map(|i| y[i] + h * k1[i] / 2.0).collect();
            let k2 = f(&y1);
            let y2: Vec<f64> = (0..n).map(|i| y[i] + h * k2[i] / 2.0).collect();
            let k3 = f(&y2);
            let y3: Vec<f64> = (0..n).map(|i| y[i] + h * k3[i]).collect();
            let k4 = f(&y3);
            for i in 0..n {
                y[i] += h * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]) / 6.0;
            }
        }
        y
    };
    let input = json!({"x": x, "s": s});
    all_close(
        &nums(&t.evaluate("ode", "primal", input.clone())),
        &rk4(&x),
        1e-13,
        "ode",
    );
    let last = |x: &[f64]| *rk4(x).last().unwrap();
    all_close(
        &nums(&t.evaluate("ode", "gradient", input)),
        &fd_gradient(&last, &x),
        1e-7,
        "ode gradient",
    );
    // det, for every size up to 6 (the program expands the last 4 rows directly)
    let mut rng = Rng(7);
    for ell in 1..=6 {
        let a = rng.vec(ell * ell, -1.0, 1.0);
        let det = |a: &[f64]| determinant(a, ell);
        let input = json!({"A": a, "ell": ell});
        close(
            num(&t.evaluate("det", "primal", input.clone())),
            det(&a),
            1e-12,
            "det",
        );
        all_close(
            &nums(&t.evaluate("det", "gradient", input)),
            &fd_gradient(&det, &a),
            1e-7,
            "det gradient",
        );
    }
    assert_eq!(t.finish(), Some(0));
}

/// The determinant by Gaussian elimination with partial pivoting.
fn determinant(a: &[f64], n: usize) -> f64 {
    let mut m = a.to_vec();
    let mut det = 1.0;
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| m[i * n + c].abs().total_cmp(&m[j * n + c].abs()))
            .unwrap();
        if m[p * n + c] == 0.0 {
            return 0.0;
        }
        if p != c {
            for k in 0..n {
                m.swap(c * n + k, p * n + k);
            }
            det = -det;
        }
        det *= m[c * n + c];
        for r in c + 1..n {
            let f = m[r * n + c] / m[c * n + c];
            for k in c..n {
                m[r * n + k] -= f * m[c * n + k];
            }
        }
    }
    det
}

#[test]
fn kmeans_and_gmm() {
    let mut t = Tool::start("interp");
    // kmeans: the Newton direction is the centroid minus the mean of its points.
    let points: [[f64; 2]; 5] = [
        [0.0, 0.0],
        [2.0, 0.5],
        [10.0, 10.0],
        [9.0, 11.0],
        [0.5, 1.0],
    ];
    let centroids: [[f64; 2]; 2] = [[0.5, 0.0], [10.0, 11.0]];
    let input = json!({"points": points, "centroids": centroids});
    let mut cost = 0.0;
    let mut sums = [[0.0; 2]; 2];
    let mut counts = [0.0; 2];
    for p in &points {
        let d: Vec<f64> = centroids
            .iter()
            .map(|c| (p[0] - c[0]).powi(2) + (p[1] - c[1]).powi(2))
            .collect();
        let j = if d[0] <= d[1] { 0 } else { 1 };
        cost += d[j];
        counts[j] += 1.0;
        sums[j][0] += p[0];
        sums[j][1] += p[1];
    }
    close(
        num(&t.evaluate("kmeans", "cost", input.clone())),
        cost,
        1e-14,
        "kmeans cost",
    );
    let dir = matrix(&t.evaluate("kmeans", "dir", input));
    for j in 0..2 {
        for l in 0..2 {
            close(
                dir[j][l],
                centroids[j][l] - sums[j][l] / counts[j],
                1e-13,
                "kmeans dir",
            );
        }
    }
    // gmm: the flat parameter vector is alpha, mu, q, l.
    let (d, k, n, m, gamma) = (3usize, 2usize, 4usize, 1i64, 0.8);
    let tri = d * (d - 1) / 2;
    let mut rng = Rng(11);
    let x: Vec<Vec<f64>> = (0..n).map(|_| rng.vec(d, -1.0, 1.0)).collect();
    let params = rng.vec(k + k * d + k * d + k * tri, -0.5, 0.5);
    let split = |p: &[f64]| {
        let (alpha, rest) = p.split_at(k);
        let (mu, rest) = rest.split_at(k * d);
        let (q, l) = rest.split_at(k * d);
        (alpha.to_vec(), mu.to_vec(), q.to_vec(), l.to_vec())
    };
    let rows = |v: &[f64], w: usize| v.chunks(w).map(|c| c.to_vec()).collect::<Vec<_>>();
    let (alpha, mu, q, l) = split(&params);
    let input = json!({
        "d": d, "k": k, "n": n, "m": m, "gamma": gamma, "x": x,
        "alpha": alpha, "mu": rows(&mu, d), "q": rows(&q, d), "l": rows(&l, tri),
    });
    let objective = |p: &[f64]| {
        let (alpha, mu, q, l) = split(p);
        gmm_log_posterior(d, k, &x, m, gamma, &alpha, &mu, &q, &l)
    };
    close(
        num(&t.evaluate("gmm", "objective", input.clone())),
        objective(&params),
        1e-12,
        "gmm objective",
    );
    let g = t.evaluate("gmm", "jacobian", input);
    let mut flat = nums(&g["alpha"]);
    for key in ["mu", "q", "l"] {
        let rows = matrix(&g[key]);
        assert_eq!(rows.len(), k, "gmm jacobian {key}");
        flat.extend(rows.concat());
    }
    all_close(
        &flat,
        &fd_gradient(&objective, &params),
        1e-6,
        "gmm jacobian",
    );
    assert_eq!(t.finish(), Some(0));
}

/// ln Γ(x) for x a positive multiple of ½.
fn lgamma_half(x: f64) -> f64 {
    let (mut v, mut acc) = if x.fract() == 0.0 {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while v < x {
        acc += v.ln();
        v += 1.0;
    }
    acc
}

/// GradBench's GMM log posterior (its README's simplified form), written out directly.
#[allow(clippy::too_many_arguments)]
fn gmm_log_posterior(
    d: usize,
    k: usize,
    x: &[Vec<f64>],
    m: i64,
    gamma: f64,
    alpha: &[f64],
    mu: &[f64],
    q: &[f64],
    l: &[f64],
) -> f64 {
    let tri = d * (d - 1) / 2;
    let logsumexp = |v: &[f64]| {
        let mx = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        mx + v.iter().map(|a| (a - mx).exp()).sum::<f64>().ln()
    };
    // Q_k: exp q on the diagonal, l below it, column by column.
    let qmat = |c: usize| {
        let mut qm = vec![vec![0.0; d]; d];
        let mut idx = 0;
        for j in 0..d {
            qm[j][j] = q[c * d + j].exp();
            for row in qm.iter_mut().skip(j + 1) {
                row[j] = l[c * tri + idx];
                idx += 1;
            }
        }
        qm
    };
    let n = x.len() as f64;
    let mut total = 0.0;
    for xi in x {
        let beta: Vec<f64> = (0..k)
            .map(|c| {
                let qm = qmat(c);
                let diff: Vec<f64> = (0..d).map(|j| xi[j] - mu[c * d + j]).collect();
                let sq: f64 = (0..d)
                    .map(|r| (0..d).map(|s| qm[r][s] * diff[s]).sum::<f64>().powi(2))
                    .sum();
                alpha[c] - 0.5 * sq + q[c * d..(c + 1) * d].iter().sum::<f64>()
            })
            .collect();
        total += logsumexp(&beta);
    }
    let likelihood =
        total - n * (d as f64 / 2.0 * (2.0 * std::f64::consts::PI).ln() + logsumexp(alpha));
    let nn = (d as i64 + m + 1) as f64;
    let log_gamma_d = 0.25 * (d * (d - 1)) as f64 * std::f64::consts::PI.ln()
        + (1..=d)
            .map(|j| lgamma_half(0.5 * nn + 0.5 * (1.0 - j as f64)))
            .sum::<f64>();
    let mut prior = k as f64 * (nn * d as f64 * (gamma / 2f64.sqrt()).ln() - log_gamma_d);
    for c in 0..k {
        let qm = qmat(c);
        let frob: f64 = qm.iter().flatten().map(|v| v * v).sum();
        prior += -0.5 * gamma * gamma * frob + m as f64 * q[c * d..(c + 1) * d].iter().sum::<f64>();
    }
    likelihood + prior
}

/// ADBench's reprojection error of one observation: camera [11], point [3], weight,
/// feature [2].
fn ba_reprojection(cam: &[f64], x: &[f64], w: f64, feat: &[f64]) -> [f64; 2] {
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let rot = [cam[0], cam[1], cam[2]];
    let pt = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let sqtheta: f64 = rot.iter().map(|v| v * v).sum();
    let xcam = if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let w3 = rot.map(|v| v / theta);
        let c = cross(w3, pt);
        let dot = w3[0] * pt[0] + w3[1] * pt[1] + w3[2] * pt[2];
        let tmp = dot * (1.0 - theta.cos());
        [0, 1, 2].map(|i| pt[i] * theta.cos() + c[i] * theta.sin() + w3[i] * tmp)
    } else {
        let c = cross(rot, pt);
        [0, 1, 2].map(|i| pt[i] + c[i])
    };
    let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let lfac = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    [
        w * (p[0] * lfac * cam[6] + cam[7] - feat[0]),
        w * (p[1] * lfac * cam[6] + cam[8] - feat[1]),
    ]
}

#[test]
fn ba_and_lstm() {
    let mut t = Tool::start("interp");
    // ba: 3 cameras, 4 points, 20 observations, all copies of one.
    let cam = [0.1, -0.2, 0.3, 0.5, -0.4, -3.0, 2.0, 0.1, -0.2, 0.05, -0.01];
    let x = [0.3, 0.7, 1.5];
    let (w, feat) = (0.9, [0.2, -0.4]);
    let (n, m, p) = (3usize, 4usize, 20usize);
    let input = json!({"n": n, "m": m, "p": p, "cam": cam, "x": x, "w": w, "feat": feat});
    let o = t.evaluate("ba", "objective", input.clone());
    let e = ba_reprojection(&cam, &x, w, &feat);
    all_close(
        &nums(&o["reproj_error"]["elements"]),
        &e,
        1e-13,
        "ba reproj_error",
    );
    assert_eq!(o["reproj_error"]["repeated"], json!(p));
    close(num(&o["w_err"]["element"]), 1.0 - w * w, 1e-15, "ba w_err");
    assert_eq!(o["w_err"]["repeated"], json!(p));
    let j = t.evaluate("ba", "jacobian", input);
    let ints = |k: &str| -> Vec<i64> {
        j[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().expect("an integer"))
            .collect()
    };
    let mut rows: Vec<i64> = (0..30).map(|r| 15 * r).collect();
    rows.push(31 * p as i64);
    assert_eq!(ints("rows"), rows);
    // Observation 0 sees camera 0 and point 0: its two rows' columns, then the last
    // weight's column.
    let block: Vec<i64> = (0..11)
        .chain((0..3).map(|i| 11 * n as i64 + i))
        .chain([11 * n as i64 + 3 * m as i64])
        .collect();
    let mut cols = [block.clone(), block].concat();
    cols.push((11 * n + 3 * m + p - 1) as i64);
    assert_eq!(ints("cols"), cols);
    let params: Vec<f64> = cam.iter().chain(&x).chain([&w]).cloned().collect();
    let mut vals = Vec::new();
    for r in 0..2 {
        let f = |v: &[f64]| ba_reprojection(&v[..11], &v[11..14], v[14], &feat)[r];
        vals.extend(fd_gradient(&f, &params));
    }
    vals.push(-2.0 * w);
    all_close(&nums(&j["vals"]), &vals, 1e-6, "ba jacobian values");

    // lstm: 2 layers, 3 bits, 5 characters.
    let (layers, b, c) = (2usize, 3usize, 5usize);
    let mut rng = Rng(3);
    let main = rng.vec(2 * layers * 4 * b, -1.0, 1.0);
    let extra = rng.vec(3 * b, -1.0, 1.0);
    let state = rng.vec(2 * layers * b, -1.0, 1.0);
    let seq: Vec<f64> = (0..c * b).map(|i| ((i * 7 + 3) % 5 % 2) as f64).collect();
    let rows = |v: &[f64], w: usize| v.chunks(w).map(|c| c.to_vec()).collect::<Vec<_>>();
    let input = json!({
        "main_params": rows(&main, 4 * b), "extra_params": rows(&extra, b),
        "state": rows(&state, b), "sequence": rows(&seq, b),
    });
    let loss = |p: &[f64]| lstm_loss(layers, b, &p[..main.len()], &p[main.len()..], &state, &seq);
    let params = [main.clone(), extra.clone()].concat();
    close(
        num(&t.evaluate("lstm", "objective", input.clone())),
        loss(&params),
        1e-13,
        "lstm objective",
    );
    all_close(
        &nums(&t.evaluate("lstm", "jacobian", input)),
        &fd_gradient(&loss, &params),
        1e-7,
        "lstm jacobian",
    );
    assert_eq!(t.finish(), Some(0));
}

/// ADBench's diagonal LSTM loss, written out directly.
fn lstm_loss(l: usize, b: usize, main: &[f64], extra: &[f64], state: &[f64], seq: &[f64]) -> f64 {
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    let mut s = state.to_vec();
    let c = seq.len() / b;
    let mut total = 0.0;
    for t in 0..c - 1 {
        let mut input: Vec<f64> = (0..b).map(|i| seq[t * b + i] * extra[i]).collect();
        for layer in 0..l {
            let w = &main[(2 * layer) * 4 * b..(2 * layer + 1) * 4 * b];
            let bias = &main[(2 * layer + 1) * 4 * b..(2 * layer + 2) * 4 * b];
            let (hidden, cell) = (2 * layer * b, (2 * layer + 1) * b);
            for i in 0..b {
                let forget = sigmoid(input[i] * w[i] + bias[i]);
                let ingate = sigmoid(s[hidden + i] * w[b + i] + bias[b + i]);
                let outgate = sigmoid(input[i] * w[2 * b + i] + bias[2 * b + i]);
                let change = (s[hidden + i] * w[3 * b + i] + bias[3 * b + i]).tanh();
                s[cell + i] = s[cell + i] * forget + ingate * change;
                s[hidden + i] = outgate * s[cell + i].tanh();
            }
            input = s[hidden..hidden + b].to_vec();
        }
        let y: Vec<f64> = (0..b)
            .map(|i| input[i] * extra[b + i] + extra[2 * b + i])
            .collect();
        let lse = (y.iter().map(|v| v.exp()).sum::<f64>() + 2.0).ln();
        total += (0..b)
            .map(|i| seq[(t + 1) * b + i] * (y[i] - lse))
            .sum::<f64>();
    }
    -total / ((c - 1) * b) as f64
}

type M4 = [[f64; 4]; 4];

fn mul4(a: &M4, b: &M4) -> M4 {
    let mut r = [[0.0; 4]; 4];
    for i in 0..4 {
        for j in 0..4 {
            r[i][j] = (0..4).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    r
}

/// A small hand model for `ht`: bones, their matrices, vertices and triangles.
struct Hand {
    parents: Vec<i64>,
    base_relatives: Vec<M4>,
    inverse_base_absolutes: Vec<M4>,
    positions: Vec<[f64; 4]>,
    weights: Vec<Vec<f64>>,
    triangles: Vec<[usize; 3]>,
    mirrored: bool,
}

impl Hand {
    fn model_json(&self) -> Json {
        json!({
            "bone_count": self.parents.len(),
            "bone_names": (0..self.parents.len()).map(|i| format!("bone{i}")).collect::<Vec<_>>(),
            "parents": self.parents,
            "base_relatives": self.base_relatives,
            "inverse_base_absolutes": self.inverse_base_absolutes,
            "base_positions": self.positions,
            "weights": self.weights,
            "triangles": self.triangles,
            "is_mirrored": self.mirrored,
        })
    }

    /// The posed vertices, following ADBench's description of the model: bone k's pose
    /// is a rotation by Euler angles from θ (fingers: bones 1 + 4f + j), applied after its
    /// base relative transform; absolutes compose parents first; skinning by weights; the
    /// global rotation (angle-axis θ[0..3]) and translation θ[3..6] last.
    fn vertices(&self, theta: &[f64]) -> Vec<[f64; 3]> {
        let nb = self.parents.len();
        let angles = |k: usize| -> [f64; 3] {
            if !(1..=20).contains(&k) {
                return [0.0; 3];
            }
            let (f, j) = ((k - 1) / 4, (k - 1) % 4);
            match j {
                1 => [theta[6 + 4 * f], theta[7 + 4 * f], 0.0],
                2 => [theta[8 + 4 * f], 0.0, 0.0],
                3 => [theta[9 + 4 * f], 0.0, 0.0],
                _ => [0.0; 3],
            }
        };
        let euler = |a: [f64; 3]| -> M4 {
            let (tx, ty, tz) = (a[0], a[2], a[1]);
            let rx = [
                [1.0, 0.0, 0.0, 0.0],
                [0.0, tx.cos(), -tx.sin(), 0.0],
                [0.0, tx.sin(), tx.cos(), 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ];
            let ry = [
                [ty.cos(), 0.0, ty.sin(), 0.0],
                [0.0, 1.0, 0.0, 0.0],
                [-ty.sin(), 0.0, ty.cos(), 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ];
            let rz = [
                [tz.cos(), -tz.sin(), 0.0, 0.0],
                [tz.sin(), tz.cos(), 0.0, 0.0],
                [0.0, 0.0, 1.0, 0.0],
                [0.0, 0.0, 0.0, 1.0],
            ];
            mul4(&mul4(&rz, &ry), &rx)
        };
        let mut absolutes: Vec<M4> = Vec::with_capacity(nb);
        for k in 0..nb {
            let rel = mul4(&self.base_relatives[k], &euler(angles(k)));
            let abs = match self.parents[k] {
                -1 => rel,
                p => mul4(&absolutes[p as usize], &rel),
            };
            absolutes.push(abs);
        }
        let transforms: Vec<M4> = (0..nb)
            .map(|k| mul4(&absolutes[k], &self.inverse_base_absolutes[k]))
            .collect();
        // The global rotation: angle-axis θ[0..3].
        let r = [theta[0], theta[1], theta[2]];
        let norm = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
        let g = if norm < 1e-4 {
            [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        } else {
            let (x, y, z) = (r[0] / norm, r[1] / norm, r[2] / norm);
            let (s, c) = (norm.sin(), norm.cos());
            [
                [
                    x * x + (1.0 - x * x) * c,
                    x * y * (1.0 - c) - z * s,
                    x * z * (1.0 - c) + y * s,
                ],
                [
                    x * y * (1.0 - c) + z * s,
                    y * y + (1.0 - y * y) * c,
                    y * z * (1.0 - c) - x * s,
                ],
                [
                    x * z * (1.0 - c) - y * s,
                    z * y * (1.0 - c) + x * s,
                    z * z + (1.0 - z * z) * c,
                ],
            ]
        };
        self.positions
            .iter()
            .zip(&self.weights)
            .map(|(pos, ws)| {
                let mut q = [0.0; 3];
                for (k, tr) in transforms.iter().enumerate() {
                    for (i, qi) in q.iter_mut().enumerate() {
                        *qi += ws[k] * (0..4).map(|j| tr[i][j] * pos[j]).sum::<f64>();
                    }
                }
                if self.mirrored {
                    q[0] = -q[0];
                }
                [0, 1, 2].map(|i| (0..3).map(|j| g[i][j] * q[j]).sum::<f64>() + theta[3 + i])
            })
            .collect()
    }
}

#[test]
fn ht_simple_and_complicated() {
    let mut rng = Rng(5);
    let nb = 6;
    let mut mat = || -> M4 {
        let mut m = [[0.0; 4]; 4];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = if i == 3 {
                    f64::from(j == 3)
                } else {
                    f64::from(i == j) + rng.next(-0.3, 0.3)
                };
            }
        }
        m
    };
    let base_relatives: Vec<M4> = (0..nb).map(|_| mat()).collect();
    let inverse_base_absolutes: Vec<M4> = (0..nb).map(|_| mat()).collect();
    let mut rng = Rng(9);
    let nv = 7;
    let positions: Vec<[f64; 4]> = (0..nv)
        .map(|_| {
            [
                rng.next(-1.0, 1.0),
                rng.next(-1.0, 1.0),
                rng.next(-1.0, 1.0),
                1.0,
            ]
        })
        .collect();
    let weights: Vec<Vec<f64>> = (0..nv).map(|_| rng.vec(nb, 0.0, 1.0)).collect();
    let theta = rng.vec(26, -0.5, 0.5);
    let points: Vec<Vec<f64>> = (0..4).map(|_| rng.vec(3, -1.0, 1.0)).collect();
    let us: Vec<Vec<f64>> = (0..4).map(|_| rng.vec(2, 0.0, 0.5)).collect();
    let mut t = Tool::start("interp");
    for mirrored in [false, true] {
        let hand = Hand {
            parents: vec![-1, 0, 1, 2, 0, 4],
            base_relatives: base_relatives.clone(),
            inverse_base_absolutes: inverse_base_absolutes.clone(),
            positions: positions.clone(),
            weights: weights.clone(),
            triangles: vec![[0, 1, 2], [2, 3, 4], [4, 5, 6]],
            mirrored,
        };
        // simple: points correspond to vertices
        let corr = [3usize, 0, 6, 3];
        let data = json!({"model": hand.model_json(), "correspondences": corr, "points": points});
        let input = json!({"theta": theta, "data": data, "us": []});
        let simple = |th: &[f64]| -> Vec<f64> {
            let v = hand.vertices(th);
            corr.iter()
                .zip(&points)
                .flat_map(|(&c, p)| [0, 1, 2].map(|i| p[i] - v[c][i]))
                .collect()
        };
        all_close(
            &nums(&t.evaluate("ht", "objective", input.clone())),
            &simple(&theta),
            1e-12,
            "ht simple objective",
        );
        let jac = matrix(&t.evaluate("ht", "jacobian", input));
        assert_eq!(jac.len(), 12);
        for (r, row) in jac.iter().enumerate() {
            let f = |th: &[f64]| simple(th)[r];
            all_close(row, &fd_gradient(&f, &theta), 1e-6, "ht simple jacobian");
        }
        // complicated: points correspond to points of triangles
        let corr = [1usize, 0, 2, 1];
        let data = json!({"model": hand.model_json(), "correspondences": corr, "points": points});
        let input = json!({"theta": theta, "data": data, "us": us});
        let complicated = |th: &[f64], us: &[Vec<f64>]| -> Vec<f64> {
            let v = hand.vertices(th);
            corr.iter()
                .zip(&points)
                .zip(us)
                .flat_map(|((&c, p), u)| {
                    let [a, b, cc] = hand.triangles[c];
                    [0, 1, 2].map(|i| {
                        p[i] - (u[0] * v[a][i] + u[1] * v[b][i] + (1.0 - u[0] - u[1]) * v[cc][i])
                    })
                })
                .collect()
        };
        all_close(
            &nums(&t.evaluate("ht", "objective", input.clone())),
            &complicated(&theta, &us),
            1e-12,
            "ht complicated objective",
        );
        let jac = matrix(&t.evaluate("ht", "jacobian", input));
        assert_eq!(jac.len(), 12);
        for (r, row) in jac.iter().enumerate() {
            assert_eq!(row.len(), 28);
            // columns 0 and 1: the derivatives along the row's own point's us
            let point = r / 3;
            for (col, slot) in [(0usize, 0usize), (1, 1)] {
                let f = |u: &[f64]| {
                    let mut us2 = us.clone();
                    us2[point][slot] = u[0];
                    complicated(&theta, &us2)[r]
                };
                let fd = fd_gradient(&f, &[us[point][slot]])[0];
                close(row[col], fd, 1e-6, "ht complicated jacobian us");
            }
            let f = |th: &[f64]| complicated(th, &us)[r];
            all_close(
                &row[2..],
                &fd_gradient(&f, &theta),
                1e-6,
                "ht complicated jacobian θ",
            );
        }
    }
    // A model whose parents do not come first is refused with a message.
    let bad = json!({
        "theta": theta,
        "data": {"model": {"bone_count": 2, "bone_names": ["a", "b"], "parents": [1, -1],
                            "base_relatives": vec![[[0.0; 4]; 4]; 2],
                            "inverse_base_absolutes": vec![[[0.0; 4]; 4]; 2],
                            "base_positions": [[0.0, 0.0, 0.0, 1.0]], "weights": [[1.0, 0.0]],
                            "triangles": [], "is_mirrored": false},
                 "correspondences": [0], "points": [[0.0, 0.0, 0.0]]},
        "us": [],
    });
    let r = t.evaluate_response("ht", "objective", bad);
    assert_eq!(r["success"], json!(false), "{r}");
    assert!(r["error"].as_str().unwrap().contains("parents[0]"), "{r}");
    assert_eq!(t.finish(), Some(0));
}

#[test]
fn particle_and_saddle() {
    // The values GradBench's evals expect, whatever the modes of differentiation.
    let mut t = Tool::start("c");
    for f in ["ff", "fr", "rf", "rr"] {
        close(
            num(&t.evaluate("particle", f, json!({"w": 0.0}))),
            0.2071918746486116,
            1e-9,
            "particle",
        );
        all_close(
            &nums(&t.evaluate("saddle", f, json!({"start": [1.0, 1.0]}))),
            &[8.246324826140356e-06; 4],
            1e-9,
            "saddle",
        );
    }
    assert_eq!(t.finish(), Some(0));
}

// ---------------------------------------------------------------------------------------
// GradBench's own evals

/// Every eval on its smallest inputs, run by GradBench's eval code (which validates each
/// output against GradBench's C++ `manual` tool, or against known values) through
/// `../shared/gradbench/run.sh`, with a minimal GradBench setup (`GB_MINIMAL=1 setup.sh`) in
/// the target folder. Skipped, saying so, without `../shared/gradbench` or Python, or when
/// the setup fails (it needs a C++ compiler and, the first time, PyPI).
#[test]
fn gradbench_evals_validate() {
    let shared = repo_root().join("../shared/gradbench");
    if !shared.join("run.sh").is_file() || !shared.join("setup.sh").is_file() {
        eprintln!(
            "SKIPPED gradbench_evals_validate: no GradBench at {} (expected setup.sh and run.sh)",
            shared.display()
        );
        return;
    }
    let python = Command::new("python3").arg("--version").output();
    if !python.is_ok_and(|o| o.status.success()) {
        eprintln!("SKIPPED gradbench_evals_validate: python3 is not available");
        return;
    }
    let build = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gradbench");
    let setup = Command::new("bash")
        .arg(shared.join("setup.sh"))
        .env("GB_BUILD", &build)
        .env("GB_MINIMAL", "1")
        .output()
        .expect("cannot run setup.sh");
    if !setup.status.success() {
        eprintln!(
            "SKIPPED gradbench_evals_validate: GB_MINIMAL=1 setup.sh into {} failed:\n{}",
            build.display(),
            String::from_utf8_lossy(&setup.stderr)
        );
        return;
    }
    let tool = format!(
        "$ '{}' gradbench --programs '{}'",
        env!("CARGO_BIN_EXE_gradus"),
        programs().display()
    );
    let runs = ["--min-runs", "1", "--min-seconds", "0"];
    let evals: &[(&str, &[&str])] = &[
        ("hello", &[]),
        ("lse", &["-n", "4", "100"]),
        ("llsq", &["-n", "16", "-m", "8"]),
        ("ode", &["-n", "10", "-s", "1", "3"]),
        ("det", &["-l", "2", "3", "4", "5"]),
        ("kmeans", &["-k", "2", "-n", "10", "-d", "2"]),
        ("gmm", &["-d", "2", "3", "-k", "2", "-n", "10"]),
        ("ba", &["--min", "1", "--max", "1"]),
        ("ht", &["--min", "1", "--max", "1"]),
        (
            "ht",
            &[
                "--min",
                "1",
                "--max",
                "1",
                "--variant",
                "simple",
                "--model",
                "small",
            ],
        ),
        ("lstm", &["-l", "1", "2", "-c", "8"]),
        ("particle", &[]),
        ("saddle", &[]),
    ];
    let logs = build.join("test-logs");
    let mut failures = Vec::new();
    for (k, (eval, args)) in evals.iter().enumerate() {
        let mut cmd = Command::new("bash");
        cmd.arg(shared.join("run.sh"))
            .arg(eval)
            .arg(&tool)
            .arg(logs.join(format!("{k}-{eval}.jsonl")))
            .arg("--")
            .args(if *eval == "hello" { &[][..] } else { &runs[..] })
            .args(*args)
            .env("GB_BUILD", &build)
            .current_dir(repo_root());
        let out = cmd.output().expect("cannot run run.sh");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let summary = stdout
            .lines()
            .find(|l| l.starts_with("summary:"))
            .unwrap_or("(no summary)")
            .to_string();
        eprintln!("{eval} {}: {summary}", args.join(" "));
        if !out.status.success() {
            failures.push(format!(
                "{eval} {}: exit {:?}\n{stdout}\n{}",
                args.join(" "),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
