//! Maps fused into the reduce, scan, hist or scatter consuming them and reductions of the
//! same array fused with each other (`consumer-fusion`, fused SOACs in the core IR): on
//! programs where every rule fires, the fused program gives the unfused one's results to the
//! bit in the interpreter and in sequential C, and within rounding on two threads, fused or
//! not (parallel reductions, scans and hists of floats combine chunks in another order);
//! errors raised inside a fused map are reported with the map's location.

use gradus::backend::c::NativeOptions;
use gradus::core::ir::{Body, Exp, Soac};
use gradus::opt::OptOptions;
use gradus::program::{Backend, CallError, Program};
use gradus::value::{Array, Buffer, Value};

const SRC: &str = r#"
entry sum_sq [n] (xs: [n]f64) : f64 = f64.sum (map (\x -> x * x + f64.sin x) xs)

entry arg_max [n] (xs: [n]f64) : (f64, i64) =
  reduce (\(a, i) (b, j) -> if a > b || (a == b && i < j) then (a, i) else (b, j))
         (-f64.inf, -1) (zip (map f64.cos xs) (iota n))

entry prefix [n] (xs: [n]f64) (ys: [n]f64) : ([n]f64, [n]f64) =
  unzip (scan (\(a, b) (c, d) -> (a + c, f64.max b d)) (0, -f64.inf) (zip (map (* 2) xs) ys))

entry int_prefix [n] (is: [n]i64) : [n]i64 = scan (+) 0 (map (\i -> i * i % 7) is)

entry max_hist [n] (xs: [n]f64) (k: i64) : [k]f64 =
  let ys = map f64.sqrt xs
  in hist f64.max (-f64.inf) k (map (\y -> i64.f64 (y * 10) - 2) ys) (map (\y -> y * 0.5) ys)

entry min_int_hist [n] (is: [n]i64) (k: i64) : [k]i64 =
  hist i64.min 1000 k (map (\i -> i % (k + 3)) is) (map (\i -> i * 3 % 11) is)

entry arg_max_hist [n] (xs: [n]f64) (k: i64) : ([k]f64, [k]i64) =
  unzip (hist (\(a, i) (b, j) -> if a > b || (a == b && i < j) then (a, i) else (b, j))
              (-f64.inf, -1) k (map (\x -> i64.f64 (x * 100) % (k + 1)) xs) (zip xs (iota n)))

entry sum_and_max [n] (xs: [n]f64) : (f64, f64) =
  let ys = map (\x -> x * x - 0.5) xs
  in (f64.sum ys, f64.maximum ys)

entry spread [n] (xs: [n]f64) (m: i64) : [m]f64 =
  scatter (replicate m 0) (map (\x -> i64.f64 (x * 7) - 1) xs) (map (\x -> x * x) xs)

entry row_sums [n] [m] (a: [n][m]f64) : [n]f64 = map (\r -> f64.sum (map (\x -> x * 3) r)) a

entry bad_index [n] (xs: [n]f64) (k: i64) : f64 = f64.sum (map (\x -> xs[i64.f64 x + k]) xs)
"#;

fn fused(e: &Exp) -> bool {
    matches!(e, Exp::Soac(Soac::Screma { .. }))
}

fn count(body: &Body) -> usize {
    let mut n = 0;
    for s in &body.stms {
        n += usize::from(fused(&s.exp));
        let nested = s.exp.bodies();
        n += nested.iter().map(|b| count(b)).sum::<usize>();
    }
    n
}

fn floats(n: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    Value::Array(Array::new(vec![n], Buffer::F64(rng.vector(n, 0.0, 1.5))).unwrap())
}

fn ints(n: usize, seed: u64) -> Value {
    let mut rng = gradus_check::SplitMix64::new(seed);
    let v = (0..n).map(|_| (rng.next_u64() % 1000) as i64).collect();
    Value::Array(Array::new(vec![n], Buffer::I64(v)).unwrap())
}

fn int(k: i64) -> Value {
    Value::Scalar(gradus::value::Scalar::I64(k))
}

