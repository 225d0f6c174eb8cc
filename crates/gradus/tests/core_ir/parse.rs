//! The core IR parser: error messages and spans, never panicking on random text, renumbering
//! and the builder.

use gradus::core::builder::Builder;
use gradus::core::ir::{FunDef, NameTable, Prog, SubExp, Type};
use gradus::core::parse::{all_prim_ops, parse_prog, prim_op_from_name};
use gradus::core::prim::{BinOp, CmpOp, PrimOp, UnOp};
use gradus::core::print::{print_prog, print_scalar};
use gradus::core::renumber::renumber;
use gradus::core::verify::verify;
use gradus::diag::Span;
use gradus::value::{PrimType, Scalar};
use proptest::prelude::*;

/// The message of the parse error and the text its span covers.
fn error(text: &str) -> (String, String) {
    let d = parse_prog(text).expect_err("expected a parse error");
    let (span, _) = d.primary.expect("a span");
    let covered = text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("")
        .to_string();
    (d.message, covered)
}

#[test]
fn parse_errors_have_spans() {
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let y_1: f64 = frob_f64(x_0) in y_1 }"),
        (
            "unknown operation `frob_f64`".to_string(),
            "frob_f64".to_string()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let y_1: f64 = add_f64(x_0, 1.0) in y_1 }"),
        (
            "constant `1.0` needs a type suffix, e.g. `1.0i64` or `1.0f64`".to_string(),
            "1.0".to_string()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let y_0: f64 = neg_f64(x_0) in y_0 }"),
        (
            "variable number 0 is called `x_0` elsewhere, not `y_0`".to_string(),
            "y_0".to_string()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let y_1: f64 = neg_f64(x) in y_1 }"),
        (
            "expected a variable `name_id`, found `x` (variables end in `_` and a number)"
                .to_string(),
            "x".to_string()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let y_1: f64 = neg_f64(x_0) }"),
        (
            "expected `let` or `in`, found `}`".to_string(),
            "}".to_string()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { in x_0 "),
        (
            "expected `}`, found the end of the text".to_string(),
            String::new()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let y_1: f64 = add_f64(x_0, 300u8) in y_1 }"),
        (
            "`300u8` is not a valid u8 constant".to_string(),
            "300u8".to_string()
        )
    );
    assert_eq!(
        error("fun f (x_0: f64) : f64 { let () = assert(true, \"a\\q\") in x_0 }").0,
        "unknown escape"
    );
    assert_eq!(
        error("fun f () : f64 { in 1.0f64 } $").0,
        "unexpected character"
    );
}

#[test]
fn deep_nesting_is_an_error() {
    let mut t = String::from("fun f (c_0: bool) : f64 ");
    for _ in 0..1000 {
        t.push_str("{ let r_1: f64 = if c_0 then ");
    }
    let (msg, _) = error(&t);
    assert!(msg.contains("nesting deeper than"), "{msg}");
}

#[test]
fn comments_and_defaults() {
    let p = parse_prog(
        "-- a comment\nentry f (x_0: [3]f64) : f64 { -- another\n let y_1: f64 = x_0[0i64] in y_1 }",
    )
    .unwrap();
    let e = p.funs[0].entry.as_ref().unwrap();
    assert_eq!(e.name, "f");
    assert_eq!(e.params.len(), 1);
    assert_eq!(e.params[0].0.to_string(), "[3]f64");
    verify(&p).unwrap();
}

#[test]
fn every_prim_op_name_reads_back() {
    let ops = all_prim_ops();
    assert!(ops.len() > 1000);
    for op in ops {
        assert_eq!(prim_op_from_name(&op.name()), Some(op), "{op}");
    }
}

#[test]
fn constants_print_in_the_value_format() {
    let cases = [
        (Scalar::F64(1.0), "1.0f64"),
        (Scalar::F64(-0.0), "-0.0f64"),
        (Scalar::F32(0.1), "0.1f32"),
        (Scalar::F64(1.5e-7), "1.5e-7f64"),
        (Scalar::F64(f64::NAN), "f64.nan"),
        (Scalar::F64(f64::NEG_INFINITY), "-f64.inf"),
        (Scalar::F32(f32::INFINITY), "f32.inf"),
        (Scalar::I64(-7), "-7i64"),
        (Scalar::U8(255), "255u8"),
        (Scalar::Bool(true), "true"),
    ];
    for (c, s) in cases {
        assert_eq!(print_scalar(&c), s);
        // Reads back through a program.
        let text = format!("fun f () : {} {{ in {s} }}", c.prim_type());
        let p = parse_prog(&text).unwrap();
        assert_eq!(
            print_scalar(&match p.funs[0].body.result[0] {
                SubExp::Const(c) => c,
                SubExp::Var(_) => panic!(),
            }),
            s
        );
    }
}

