//! Reverse computing in loops: where a `for` loop's carried scalar is updated by `+ e` or
//! `- e` (with `e` independent of it, possibly depending on other such scalars in a
//! triangular way), the return sweep recovers its earlier values by the inverse update
//! instead of reading `[n]` checkpoints. Checked on the AD output (no checkpoint array is
//! allocated) and on values: the gradient equals the checkpointed one (`#[checkpoint]`), the
//! transposition identity and finite differences.

use gradus::check::check_entry_vjp;
use gradus::pipeline::{Stage, dump_stage};
use gradus::program::Program;
use gradus::value::{Scalar, Value};

const PROGRAMS: &str = r#"
def euler (x0: f64, v0: f64, h: f64) =
  let (x, v) = loop (x, v) = (x0, v0) for _i < 1000 do
    let x' = x + h * v in (x', v - h * f64.sin x')
  in x * x + v

def euler_ck (x0: f64, v0: f64, h: f64) =
  let (x, v) = #[checkpoint] loop (x, v) = (x0, v0) for _i < 1000 do
    let x' = x + h * v in (x', v - h * f64.sin x')
  in x * x + v

-- Integer state updated by subtraction from a term: wraps and inverts exactly.
def counter (x: f64) =
  let (y, k) = loop (y, k) = (x, 7i64) for i < 500 do (y - f64.i64 (k % 13) * 0.001 * y, (3 * i) - k)
  in y * f64.i64 k

-- A multiplication is not inverted: it keeps its checkpoints.
def product (x: f64) = loop y = x for i < 100 do y * (1.0 + 0.001 * f64.i64 i)

entry euler_grad (x0: f64) (v0: f64) (h: f64) = vjp euler (x0, v0, h) 1
entry euler_ck_grad (x0: f64) (v0: f64) (h: f64) = vjp euler_ck (x0, v0, h) 1
entry counter_grad (x: f64) = vjp counter x 1
entry product_grad (x: f64) = vjp product x 1
entry euler_value (x0: f64) (v0: f64) (h: f64) = euler (x0, v0, h)
entry counter_value (x: f64) = counter x
entry product_value (x: f64) = product x
"#;

fn s(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

fn num(v: &Value) -> f64 {
    match v {
        Value::Scalar(x) => x.to_f64(),
        other => panic!("expected a scalar, got {other:?}"),
    }
}

/// The checkpoint arrays (`scratch` of the loop's length) in the AD output of an entry alone.
fn checkpoint_arrays(entry: &str) -> usize {
    let src = PROGRAMS
        .lines()
        .filter(|l| !l.starts_with("entry") || l.starts_with(&format!("entry {entry} ")))
        .collect::<Vec<_>>()
        .join("\n");
    let ad =
        dump_stage("revcomp.fut", &src, Stage::Ad).unwrap_or_else(|d| panic!("{}", d.render()));
    ad.lines()
        .filter(|l| l.contains("checkpoints") && l.contains("scratch"))
        .count()
}

#[test]
fn invertible_updates_allocate_no_checkpoints() {
    assert_eq!(checkpoint_arrays("euler_grad"), 0);
    // `#[checkpoint]` turns reverse computing off: one array per carried value.
    assert_eq!(checkpoint_arrays("euler_ck_grad"), 2);
    // `k` is inverted; `y`'s update reads `y` itself, so it keeps its checkpoints.
    assert_eq!(checkpoint_arrays("counter_grad"), 1);
    assert_eq!(checkpoint_arrays("product_grad"), 1);
}

#[test]
fn reverse_computed_gradients_match_checkpointed_ones() {
    let p =
        Program::from_source("revcomp.fut", PROGRAMS).unwrap_or_else(|d| panic!("{}", d.render()));
    for (x0, v0, h) in [(1.0, 0.3, 0.01), (-0.5, 2.0, 0.003), (0.2, -1.0, 0.02)] {
        let a = p.call("euler_grad", vec![s(x0), s(v0), s(h)]).unwrap();
        let b = p.call("euler_ck_grad", vec![s(x0), s(v0), s(h)]).unwrap();
        assert_eq!(a.len(), 3);
        for (ra, rb) in a.iter().zip(&b) {
            let (x, y) = (num(ra), num(rb));
            assert!(
                (x - y).abs() <= 1e-9 * y.abs().max(1.0),
                "reverse computed {x} vs checkpointed {y}"
            );
        }
    }
}

#[test]
fn reverse_computed_gradients_pass_transposition_and_finite_differences() {
    for (entry, args) in [
        ("euler_value", vec![s(1.0), s(0.3), s(0.01)]),
        ("counter_value", vec![s(1.3)]),
        ("product_value", vec![s(0.7)]),
    ] {
        let r = check_entry_vjp("revcomp.fut", PROGRAMS, entry, &args, 3)
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert!(r.passes(1e-6, 1e-3), "{r}");
    }
}