/// Every case: entry point and arguments. Widths above the backend's threshold for
/// parallel chunks, so the multicore code splits the fused reductions.
fn cases() -> Vec<(&'static str, Vec<Value>)> {
    let n = 6000;
    let matrix = {
        let mut rng = gradus_check::SplitMix64::new(9);
        Value::Array(Array::new(vec![60, 100], Buffer::F64(rng.vector(6000, -1.0, 1.0))).unwrap())
    };
    vec![
        ("sum_sq", vec![floats(n, 1)]),
        ("arg_max", vec![floats(n, 2)]),
        ("prefix", vec![floats(n, 3), floats(n, 4)]),
        ("int_prefix", vec![ints(n, 5)]),
        ("max_hist", vec![floats(n, 6), int(9)]),
        ("min_int_hist", vec![ints(n, 7), int(13)]),
        ("arg_max_hist", vec![floats(n, 10), int(20)]),
        ("sum_and_max", vec![floats(n, 11)]),
        ("spread", vec![floats(n, 8), int(8)]),
        ("row_sums", vec![matrix]),
    ]
}

fn flat(vs: &[Value]) -> Vec<f64> {
    vs.iter()
        .flat_map(|v| match v {
            Value::Scalar(s) => vec![s.to_f64()],
            Value::Array(a) => match a.buffer() {
                Buffer::F64(x) => x.clone(),
                Buffer::I64(x) => x.iter().map(|&i| i as f64).collect(),
                _ => panic!("unexpected element type"),
            },
        })
        .collect()
}

#[test]
fn fused_soacs_compute_what_the_unfused_ones_do() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let opt = Program::from_source("fused.fut", SRC).unwrap_or_else(|d| panic!("{}", d.render()));
    let mut off = OptOptions::default();
    off.disable("consumer-fusion").unwrap();
    let unfused = Program::from_source_with("fused.fut", SRC, &off).unwrap();
    for f in &opt.core().funs {
        let e = f.entry.as_ref().unwrap();
        assert!(count(&f.body) >= 1, "{}: nothing fused", e.name);
    }
    assert!(unfused.core().funs.iter().all(|f| count(&f.body) == 0));
    if gradus::backend::c::build::find_compiler().is_none() {
        panic!("NO C COMPILER FOUND: the native backend cannot be tested");
    }
    let native = |opts: &OptOptions, multicore| {
        Program::from_source_with("fused.fut", SRC, opts)
            .unwrap()
            .with_backend(Backend::Native(NativeOptions {
                multicore,
                threads: Some(2),
                ..Default::default()
            }))
            .unwrap()
    };
    let on = OptOptions::default();
    let (c, mc) = (native(&on, false), native(&on, true));
    // Unfused hists and scans take the multicore backend's other parallel code paths.
    let mc_unfused = native(&off, true);
    for (entry, args) in cases() {
        let want = flat(&unfused.call(entry, args.clone()).unwrap());
        let got = flat(&opt.call(entry, args.clone()).unwrap());
        assert_eq!(got, want, "{entry}: the fused interpreter run differs");
        let got = flat(&c.call(entry, args.clone()).unwrap());
        assert_eq!(got, want, "{entry}: sequential C differs");
        for (name, p) in [("multicore", &mc), ("unfused multicore", &mc_unfused)] {
            let got = flat(&p.call(entry, args.clone()).unwrap());
            assert_eq!(got.len(), want.len());
            for (x, y) in got.iter().zip(&want) {
                assert!(
                    (x - y).abs() <= 1e-9 * (1.0 + y.abs()),
                    "{entry}: {name} {x} vs {y}"
                );
            }
        }
    }
}