#[test]
fn renumber_is_dense_in_binding_order() {
    let p = parse_prog(
        "fun f [n_40] (xs_17: [n_40]f64) : f64 {\n\
           let s_99: f64 = reduce(n_40, \\(a_5: f64, b_3: f64) : f64 -> { let c_70: f64 = add_f64(a_5, b_3) in c_70 }, (0.0f64), xs_17)\n\
           in s_99\n\
         }",
    )
    .unwrap();
    assert_eq!(p.names.len(), 100);
    let d = renumber(&p);
    assert_eq!(d.names.len(), 6);
    insta::assert_snapshot!(print_prog(&d), @r"
    fun f [n_0] (xs_1: [n_0]f64) : f64 {
      let s_2: f64 = reduce(n_0, \(a_3: f64, b_4: f64) : f64 -> { let c_5: f64 = add_f64(a_3, b_4) in c_5 }, (0.0f64), xs_1)
      in s_2
    }
    ");
    verify(&d).unwrap();
}

#[test]
fn builder_emits_fresh_typed_statements() {
    let mut names = NameTable::new();
    let n = names.fresh("n", Type::Prim(PrimType::I64));
    let xs = names.fresh("xs", Type::array(PrimType::F64, vec![n.into()]));
    let mut b = Builder::new(&mut names);
    let f64t = Type::Prim(PrimType::F64);
    let lam = b.lambda(&[("x", f64t.clone())], |b, ps| {
        let y = b.prim_named(
            PrimOp::Bin(BinOp::Mul, PrimType::F64),
            vec![ps[0].into(), ps[0].into()],
            "sq",
        );
        vec![y.into()]
    });
    let sq = b.bind_exp(
        gradus::core::ir::Exp::Soac(gradus::core::ir::Soac::Map {
            w: n.into(),
            lam,
            arrays: vec![xs],
        }),
        "squares",
    );
    let first = b.index(
        sq[0],
        vec![gradus::core::ir::DimIndex::Fix(SubExp::i64(0))],
        "first",
    );
    let pos = b.prim_named(
        PrimOp::Cmp(CmpOp::Gt, PrimType::F64),
        vec![first.into(), SubExp::Const(Scalar::F64(0.0))],
        "pos",
    );
    b.assert(pos.into(), "Assertion is false: {} > 0", vec![first.into()]);
    let r = b.if_then_else(
        pos.into(),
        |_| vec![first.into()],
        |b| {
            let z = b.prim_named(
                PrimOp::Un(UnOp::Neg, PrimType::F64),
                vec![first.into()],
                "neg",
            );
            vec![z.into()]
        },
        "r",
    );
    let body = b.finish(vec![r[0].into()]);
    let prog = Prog {
        names,
        funs: vec![FunDef {
            name: "first_square".into(),
            size_params: vec![n],
            params: vec![xs],
            body,
            ret: vec![f64t],
            entry: None,
            span: Span::default(),
        }],
    };
    verify(&prog).unwrap();
    insta::assert_snapshot!(print_prog(&prog), @r#"
    fun first_square [n_0] (xs_1: [n_0]f64) : f64 {
      let squares_4: [n_0]f64 = map(n_0, \(x_2: f64) : f64 -> { let sq_3: f64 = mul_f64(x_2, x_2) in sq_3 }, xs_1)
      let first_5: f64 = squares_4[0i64]
      let pos_6: bool = gt_f64(first_5, 0.0f64)
      let () = assert(pos_6, "Assertion is false: {} > 0", first_5)
      let r_8: f64 = if pos_6 then { in first_5 } else { let neg_7: f64 = neg_f64(first_5) in neg_7 } : f64
      in r_8
    }
    "#);
}

const SAMPLES: &[&str] = &[
    include_str!("dot.ir"),
    include_str!("control.ir"),
    include_str!("arrays.ir"),
    include_str!("soacs.ir"),
    include_str!("acc.ir"),
];

/// Parsing never panics; whatever parses prints and parses back to the same text; the
/// verifier and renumbering never panic on it.
fn check_text(text: &str) {
    if let Ok(p) = parse_prog(text) {
        let printed = print_prog(&p);
        let again = parse_prog(&printed).unwrap_or_else(|d| panic!("{d:?}\n{printed}"));
        assert_eq!(printed, print_prog(&again));
        let _ = verify(&p);
        let _ = verify(&renumber(&p));
    }
}

proptest! {
    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}") {
        check_text(&s);
    }

    #[test]
    fn random_tokens_never_panic(toks in prop::collection::vec(prop::sample::select(vec![
        "fun", "entry", "let", "in", "if", "then", "else", "loop", "for", "while", "do", "map",
        "reduce", "(", ")", "[", "]", "{", "}", ",", ":", "=", "<", "\\", "->", ":+", "*", "x_1",
        "y_2", "n_0", "f64", "i64", "1i64", "2.5f64", "f64.nan", "-f64.inf", "acc", "#[unsafe]",
        "add_f64", "\"s\"", "external", "opaque", "with", "call", "true",
    ]), 0..60)) {
        check_text(&toks.join(" "));
    }

    #[test]
    fn mutated_samples_never_panic(
        which in 0..SAMPLES.len(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), "\\PC{0,3}"), 1..4),
    ) {
        let mut text = SAMPLES[which].to_string();
        for (a, b, ins) in cuts {
            let len = text.len();
            let (mut i, mut j) = (a.index(len + 1), b.index(len + 1));
            if i > j { std::mem::swap(&mut i, &mut j); }
            while !text.is_char_boundary(i) { i -= 1; }
            while !text.is_char_boundary(j) { j -= 1; }
            let j = j.min(i + 8);
            let j = (j..=text.len()).find(|&k| text.is_char_boundary(k)).unwrap_or(text.len());
            text.replace_range(i..j, &ins);
        }
        check_text(&text);
    }
}

