//! The fuzzer's checks catch wrong results: each test plants a wrong result of the kind the
//! fuzzer is meant to find (a read moved after an in-place update, a float rule that is not
//! IEEE, a sign-extending conversion) and asserts that it is reported, next to the right
//! result, which must pass. Interpreter only: seconds.

use gradus::value::{PrimType, Scalar, Value};
use gradus_fuzz::campaign::{self, Settings};
use gradus_fuzz::diff::{self, Case, Config, Kind, Subject, judge, values_agree};
use gradus_fuzz::spec;
use rand::SeedableRng;
use rand_pcg::Pcg64;

fn f64s(xs: &[f64]) -> Value {
    Value::Array(ndarray_like(xs))
}

fn ndarray_like(xs: &[f64]) -> gradus::value::Array {
    let mut buf = gradus::value::Buffer::with_capacity(PrimType::F64, xs.len());
    for x in xs {
        buf.push(Scalar::F64(*x));
    }
    gradus::value::Array::new(vec![xs.len()], buf).unwrap()
}

fn subject(source: &str, entry: &str, args: Vec<Value>) -> Subject {
    Subject {
        name: "planted.fut".into(),
        source: source.into(),
        cases: vec![Case {
            entry: entry.into(),
            args,
        }],
    }
}

fn interp(s: &Subject, opt: bool) -> diff::Outcome {
    diff::outcomes(s, Config::Interp { opt })
        .unwrap()
        .into_iter()
        .next()
        .unwrap()
}

#[test]
fn float_comparison_is_bit_exact_where_asked() {
    let v = |x: f64| vec![Value::Scalar(Scalar::F64(x))];
    // NaN equals NaN (any payload), in both modes.
    let other_nan = f64::from_bits(f64::NAN.to_bits() ^ 1);
    assert!(values_agree(&v(f64::NAN), &v(other_nan), true).is_ok());
    assert!(values_agree(&v(f64::NAN), &v(f64::NAN), false).is_ok());
    // NaN where IEEE gives NaN: a zero instead is wrong in both modes.
    assert!(values_agree(&v(f64::NAN), &v(0.0), true).is_err());
    assert!(values_agree(&v(f64::NAN), &v(0.0), false).is_err());
    assert!(values_agree(&v(0.0), &v(f64::NAN), false).is_err());
    // The sign of a zero counts under exact floats only.
    assert!(values_agree(&v(-0.0), &v(0.0), true).is_err());
    assert!(values_agree(&v(-0.0), &v(0.0), false).is_ok());
    // One unit in the last place.
    let next = f64::from_bits(1.5f64.to_bits() + 1);
    assert!(values_agree(&v(1.5), &v(next), true).is_err());
    assert!(values_agree(&v(1.5), &v(next), false).is_ok());
    // Infinities.
    assert!(values_agree(&v(f64::INFINITY), &v(f64::NEG_INFINITY), false).is_err());
    assert!(values_agree(&v(f64::INFINITY), &v(f64::MAX), false).is_err());
    // Integers of another type or value.
    let i = |x: i64| vec![Value::Scalar(Scalar::I64(x))];
    assert!(values_agree(&i(1), &i(2), false).is_err());
    assert!(values_agree(&i(1), &[Value::Scalar(Scalar::I32(1))], false).is_err());
}

/// Bug 1: `ys` is read by a map, then updated in place; a compiler that moves the read after
/// the update returns the updated values.
#[test]
fn a_read_moved_after_an_in_place_update_is_found() {
    let right = "entry main [n][m] (ys: *[n]f64) (is: [m]i64) =
  let g = map (\\i -> if i >= 0 && i < n then ys[i] else 0) is
  let s = scatter ys is (replicate m 0)
  in (map (*2) g, s)";
    // What the miscompiled program computed: the read after the scatter.
    let planted = "entry main [n][m] (ys: *[n]f64) (is: [m]i64) =
  let s = scatter ys is (replicate m 0)
  let g = map (\\i -> if i >= 0 && i < n then s[i] else 0) is
  in (map (*2) g, s)";
    let args = vec![
        f64s(&[1.0, 2.0, 3.0]),
        Value::Array({
            let mut b = gradus::value::Buffer::with_capacity(PrimType::I64, 2);
            b.push(Scalar::I64(0));
            b.push(Scalar::I64(2));
            gradus::value::Array::new(vec![2], b).unwrap()
        }),
    ];
    let want = interp(&subject(right, "main", args.clone()), false);
    let good = interp(&subject(right, "main", args.clone()), true);
    let bad = interp(&subject(planted, "main", args), false);
    for config in [Config::Interp { opt: true }, Config::C { opt: true }] {
        assert!(judge(config, &want, None, &good).is_ok());
        assert!(judge(config, &want, None, &bad).is_err(), "{config}");
    }
    // A wrong value is wrong even when the unoptimised backend is the one that differs.
    assert!(judge(Config::C { opt: false }, &want, None, &bad).is_err());
}