#[test]
fn an_error_in_a_fused_map_names_the_map() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    let opt = Program::from_source("fused.fut", SRC).unwrap();
    let err = |p: &Program| match p.call("bad_index", vec![floats(50, 3), int(60)]) {
        Err(CallError::Runtime(e)) => e.to_string(),
        other => panic!("expected an index error, got {other:?}"),
    };
    let msg = err(&opt);
    assert!(
        msg.contains("out of bounds") || msg.contains("index"),
        "{msg}"
    );
    assert!(msg.contains("fused.fut:"), "{msg}");
    let c = Program::from_source("fused.fut", SRC)
        .unwrap()
        .with_backend(Backend::Native(NativeOptions::sequential()))
        .unwrap();
    assert_eq!(err(&c), msg, "C reports another error than the interpreter");
}

#[test]
fn differentiation_splits_fused_soacs_first() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    // AD runs before the optimiser, but a fused SOAC given to it (parsed IR) is split into
    // its map and consumer and differentiated as those.
    use gradus::core::ir::{Body, FunDef, SubExp};
    let mut prog = gradus::core::parse::parse_prog(
        r#"fun sum_sq [n_0] (xs_1: [n_0]f64) : f64 {
  let r_2: f64 = redomap(n_0, \(x_3: f64) : f64 -> { let s_4: f64 = mul_f64(x_3, x_3) in s_4 }, \(a_5: f64, b_6: f64) : f64 -> { let c_7: f64 = add_f64(a_5, b_6) in c_7 }, (0.0f64), xs_1)
  in r_2
}"#,
    )
    .unwrap();
    let f = prog.funs[0].clone();
    let (xs, r) = (f.params[0], f.body.result[0]);
    let xs_ty = prog.names.ty(xs).clone();
    let dxs = prog.names.fresh("dxs", xs_ty);
    let seeds = [(xs, SubExp::Var(dxs))].into_iter().collect();
    let d = gradus::ad::jvp::differentiate(&mut prog.names, &f.body.stms, seeds).unwrap();
    assert!(!d.stms.iter().any(|s| fused(&s.exp)));
    let SubExp::Var(r) = r else { panic!() };
    let tangent = d.tangents[&r];
    prog.funs.push(FunDef {
        name: "sum_sq_jvp".into(),
        params: vec![xs, dxs],
        body: Body {
            stms: d.stms,
            result: vec![r.into(), tangent],
        },
        ret: vec![f.ret[0].clone(), f.ret[0].clone()],
        ..f.clone()
    });
    prog.funs.remove(0);
    gradus::core::verify::verify(&prog).unwrap();
}

#[test]
fn an_iota_read_only_as_soac_input_is_never_stored() {
    // Compared with the interpreter bit for bit: no reassociation of float operations.
    gradus::backend::c::build::force_exact_floats();
    // The fused redomap reads `iota n` row by row: the lowering computes `start + i * stride`
    // instead of allocating and filling n integers. An iota that is also indexed is stored.
    let src = r#"
entry sum_sines (n: i64) : f64 = f64.sum (map (\i -> f64.sin (f64.i64 i)) (iota n))
entry indexed (n: i64) : i64 = let is = iota n in is[n / 2] + i64.sum (map (* 2) is)
"#;
    let imp =
        gradus::pipeline::dump_stage("iota.fut", src, gradus::pipeline::Stage::Lower).unwrap();
    let (sum_sines, indexed) = imp.split_once("entry indexed").unwrap();
    assert!(!sum_sines.contains("alloc i64"), "{sum_sines}");
    assert!(indexed.contains("alloc i64"), "{indexed}");
    for backend in [
        Backend::Interpreter,
        Backend::Native(NativeOptions::sequential()),
    ] {
        let p = Program::from_source("iota.fut", src)
            .unwrap()
            .with_backend(backend)
            .unwrap();
        let Value::Scalar(s) = &p.call("sum_sines", vec![int(1000)]).unwrap()[0] else {
            panic!()
        };
        let expected: f64 = (0..1000).map(|i| (i as f64).sin()).sum();
        assert!((s.to_f64() - expected).abs() < 1e-9, "{s:?}");
        assert_eq!(
            p.call("indexed", vec![int(1000)]).unwrap(),
            vec![int(500 + 999 * 1000)]
        );
    }
}
