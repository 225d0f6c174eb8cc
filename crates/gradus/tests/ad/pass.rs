//! The AD pass on its own: programs in core IR's text form with `jvp`/`vjp` statements
//! (as internalisation emits them) are expanded by `gradus::ad::run`, verified, snapshotted,
//! and run on the interpreter against derivatives worked out by hand.

use gradus::core::ir::{Exp, Prog};
use gradus::core::parse::parse_prog;
use gradus::core::print::print_prog;
use gradus::core::renumber::renumber;
use gradus::diag::SourceMap;
use gradus::value::{Array, Buffer, Scalar, Value};

fn load(name: &str) -> Prog {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/ad")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let prog = parse_prog(&text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    gradus::core::verify::verify(&prog).unwrap_or_else(|e| panic!("{name} before AD: {e}"));
    prog
}

fn expanded(name: &str) -> Prog {
    let mut prog = load(name);
    gradus::ad::run(&mut prog).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    gradus::core::verify::verify(&prog)
        .unwrap_or_else(|e| panic!("{name} after AD: {e}\n{}", print_prog(&prog)));
    prog
}

fn has_ad(prog: &Prog) -> bool {
    fn body(b: &gradus::core::ir::Body) -> bool {
        b.stms
            .iter()
            .any(|s| matches!(s.exp, Exp::Ad { .. }) || s.exp.bodies().into_iter().any(body))
    }
    prog.funs.iter().any(|f| body(&f.body))
}

fn call(prog: &Prog, entry: &str, args: Vec<Value>) -> Vec<Value> {
    let fun = prog.entry(entry).unwrap();
    let counter = Default::default();
    gradus::backend::interp::run_function(prog, &SourceMap::new(), fun, args, &counter)
        .unwrap_or_else(|e| panic!("{entry}: {e}"))
}

fn f64s(v: &[f64]) -> Value {
    Value::Array(Array::from_buffer(Buffer::F64(v.to_vec())))
}

fn s(x: f64) -> Value {
    Value::Scalar(Scalar::F64(x))
}

#[test]
fn expansion_leaves_no_ad_statement_and_is_stable() {
    let prog = load("nested.ir");
    assert!(has_ad(&prog));
    let out = expanded("nested.ir");
    assert!(!has_ad(&out));
    insta::assert_snapshot!("nested", print_prog(&renumber(&out)));
}

#[test]
fn the_gradient_of_a_dot_product_is_the_other_vector() {
    let prog = expanded("nested.ir");
    let xs = [0.5, -1.25, 2.0];
    let ys = [3.0, 0.75, -4.5];
    let out = call(&prog, "grad_dot", vec![f64s(&xs), f64s(&ys)]);
    assert_eq!(out, vec![f64s(&ys), f64s(&xs)]);
}

#[test]
fn jvp_of_vjp_is_a_hessian_vector_product() {
    // f = x²y: ∇f = (2xy, x²); H = [[2y, 2x], [2x, 0]].
    let prog = expanded("nested.ir");
    let (x, y, dx, dy) = (1.5, -0.5, 0.25, 2.0);
    let out = call(&prog, "hvp", vec![s(x), s(y), s(dx), s(dy)]);
    let want = [2.0 * y * dx + 2.0 * x * dy, 2.0 * x * dx];
    for (o, w) in out.iter().zip(want) {
        let Value::Scalar(Scalar::F64(o)) = o else {
            panic!("not an f64: {o:?}")
        };
        assert!((o - w).abs() < 1e-12, "{o} vs {w}");
    }
}

#[test]
fn the_interpreter_refuses_an_unexpanded_ad_statement() {
    let prog = load("nested.ir");
    let fun = prog.entry("hvp").unwrap();
    let r = gradus::backend::interp::run_function(
        &prog,
        &SourceMap::new(),
        fun,
        vec![s(1.0), s(1.0), s(1.0), s(1.0)],
        &Default::default(),
    );
    assert!(r.is_err());
}

#[test]
fn the_verifier_rejects_seeds_that_do_not_fit() {
    let text = r#"
entry bad (x_0: f64) : f64
  external bad ("f64" x_0) -> ("f64" 1)
{
  let (y_1: f64, t_2: f64) = jvp(\(a_3: f64) : f64 -> { let b_4: f64 = mul_f64(a_3, a_3) in b_4 }, (x_0), (x_0, x_0))
  in t_2
}
"#;
    let prog = parse_prog(text).unwrap();
    let e = gradus::core::verify::verify(&prog).unwrap_err();
    assert!(e.to_string().contains("seeds"), "{e}");
}

#[test]
fn stage_ad_differs_from_stage_core_for_vjp() {
    use gradus::pipeline::{Stage, dump_stage};
    let src = "entry g (x: f64) = vjp (\\y -> y * y) x 1.0";
    let core = dump_stage("g.fut", src, Stage::Core).unwrap();
    let ad = dump_stage("g.fut", src, Stage::Ad).unwrap();
    assert!(core.contains("vjp("), "{core}");
    assert!(!ad.contains("vjp("), "{ad}");
    assert_ne!(core, ad);
}