/// Bug 1's class is generated: unique parameters, reads of them, then in-place updates.
#[test]
fn generator_writes_updates_after_reads_and_edge_values() {
    let mut coverage = gradus_fuzz::generate::Coverage::default();
    for seed in 0..40 {
        coverage.merge(&campaign::general(seed, &Settings::default()).2);
    }
    for construct in [
        "unique-param",
        "read-before-update",
        "scatter-in-place",
        "with-in-place",
        "loop-in-place",
        "bounds-test",
        "float-identity",
        "edge-literal",
        "conversion-signed-to-wider-unsigned",
        "conversion-float-to-int",
    ] {
        assert!(
            coverage.0.get(construct).copied().unwrap_or(0) > 0,
            "{construct} never generated"
        );
    }
}

#[test]
fn conversion_model_follows_the_definition() {
    use spec::convert;
    assert_eq!(
        convert(Scalar::I8(-128), PrimType::U16),
        Some(Scalar::U16(128))
    );
    assert_eq!(
        convert(Scalar::I8(-1), PrimType::U64),
        Some(Scalar::U64(255))
    );
    assert_eq!(
        convert(Scalar::I32(-1), PrimType::U64),
        Some(Scalar::U64(u32::MAX as u64))
    );
    assert_eq!(
        convert(Scalar::U32(u32::MAX), PrimType::I64),
        Some(Scalar::I64(u32::MAX as i64))
    );
    assert_eq!(
        convert(Scalar::I8(-1), PrimType::I64),
        Some(Scalar::I64(-1))
    );
    assert_eq!(convert(Scalar::U8(255), PrimType::I8), Some(Scalar::I8(-1)));
    assert_eq!(
        convert(Scalar::I64(-1), PrimType::U8),
        Some(Scalar::U8(255))
    );
    assert_eq!(
        convert(Scalar::F64(255.9), PrimType::U8),
        Some(Scalar::U8(255))
    );
    assert_eq!(convert(Scalar::F64(-1.5), PrimType::U8), None);
    assert_eq!(convert(Scalar::F64(f64::NAN), PrimType::I32), None);
    assert_eq!(
        convert(Scalar::F64(f64::NAN), PrimType::Bool),
        Some(Scalar::Bool(true))
    );
    assert_eq!(
        convert(Scalar::I64(-1), PrimType::F32),
        Some(Scalar::F32(-1.0))
    );
    assert_eq!(
        convert(Scalar::Bool(true), PrimType::F64),
        Some(Scalar::F64(1.0))
    );
}

/// The probes pass on the interpreter, and fail where a conversion sign-extends (bug 3) or a
/// float rule drops a NaN (bug 2), planted by rewriting the probe program.
#[test]
fn probes_find_planted_conversion_and_float_bugs() {
    let (source, probes) = spec::probes(&mut Pcg64::seed_from_u64(3));
    let run = |source: &str| {
        let s = Subject {
            name: "probes.fut".into(),
            source: source.into(),
            cases: spec::cases(&probes),
        };
        let out = diff::oracle(&s).expect("the probes compile");
        spec::check(&probes, &out, Config::ORACLE, 0)
    };
    let clean = run(&source);
    assert!(clean.is_empty(), "{:?}", clean[0].0);
    // Bug 3: `u16.i8` sign-extends.
    let planted = source.replace("u16.i8 x", "u16.i16 (i16.i8 x)");
    assert_ne!(planted, source);
    let found = run(&planted);
    assert!(
        found.iter().any(|(f, p)| f.kind == Kind::Wrong
            && f.detail.contains("u16.i8 x")
            && p.as_deref().is_some_and(|p| p.contains("-- output"))),
        "{found:?}"
    );
    // Bug 2: `0 * x` becomes `0`.
    let planted = source.replace("0.0f64 * x", "0.0f64");
    assert_ne!(planted, source);
    let found = run(&planted);
    assert!(
        found.iter().any(|(f, _)| f.kind == Kind::Wrong),
        "{found:?}"
    );
}

/// The per-pass configurations run every optimiser pass alone, and agree on a program.
#[test]
fn each_pass_alone_agrees_on_a_generated_program() {
    let configs = diff::pass_configs();
    assert!(configs.len() >= 10);
    let settings = Settings {
        entries: 4,
        ..Settings::default()
    };
    let (_, s, _) = campaign::general(5, &settings);
    let failures = diff::run(&s, &configs);
    assert!(failures.is_empty(), "{}", failures[0]);
}

#[test]
fn derivative_entries_may_give_strong_zeros() {
    // The adjoint of `s` is `0 * ybar`: `-0.0` for a positive cotangent under IEEE, `0.0`
    // where the optimiser treats the zero as strong (derivative code, docs/float-rules.md).
    let source = "def f1 [n] (c: [n]f64) (s: f64) : f64 = loop acc = s for _x in c do 0.0 * acc\n\
                  entry vjp1 [n] (c: [n]f64) (s: f64) (ybar: f64) = vjp (f1 c) s ybar\n\
                  entry primal1 [n] (c: [n]f64) (s: f64) = f1 c s\n";
    let args = |neg: f64| {
        vec![
            f64s(&[1.0, 2.0]),
            Value::Scalar(Scalar::F64(neg)),
            Value::Scalar(Scalar::F64(-1.0)),
        ]
    };
    let s = subject(source, "vjp1", args(3.0));
    assert!(diff::run(&s, &[Config::Interp { opt: true }]).is_empty());
    // The program's own statements keep the sign of a zero.
    let p = subject(source, "primal1", args(-3.0)[..2].to_vec());
    assert!(diff::run(&p, &[Config::Interp { opt: true }]).is_empty());
}
