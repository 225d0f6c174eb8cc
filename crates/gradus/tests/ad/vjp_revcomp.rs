//! Reverse computing in loops (`ad/vjp/loops/revcomp/`): where a `for` loop's carried scalars are
//! updated invertibly, the return sweep recovers the earlier iterates with the inverse update
//! instead of reading `[n]` checkpoint arrays. Checked on the AD output (no checkpoint array
//! outside the fallback branch), on the interpreter's allocation counter (no `scratch` element
//! allocated at run time unless a zero factor forces the fallback), against the checkpointed
//! gradient (`#[checkpoint]`) and a closed form, and by the transposition identity and finite
//! differences.

use gradus::derivative_check::check_vjp;
use gradus::pipeline::{Stage, dump_stage};
use gradus::program::Program;
use gradus::value::{Array, Buffer, Scalar, Value};

const PROGRAMS: &str = r#"
-- Symplectic Euler for a pendulum: v is recovered first (from x'), then x.
def pendulum (x0: f64, v0: f64, h: f64) (n: i64) =
  let (x, v) = loop (x, v) = (x0, v0) for _i < n do
    let x' = x + h * v in (x', v - h * f64.sin x')
  in 0.5 * v * v - f64.cos x

def pendulum_ck (x0: f64, v0: f64, h: f64) (n: i64) =
  let (x, v) = #[checkpoint] loop (x, v) = (x0, v0) for _i < n do
    let x' = x + h * v in (x', v - h * f64.sin x')
  in 0.5 * v * v - f64.cos x

-- A product: inverted by division, unless a factor is zero.
def product [n] (x: f64) (es: [n]f64) = loop y = x for i < n do y * es[i]

-- A rotation by an angle that changes per iteration (a 2x2 system).
def rotation (a0: f64, b0: f64, t: f64) (n: i64) =
  let (a, b) = loop (a, b) = (a0, b0) for i < n do
    let c = f64.cos (t + 0.001 * f64.i64 i)
    let s = f64.sin (t + 0.001 * f64.i64 i)
    in (c * a - s * b, s * a + c * b)
  in a * a * b + 3 * b

-- A dot product: the sum is never read, so no adjoint depends on its iterates.
def dot [n] (xs: [n]f64) (ys: [n]f64) = loop acc = 0 for i < n do acc + xs[i] * ys[i]

entry dot_grad [n] (xs: [n]f64) (ys: [n]f64) = vjp (\(xs, ys) -> dot xs ys) (xs, ys) 1
entry pendulum_grad (x0: f64) (v0: f64) (h: f64) (n: i64) = vjp (\p -> pendulum p n) (x0, v0, h) 1
entry pendulum_ck_grad (x0: f64) (v0: f64) (h: f64) (n: i64) = vjp (\p -> pendulum_ck p n) (x0, v0, h) 1
entry product_grad [n] (x: f64) (es: [n]f64) = vjp (\(x, es) -> product x es) (x, es) 1
entry pendulum_primal (x0: f64) (v0: f64) (h: f64) (n: i64) = pendulum (x0, v0, h) n
entry pendulum_value (x0: f64) (v0: f64) (h: f64) = pendulum (x0, v0, h) 300
entry rotation_value (a0: f64) (b0: f64) (t: f64) = rotation (a0, b0, t) 300
entry product_value (x: f64) (es: [5]f64) = product x es
"#;

fn s(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

fn n64(n: i64) -> Value {
    Value::Scalar(Scalar::I64(n))
}

fn f64s(xs: Vec<f64>) -> Value {
    Value::Array(Array::from_buffer(Buffer::F64(xs)))
}

fn nums(vs: &[Value]) -> Vec<f64> {
    let mut out = Vec::new();
    for v in vs {
        match v {
            Value::Scalar(x) => out.push(x.to_f64()),
            Value::Array(a) => match a.buffer() {
                Buffer::F64(xs) => out.extend(xs),
                other => panic!("expected f64s, got {other:?}"),
            },
        }
    }
    out
}

fn program() -> Program {
    Program::from_source("revcomp.fut", PROGRAMS).unwrap_or_else(|d| panic!("{}", d.render()))
}

/// Runs an entry and returns its results and the `scratch` elements it allocated.
fn run(p: &Program, entry: &str, args: Vec<Value>) -> (Vec<f64>, u64) {
    p.counter().reset();
    let r = p
        .call(entry, args)
        .unwrap_or_else(|e| panic!("{entry}: {e}"));
    (nums(&r), p.counter().scratch_elements())
}

fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= tol * y.abs().max(1.0))
}

/// The AD output of one gradient entry: (`scratch` lines before the fallback branch, in all).
fn scratch_lines(entry: &str) -> (usize, usize) {
    let src: String = PROGRAMS
        .lines()
        .filter(|l| !l.starts_with("entry") || l.starts_with(&format!("entry {entry} ")))
        .collect::<Vec<_>>()
        .join("\n");
    let ad =
        dump_stage("revcomp.fut", &src, Stage::Ad).unwrap_or_else(|d| panic!("{}", d.render()));
    let lines: Vec<&str> = ad.lines().collect();
    let fallback = lines
        .iter()
        .position(|l| l.contains("if invertible"))
        .unwrap_or(lines.len());
    let count = |ls: &[&str]| ls.iter().filter(|l| l.contains("scratch(")).count();
    (count(&lines[..fallback]), count(&lines))
}

