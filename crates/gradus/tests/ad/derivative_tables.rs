//! The compiler's partial derivatives of the primitives (`ad/derivatives.rs`) tied to
//! definitions made elsewhere, kinks included (docs/language.md §Partial derivatives):
//!
//! - `every_primitive_is_tied_at_random_points_and_kinks` walks the compiler's own table of
//!   primitives (`gradus::core::prim::all_prim_ops`): every operation with a float result
//!   and a float operand has a partial-derivative rule, and each, at `f32` and `f64`, is
//!   differentiated by the AD pass in a core IR program (forward mode in each operand, reverse
//!   mode in all) at random points and at its kinks. The reference is `gradus_num::rules`
//!   where it has a rule for the operation, else central finite differences of the
//!   interpreter's own evaluation of the primitive (`PrimOp::eval`); at a kink the compiler's
//!   partial must be the derivative's limit from one side. A primitive this test has no
//!   test domain for fails it, so a new primitive cannot stay untied.
//! - `the_compilers_partials_match_gradus_num_at_every_rule` goes through the source language
//!   instead: at every rule of `gradus_num::rules::UNARY` and `BINARY` that is a primitive of
//!   the language, values and partials of the compiled expression agree with the rule at
//!   points inside the rule's test domain and at the kinks. The rules that are not primitives
//!   are listed, so that a new rule must be tied or listed.

use gradus::backend::interp::run_function;
use gradus::core::ir::Prog;
use gradus::core::parse::parse_prog;
use gradus::core::prim::{PrimOp, TernOp, all_prim_ops};
use gradus::core::print::print_prog;
use gradus::core::scalar::{PrimType, Scalar};
use gradus::diag::SourceMap;
use gradus::program::Program;
use gradus::value::Value;
use gradus_check::SplitMix64;
use gradus_num::rules::{BINARY, BinaryRule, UNARY, UnaryRule};

/// Rules of `gradus_num` with no primitive of the language behind them.
const NOT_PRIMITIVES: &[&str] = &["exp2", "expm1", "square", "powi3", "digamma"];

/// The language's expression for a rule, in the operands `a` and `b`.
fn expression(name: &str) -> Option<String> {
    let op = |o: &str| Some(format!("a {o} b"));
    let call1 = |f: &str| Some(format!("f64.{f} a"));
    let call2 = |f: &str| Some(format!("f64.{f} a b"));
    match name {
        "add" => op("+"),
        "sub" => op("-"),
        "mul" => op("*"),
        "div" => op("/"),
        "powf" => op("**"),
        "rem" => op("%"),
        "atan2" | "hypot" | "min" | "max" | "copysign" => call2(name),
        "ln" => call1("log"),
        n if NOT_PRIMITIVES.contains(&n) => None,
        n => call1(n),
    }
}