#[test]
fn odd_hints_print_as_identifiers() {
    let mut names = NameTable::new();
    let x = names.fresh("x-y", Type::Prim(PrimType::F64));
    let y = names.fresh("2nd", Type::Prim(PrimType::F64));
    let z = names.fresh("", Type::Prim(PrimType::F64));
    let mut b = Builder::new(&mut names);
    b.add_stm(gradus::core::ir::Stm {
        pat: vec![y],
        exp: gradus::core::ir::Exp::BasicOp(gradus::core::ir::BasicOp::SubExp(x.into())),
        aux: Default::default(),
    });
    let w = b.subexp(y.into(), "y'");
    let body = b.finish(vec![w.into(), z.into()]);
    let prog = Prog {
        names,
        funs: vec![FunDef {
            name: "odd name".into(),
            size_params: vec![],
            params: vec![x, z],
            body,
            ret: vec![Type::Prim(PrimType::F64); 2],
            entry: None,
            span: Span::default(),
        }],
    };
    let printed = print_prog(&prog);
    assert_eq!(
        printed,
        "fun \"odd name\" (x_y_0: f64, _2: f64) : (f64, f64) {\n  let v2nd_1: f64 = x_y_0\n  let y'_3: f64 = v2nd_1\n  in y'_3, _2\n}\n"
    );
    assert_eq!(print_prog(&parse_prog(&printed).unwrap()), printed);
}

/// The example in the documentation of `core::ir` reads and verifies.
#[test]
fn ir_doc_example() {
    let p = parse_prog(
        r"entry dot (n_0: i64, xs_1: [n_0]f64, ys_2: [n_0]f64) : f64 {
  let prods_3: [n_0]f64 = map(n_0, \(x_4: f64, y_5: f64) : f64 -> { let p_6: f64 = mul_f64(x_4, y_5) in p_6 }, xs_1, ys_2)
  let r_7: f64 = reduce(n_0, \(a_8: f64, b_9: f64) : f64 -> { let s_10: f64 = add_f64(a_8, b_9) in s_10 }, 0.0f64, prods_3)
  in r_7
}",
    )
    .unwrap();
    verify(&p).unwrap();
}