#[test]
fn reverse_computed_loops_have_checkpoints_only_in_the_fallback() {
    // Two checkpoint arrays exist, both in the branch taken when an inversion is invalid.
    assert_eq!(scratch_lines("pendulum_grad"), (0, 2));
    assert_eq!(scratch_lines("product_grad"), (0, 1));
    // `#[checkpoint]`: the forward sweep checkpoints x and v, and there is no fallback.
    assert_eq!(scratch_lines("pendulum_ck_grad"), (2, 2));
}

#[test]
fn a_sum_nothing_reads_needs_no_invertibility_check() {
    // No flag, no fallback branch, no checkpoints: the adjoint of `acc` passes through.
    let src: String = PROGRAMS
        .lines()
        .filter(|l| !l.starts_with("entry") || l.starts_with("entry dot_grad "))
        .collect::<Vec<_>>()
        .join("\n");
    let ad =
        dump_stage("revcomp.fut", &src, Stage::Ad).unwrap_or_else(|d| panic!("{}", d.render()));
    assert!(!ad.contains("invertible"), "{ad}");
    assert_eq!(scratch_lines("dot_grad"), (0, 0));
    let p = program();
    let xs = vec![1.5, -2.0, 0.25, 4.0];
    let ys = vec![0.5, 3.0, -1.0, 2.0];
    let (g, _) = run(&p, "dot_grad", vec![f64s(xs.clone()), f64s(ys.clone())]);
    let mut want = ys.clone();
    want.extend(xs);
    assert_eq!(g, want);
    // An overflowing sum changes nothing: its adjoint does not depend on it.
    let (g, _) = run(
        &p,
        "dot_grad",
        vec![f64s(vec![1e308, 1e308]), f64s(vec![10.0, 10.0])],
    );
    assert_eq!(g, vec![10.0, 10.0, 1e308, 1e308]);
}

#[test]
fn reverse_computing_saves_the_checkpoint_memory_of_a_long_integrator() {
    let p = program();
    let n = 100_000;
    let args = vec![s(1.0), s(0.3), s(0.01), n64(n)];
    let (rc, rc_elems) = run(&p, "pendulum_grad", args.clone());
    let (ck, ck_elems) = run(&p, "pendulum_ck_grad", args);
    // Reverse computing allocates nothing; checkpointing two f64 arrays of n elements.
    assert_eq!(rc_elems, 0);
    assert_eq!(ck_elems, 2 * n as u64);
    eprintln!(
        "pendulum, {n} steps: checkpoints {} bytes with #[checkpoint], {} bytes reverse computed",
        ck_elems * 8,
        rc_elems * 8
    );
    // The recovered iterates drift by rounding only: the gradients agree closely.
    assert!(close(&rc, &ck, 1e-9), "{rc:?} vs {ck:?}");
}

#[test]
fn reverse_computing_keeps_the_work_a_constant_factor_of_the_primal() {
    // The return sweep recomputes the inverse and re-executes the body; the forward sweep
    // checks invertibility. Work (interpreter operations) over the primal's, at n and 10n.
    let p = program();
    let mut ratios = Vec::new();
    for n in [1_000, 10_000] {
        let args = vec![s(1.0), s(0.3), s(0.01), n64(n)];
        let work = |entry: &str| {
            p.counter().reset();
            p.call(entry, args.clone())
                .unwrap_or_else(|e| panic!("{entry}: {e}"));
            p.counter().total() as f64
        };
        let primal = work("pendulum_primal");
        let rc = work("pendulum_grad") / primal;
        let ck = work("pendulum_ck_grad") / primal;
        eprintln!(
            "pendulum, {n} steps: gradient/primal work {rc:.2} reverse computed, {ck:.2} checkpointed"
        );
        assert!(rc < 6.0, "reverse computed gradient costs {rc} primals");
        ratios.push(rc);
    }
    assert!((ratios[1] - ratios[0]).abs() < 0.1, "{ratios:?}");
}

#[test]
fn a_zero_factor_falls_back_to_checkpoints() {
    let p = program();
    let es = vec![1.5, 2.0, 0.5, -1.0, 3.0];
    let grad = |x: f64, es: &[f64]| {
        let mut out = vec![es.iter().product::<f64>()];
        for k in 0..es.len() {
            let others: f64 = (0..es.len()).filter(|m| *m != k).map(|m| es[m]).product();
            out.push(x * others);
        }
        out
    };
    let (g, elems) = run(&p, "product_grad", vec![s(0.75), f64s(es.clone())]);
    assert_eq!(elems, 0);
    assert!(close(&g, &grad(0.75, &es), 1e-12), "{g:?}");
    for z in [0, 2, 4] {
        let mut es = es.clone();
        es[z] = 0.0;
        let (g, elems) = run(&p, "product_grad", vec![s(0.75), f64s(es.clone())]);
        // The fallback re-ran the loop with one checkpoint per iteration.
        assert_eq!(elems, es.len() as u64);
        assert!(close(&g, &grad(0.75, &es), 1e-12), "zero at {z}: {g:?}");
    }
}

#[test]
fn reverse_computed_gradients_pass_transposition_and_finite_differences() {
    for (entry, args) in [
        ("pendulum_value", vec![s(1.0), s(0.3), s(0.01)]),
        ("rotation_value", vec![s(0.5), s(-2.0), s(0.01)]),
        (
            "product_value",
            vec![s(0.7), f64s(vec![1.5, 0.0, 0.5, -1.0, 2.0])],
        ),
    ] {
        let r = check_vjp("revcomp.fut", PROGRAMS, entry, &args, 3)
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert!(r.passes(1e-6, 1e-3), "{r}");
    }
}