/// Points to compare at: a quarter, half and three quarters into the domain.
fn inside(lo: f64, hi: f64) -> [f64; 3] {
    [0.25, 0.5, 0.75].map(|t| lo + t * (hi - lo))
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

fn f64_of(v: &Value) -> f64 {
    match v {
        Value::Scalar(Scalar::F64(x)) => *x,
        other => panic!("not an f64: {other:?}"),
    }
}

#[test]
fn the_compilers_partials_match_gradus_num_at_every_rule() {
    gradus::pipeline::passes::verify_every_pass();
    let mut source = String::new();
    let mut expected: Vec<(String, f64, f64, [f64; 3])> = Vec::new();
    for r in UNARY {
        let Some(e) = expression(r.name) else {
            continue;
        };
        let mut points: Vec<f64> = inside(r.domain.0, r.domain.1).to_vec();
        points.extend_from_slice(r.kinks);
        for x in points {
            let (v, d) = (r.rule)(x);
            expected.push((r.name.to_string(), x, 0.0, [v, d, 0.0]));
        }
        source.push_str(&entry(r.name, &e));
    }
    for r in BINARY {
        let Some(e) = expression(r.name) else {
            continue;
        };
        let xs = inside(r.domain_x.0, r.domain_x.1);
        let ys = inside(r.domain_y.0, r.domain_y.1);
        let mut points: Vec<(f64, f64)> = xs
            .iter()
            .zip(ys.iter().rev())
            .map(|(x, y)| (*x, *y))
            .collect();
        // The kinks are listed under the compiler's names (`pow` for `powf`).
        let kind = if r.name == "powf" { "pow" } else { r.name };
        points.extend(kinks(kind).iter().map(|k| (k[0], k[1])));
        for (x, y) in points {
            let (v, dx, dy) = (r.rule)(x, y);
            expected.push((r.name.to_string(), x, y, [v, dx, dy]));
        }
        source.push_str(&entry(r.name, &e));
    }
    let tied: std::collections::BTreeSet<_> = expected.iter().map(|e| e.0.clone()).collect();
    let all = UNARY
        .iter()
        .map(|r| r.name)
        .chain(BINARY.iter().map(|r| r.name));
    for name in all {
        assert!(
            tied.contains(name) || NOT_PRIMITIVES.contains(&name),
            "{name}: neither tied nor listed"
        );
    }
    let prog = Program::from_source("partials.fut", &source)
        .unwrap_or_else(|d| panic!("{}\n{source}", d.render()));
    let mut wrong = Vec::new();
    for (name, x, y, want) in &expected {
        let args = vec![Value::from(Scalar::F64(*x)), Value::from(Scalar::F64(*y))];
        let got = prog
            .call(&format!("d_{name}"), args)
            .unwrap_or_else(|e| panic!("{name} at ({x}, {y}): {e:?}"));
        let got: Vec<f64> = got.iter().map(f64_of).collect();
        if !(0..3).all(|i| same(got[i], want[i])) {
            wrong.push(format!(
                "{name} at ({x}, {y}): compiler (value, ∂a, ∂b) = {got:?}, gradus_num = {want:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(tied.len() > 30, "{tied:?}");
}

/// An entry point returning the value and both partials of `e` (a unary rule ignores `b`).
fn entry(name: &str, e: &str) -> String {
    format!(
        "entry d_{name} (a: f64) (b: f64) : (f64, f64, f64) =\n  \
         let f (a: f64, b: f64) = {e}\n  \
         in (f (a, b), jvp f (a, b) (1.0, 0.0), jvp f (a, b) (0.0, 1.0))\n"
    )
}

// ---------------------------------------------------------------------------------------
// Every primitive of the compiler's table, through the AD pass on core IR

/// Where the partial derivatives of an operation are checked against.
#[derive(Clone, Copy)]
enum Reference {
    Unary(&'static UnaryRule),
    Binary(&'static BinaryRule),
    /// Central differences of the interpreter's evaluation of the operation.
    Differences,
    /// Zero by convention: the bit operations (docs/language.md §Partial derivatives), although
    /// `set_bit` on a float moves with its operand.
    Zero,
}

/// The operation's name without its type: `sin`, `atan2pi`, `conv`.
fn kind(op: PrimOp) -> String {
    match op {
        PrimOp::Un(u, _) => format!("{u:?}"),
        PrimOp::Bin(b, _) => format!("{b:?}"),
        PrimOp::Cmp(c, _) => format!("{c:?}"),
        PrimOp::Tern(t, _) => format!("{t:?}"),
        PrimOp::Conv(..) => "conv".to_string(),
        PrimOp::FromBits(..) => "from_bits".to_string(),
    }
    .to_lowercase()
}

/// `gradus_num`'s rule for the operation, if it has one (looked up by name).
fn reference(op: PrimOp) -> Reference {
    let kind = kind(op);
    let name = match kind.as_str() {
        "log" => "ln",
        "mod" => "rem",
        "pow" => "powf",
        k => k,
    };
    match op {
        PrimOp::Tern(TernOp::SetBit, _) => Reference::Zero,
        PrimOp::Un(..) => UNARY
            .iter()
            .find(|r| r.name == name)
            .map_or(Reference::Differences, Reference::Unary),
        PrimOp::Bin(..) => BINARY
            .iter()
            .find(|r| r.name == name)
            .map_or(Reference::Differences, Reference::Binary),
        _ => Reference::Differences,
    }
}

/// Every operation of the compiler's table that has a partial-derivative rule: defined, with a
/// float result and at least one float operand.
fn differentiable_ops() -> Vec<PrimOp> {
    all_prim_ops()
        .into_iter()
        .filter(|op| {
            op.has_semantics()
                && op.result_type().is_float()
                && op.operand_types().iter().any(|t| t.is_float())
        })
        .collect()
}

/// The intervals random operands are drawn from, per operand (a non-float operand takes the
/// floor of its draw), for the operations without a `gradus_num` rule. `None` for an
/// operation this test does not know: a new primitive needs an entry here.
fn difference_domain(kind: &str) -> Option<Vec<(f64, f64)>> {
    let r = (-3.0, 3.0);
    Some(match kind {
        "neg" | "sgn" | "ceil" | "floor" | "trunc" | "round" | "atanpi" | "conv" => vec![r],
        "sinpi" | "cospi" => vec![(-1.2, 1.2)],
        "tanpi" => vec![(-0.3, 0.3)],
        "asinpi" | "acospi" => vec![(-0.9, 0.9)],
        "atan2pi" => vec![r, (0.5, 3.0)],
        "nextafter" => vec![r, r],
        "ldexp" => vec![r, (-4.0, 5.0)],
        "fma" | "mad" => vec![r, r, r],
        "lerp" => vec![r, r, (0.0, 1.0)],
        "select" => vec![(0.0, 2.0), r, r],
        "setbit" => vec![(0.0, 64.0), r, (0.0, 2.0)],
        _ => return None,
    })
}

/// The kinks of an operation besides those of its unary `gradus_num` rule, as whole operand
/// lists (docs/language.md §Partial derivatives).
fn kinks(kind: &str) -> Vec<Vec<f64>> {
    let points: &[&[f64]] = match kind {
        "min" | "max" => &[&[1.5, 1.5], &[0.0, 0.0], &[-2.0, -2.0]],
        "hypot" => &[&[0.0, 0.0], &[0.0, 2.0]],
        "pow" => &[&[0.0, 2.0], &[0.0, 1.0]],
        "copysign" => &[
            &[1.5, 0.0],
            &[-1.5, 0.0],
            &[1.5, -0.0],
            &[0.0, 1.0],
            &[0.0, -1.0],
        ],
        "sgn" => &[&[0.0]],
        "ceil" | "floor" | "trunc" => &[&[-1.0], &[0.0], &[2.0]],
        "round" => &[&[0.5], &[-2.5]],
        "nextafter" => &[&[1.5, 1.5]],
        _ => &[],
    };
    points.iter().map(|p| p.to_vec()).collect()
}

/// Whether `f32` is involved (operand or result): steps and tolerances are then wider.
fn single(op: PrimOp) -> bool {
    op.result_type() == PrimType::F32 || op.operand_types().contains(&PrimType::F32)
}

/// Relative difference step, and the tolerance against differences and against `gradus_num`.
fn precision(op: PrimOp) -> (f64, f64, f64) {
    if single(op) {
        (1.0 / 128.0, 2e-3, 2e-5)
    } else {
        (1e-5, 1e-7, 1e-12)
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// The derivative of `op` in operand `j` at `point` with that operand moved to `x`: central
/// differences of `PrimOp::eval` with one Richardson step.
fn difference(op: PrimOp, point: &[Scalar], j: usize, x: f64) -> f64 {
    let t = op.operand_types()[j];
    let h = precision(op).0 * x.abs().max(1.0);
    let f = |dx: f64| {
        let mut args = point.to_vec();
        args[j] = Scalar::from_f64(t, x + dx);
        let y = op
            .eval(&args)
            .unwrap_or_else(|e| panic!("{op} at {args:?}: {e:?}"));
        (args[j].to_f64(), y.to_f64())
    };
    let d = |h: f64| {
        let ((x1, f1), (x0, f0)) = (f(h), f(-h));
        (f1 - f0) / (x1 - x0)
    };
    (4.0 * d(h / 2.0) - d(h)) / 3.0
}

/// Names `base_N` with fresh `N`, for the generated IR.
struct Names(usize);

impl Names {
    fn fresh(&mut self, base: &str) -> String {
        self.0 += 1;
        format!("{base}_{}", self.0)
    }
}

/// `\(float operands) : result -> { op(operands) }`, the other operands captured from `args`.
fn lambda(op: PrimOp, args: &[String], names: &mut Names) -> String {
    let types = op.operand_types();
    let mut params = Vec::new();
    let operands: Vec<String> = args
        .iter()
        .zip(&types)
        .map(|(a, t)| {
            if !t.is_float() {
                return a.clone();
            }
            let p = names.fresh("p");
            params.push(format!("{p}: {t}"));
            p
        })
        .collect();
    let (r, rt) = (names.fresh("r"), op.result_type());
    format!(
        "\\({}) : {rt} -> {{ let {r}: {rt} = {op}({}) in {r} }}",
        params.join(", "),
        operands.join(", ")
    )
}

/// The entry point `d_OP`: parameters the operands, a tangent per float operand and a
/// cotangent of the result; results the value, the tangent (forward mode) and the float
/// operands' cotangents (reverse mode).
fn ir_entry(op: PrimOp, names: &mut Names) -> String {
    let types = op.operand_types();
    let rt = op.result_type();
    let floats: Vec<PrimType> = types.iter().copied().filter(|t| t.is_float()).collect();
    let args: Vec<String> = types.iter().map(|_| names.fresh("a")).collect();
    let tans: Vec<String> = floats.iter().map(|_| names.fresh("t")).collect();
    let bars: Vec<String> = floats.iter().map(|_| names.fresh("bar")).collect();
    let [cot, v, tv, w] = ["cot", "v", "tv", "w"].map(|b| names.fresh(b));
    let float_args: Vec<&str> = args
        .iter()
        .zip(&types)
        .filter(|(_, t)| t.is_float())
        .map(|(a, _)| a.as_str())
        .collect();
    let typed = |vs: &[String], ts: &[PrimType]| -> Vec<String> {
        vs.iter()
            .zip(ts)
            .map(|(v, t)| format!("{v}: {t}"))
            .collect()
    };
    let mut params = typed(&args, &types);
    params.extend(typed(&tans, &floats));
    params.push(format!("{cot}: {rt}"));
    let mut results = vec![rt.to_string(), rt.to_string()];
    results.extend(floats.iter().map(|t| t.to_string()));
    let mut outs = vec![v.clone(), tv.clone()];
    outs.extend(bars.iter().cloned());
    format!(
        "entry d_{op} ({}) : ({})\n{{\n  let ({v}: {rt}, {tv}: {rt}) = jvp({}, ({}), ({}))\n  \
         let ({w}: {rt}, {}) = vjp({}, ({}), ({cot}))\n  in ({})\n}}\n",
        params.join(", "),
        results.join(", "),
        lambda(op, &args, names),
        float_args.join(", "),
        tans.join(", "),
        typed(&bars, &floats).join(", "),
        lambda(op, &args, names),
        float_args.join(", "),
        outs.join(", "),
    )
}

/// The operations' entry points in one core IR program, AD expanded and verified.
fn partials_program(ops: &[PrimOp]) -> Prog {
    let mut names = Names(0);
    let text: String = ops.iter().map(|&op| ir_entry(op, &mut names)).collect();
    let mut prog = parse_prog(&text).unwrap_or_else(|d| panic!("{d:?}\n{text}"));
    gradus::core::verify::verify(&prog).unwrap_or_else(|e| panic!("before AD: {e}"));
    gradus::ad::run(&mut prog).unwrap_or_else(|d| panic!("{d:?}"));
    gradus::core::verify::verify(&prog)
        .unwrap_or_else(|e| panic!("after AD: {e}\n{}", print_prog(&prog)));
    prog
}

/// The compiler's value and partials of `op` at `point`: forward mode, one call per float
/// operand, and reverse mode.
struct Computed {
    value: Scalar,
    forward: Vec<f64>,
    reverse: Vec<f64>,
}

fn computed(prog: &Prog, op: PrimOp, point: &[Scalar]) -> Computed {
    let types = op.operand_types();
    let rt = op.result_type();
    let floats: Vec<PrimType> = types.iter().copied().filter(|t| t.is_float()).collect();
    let fun = prog.entry(&format!("d_{op}")).unwrap();
    let mut out = Computed {
        value: Scalar::zero(rt),
        forward: Vec::new(),
        reverse: Vec::new(),
    };
    for j in 0..floats.len() {
        let mut args: Vec<Value> = point.iter().map(|s| Value::Scalar(*s)).collect();
        args.extend(
            (0..floats.len())
                .map(|k| Value::Scalar(Scalar::from_f64(floats[k], (k == j) as u8 as f64))),
        );
        args.push(Value::Scalar(Scalar::one(rt)));
        let got = run_function(prog, &SourceMap::new(), fun, args, &Default::default())
            .unwrap_or_else(|e| panic!("{op} at {point:?}: {e}"));
        let scalars: Vec<Scalar> = got
            .iter()
            .map(|v| match v {
                Value::Scalar(s) => *s,
                other => panic!("not a scalar: {other:?}"),
            })
            .collect();
        out.value = scalars[0];
        out.forward.push(scalars[1].to_f64());
        out.reverse = scalars[2..].iter().map(Scalar::to_f64).collect();
    }
    out
}

/// The reference value (when `gradus_num` gives one) and partials in the float operands.
fn expected(op: PrimOp, reference: Reference, point: &[Scalar]) -> (Option<f64>, Vec<f64>) {
    let x: Vec<f64> = point.iter().map(Scalar::to_f64).collect();
    match reference {
        Reference::Unary(r) => {
            let (v, d) = (r.rule)(x[0]);
            (Some(v), vec![d])
        }
        Reference::Binary(r) => {
            let (v, dx, dy) = (r.rule)(x[0], x[1]);
            (Some(v), vec![dx, dy])
        }
        Reference::Differences => {
            let floats = (0..point.len()).filter(|&j| op.operand_types()[j].is_float());
            (
                None,
                floats.map(|j| difference(op, point, j, x[j])).collect(),
            )
        }
        Reference::Zero => {
            let floats = op.operand_types().iter().filter(|t| t.is_float()).count();
            (None, vec![0.0; floats])
        }
    }
}

/// What is wrong with the compiler's partials of `op` at `point` (a random point, or a kink
/// when `kink`), if anything.
fn check_point(prog: &Prog, op: PrimOp, point: &[Scalar], kink: bool) -> Option<String> {
    let reference = reference(op);
    let (_, fd_tol, num_tol) = precision(op);
    let got = computed(prog, op, point);
    let want_value = op.eval(point).unwrap();
    let mut wrong = Vec::new();
    if !close(got.value.to_f64(), want_value.to_f64(), 0.0) {
        wrong.push(format!("value {:?} (eval: {want_value:?})", got.value));
    }
    for (i, (f, r)) in got.forward.iter().zip(&got.reverse).enumerate() {
        if !close(*f, *r, num_tol) {
            wrong.push(format!("∂{i}: forward {f}, reverse {r}"));
        }
    }
    let (value, partials) = expected(op, reference, point);
    if let Some(v) = value.filter(|v| !close(got.value.to_f64(), *v, num_tol)) {
        wrong.push(format!("value {:?} (gradus_num: {v})", got.value));
    }
    let floats: Vec<usize> = (0..point.len())
        .filter(|&j| op.operand_types()[j].is_float())
        .collect();
    for (k, &j) in floats.iter().enumerate() {
        let g = got.forward[k];
        if let Reference::Differences = reference {
            if kink {
                // At a kink the compiler's choice is the derivative's limit from one side.
                let x = point[j].to_f64();
                let delta = 32.0 * precision(op).0;
                let sides = [x - delta, x + delta].map(|s| difference(op, point, j, s));
                if !sides.iter().any(|s| close(g, *s, fd_tol)) {
                    wrong.push(format!("∂{k} {g}, the limits are {sides:?}"));
                }
                continue;
            }
            if !close(g, partials[k], fd_tol) {
                wrong.push(format!("∂{k} {g}, finite differences {}", partials[k]));
            }
        } else if !close(g, partials[k], num_tol) {
            wrong.push(format!("∂{k} {g}, gradus_num {}", partials[k]));
        }
    }
    (!wrong.is_empty()).then(|| format!("{op} at {point:?}: {}", wrong.join("; ")))
}

/// Random points in the operation's test domain and its kinks, as operand lists; `None` if
/// the test has no domain for it.
fn points(op: PrimOp, rng: &mut SplitMix64) -> Option<Vec<(Vec<Scalar>, bool)>> {
    let kind = kind(op);
    let types = op.operand_types();
    let mut kink_points = kinks(&kind);
    let domain = match reference(op) {
        Reference::Unary(r) => {
            kink_points.extend(r.kinks.iter().map(|&k| vec![k]));
            vec![r.domain]
        }
        Reference::Binary(r) => vec![r.domain_x, r.domain_y],
        Reference::Differences | Reference::Zero => difference_domain(&kind)?,
    };
    assert_eq!(domain.len(), types.len(), "{op}: one interval per operand");
    let scalars = |xs: &[f64]| -> Vec<Scalar> {
        xs.iter()
            .zip(&types)
            .map(|(&x, &t)| Scalar::from_f64(t, if t.is_float() { x } else { x.floor() }))
            .collect()
    };
    let mut out: Vec<(Vec<Scalar>, bool)> = (0..RANDOM_POINTS)
        .map(|_| {
            loop {
                let xs: Vec<f64> = domain.iter().map(|&(lo, hi)| rng.uniform(lo, hi)).collect();
                if !near_jump(&kind, &xs) {
                    break (scalars(&xs), false);
                }
            }
        })
        .collect();
    out.extend(kink_points.iter().map(|k| (scalars(k), true)));
    Some(out)
}

/// Whether the operands are within 0.1 of a point where the operation jumps (random points keep
/// away from those: a difference across a jump is no derivative; the jumps are kinks).
fn near_jump(kind: &str, xs: &[f64]) -> bool {
    let off = match kind {
        "ceil" | "floor" | "trunc" | "sgn" => xs[0] - xs[0].round(),
        "round" => xs[0] - xs[0].floor() - 0.5,
        "nextafter" => xs[0] - xs[1],
        _ => return false,
    };
    off.abs() < 0.1
}

/// Random points per operation and type.
const RANDOM_POINTS: usize = 6;

#[test]
fn every_primitive_is_tied_at_random_points_and_kinks() {
    let ops = differentiable_ops();
    assert!(ops.len() > 100, "only {} operations", ops.len());
    let prog = partials_program(&ops);
    let mut rng = SplitMix64::new(45);
    let mut untested = Vec::new();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for &op in &ops {
        let Some(points) = points(op, &mut rng) else {
            untested.push(op.name());
            continue;
        };
        for (point, kink) in points {
            checked += 1;
            wrong.extend(check_point(&prog, op, &point, kink));
        }
    }
    assert!(
        untested.is_empty(),
        "primitives with a partial-derivative rule but no test domain in this test: {untested:?}"
    );
    assert!(
        wrong.is_empty(),
        "{} of {checked} points:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    println!("{} operations checked at {checked} points", ops.len());
}
