//! The type checker never panics: random token soups that parse, and random mutations of
//! well-typed programs, give `Ok` or `Err`, never a crash.

use gradus::diag::SourceMap;
use gradus::syntax::ast::{Dec, NodeIdGen};
use gradus::syntax::parse_file;
use gradus::types::check_program;
use proptest::prelude::*;
use std::sync::OnceLock;

/// The prelude, parsed once, and the node-id counter after it.
fn prelude() -> &'static (Vec<Dec>, NodeIdGen) {
    static P: OnceLock<(Vec<Dec>, NodeIdGen)> = OnceLock::new();
    P.get_or_init(|| {
        let mut sources = SourceMap::new();
        let text = gradus::prelude::source();
        let f = sources.add("<prelude>", text.clone());
        let mut ids = NodeIdGen::new();
        let decs = parse_file(f, &text, &mut ids).expect("the prelude parses");
        (decs, ids)
    })
}

fn check_text(src: &str) {
    let (prelude, ids) = prelude();
    let mut ids = ids.clone();
    let mut sources = SourceMap::new();
    let _ = sources.add("<prelude>", "");
    let f = sources.add("fuzz.fut", src);
    if let Ok(program) = parse_file(f, src, &mut ids) {
        // Either outcome is fine; a panic fails the test.
        let _ = check_program(prelude, &program);
    }
}

const TOKENS: &[&str] = &[
    "def",
    "f",
    "g",
    "x",
    "y",
    "xs",
    "n",
    "=",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    ":>",
    "->",
    "\\",
    "let",
    "in",
    "if",
    "then",
    "else",
    "loop",
    "for",
    "while",
    "do",
    "<",
    "with",
    "+",
    "-",
    "*",
    "/",
    "==",
    "&&",
    "|>",
    "1",
    "2.5",
    "0i64",
    "-1",
    "true",
    "f64",
    "i32",
    "i64",
    "[n]",
    "[]",
    "'t",
    "map",
    "reduce",
    "iota",
    "replicate",
    "unflatten",
    "f64.sqrt",
    "f64.(",
    ".0",
    ".a",
    "a",
    "=",
    "module",
    "M",
    "M.x",
    "open",
    "type",
    "t",
    "*",
    "???",
    "..<",
    "...",
    "#[unsafe]",
    "entry",
    "main",
    "vjp",
    "jvp",
    "length",
    "copy",
    "scatter",
    "!",
    "`f`",
    "(+)",
    "(.0)",
];

const PROGRAMS: &[&str] = &[
    "def f [n] (xs: [n]f64) : f64 = f64.sum (map (\\x -> x * 2) xs)",
    "def g (x: i32) = let y = x + 1 in loop acc = y for i < 10 do acc * 2",
    "type v = {a: f64, b: f64}\ndef h (r: v) = r.a + r.b",
    "module M = { def x = 1i64 def (+) (a: i64) (b: i64) = a - b }\ndef k = M.(x + 2)",
    "def u (xs: *[]i32) = let xs[0] = 1 in xs with [1] = xs[0]",
    "entry main (x: f64) = vjp (\\t -> t * t) x 1",
];

fn soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..40).prop_map(|ts| ts.join(" "))
}

fn mutation() -> impl Strategy<Value = String> {
    (
        prop::sample::select(PROGRAMS),
        prop::collection::vec(
            (any::<prop::sample::Index>(), prop::sample::select(TOKENS)),
            1..4,
        ),
    )
        .prop_map(|(p, edits)| {
            let mut words: Vec<String> = p.split(' ').map(String::from).collect();
            for (i, t) in edits {
                let k = i.index(words.len());
                words[k] = t.to_string();
            }
            words.join(" ")
        })
}

/// Random expressions that usually parse (and often type-check) over a few variables.
fn expression() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(vec![
        "x", "y", "xs", "n", "1", "2.5", "0i64", "true", "f64.pi", "[1, 2]", "[]", "(x, y)",
        "{a = x}", "iota n", "xs[0]", "xs[1:]", "(+)", "(.0)", "f64.sqrt", "map", "reduce", "???",
        "r.a", "-1", "(1..<n)", "copy xs",
    ])
    .prop_map(String::from);
    atom.prop_recursive(4, 40, 4, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["+", "*", "==", "<", "&&", "|>", "++", "f64.+"]),
                inner.clone()
            )
                .prop_map(|(a, o, b)| format!("({a} {o} {b})")),
            (inner.clone(), inner.clone()).prop_map(|(f, a)| format!("({f} {a})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("(if {c} then {a} else {b})")),
            inner.clone().prop_map(|b| format!("(\\x -> {b})")),
            (inner.clone(), inner.clone()).prop_map(|(v, b)| format!("(let x = {v} in {b})")),
            (inner.clone(), inner.clone()).prop_map(|(v, b)| format!("(let g x = {v} in {b})")),
            (inner.clone(), inner.clone())
                .prop_map(|(v, b)| format!("(loop x = {v} for i < n do {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, v)| format!("({a} with [0] = {v})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("[{a}, {b}]")),
            inner.clone().prop_map(|a| format!("({a} : []f64)")),
            inner.clone().prop_map(|a| format!("({a}).1")),
            inner.prop_map(|a| format!("f64.({a})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn token_soup_never_panics(src in soup()) {
        check_text(&format!("def main = {src}"));
        check_text(&src);
    }

    #[test]
    fn mutated_programs_never_panic(src in mutation()) {
        check_text(&src);
    }

    #[test]
    fn random_expressions_never_panic(e in expression()) {
        check_text(&format!("def f (x: f64) (y: i32) (xs: *[]f64) (n: i64) (r: {{a: f64}}) = {e}"));
        check_text(&format!("def f x y xs n r = {e}"));
    }
}

#[test]
fn the_seed_programs_are_well_typed() {
    let (prelude, ids) = prelude();
    for src in PROGRAMS {
        let mut ids = ids.clone();
        let mut sources = SourceMap::new();
        let f = sources.add("seed.fut", *src);
        let program = parse_file(f, src, &mut ids).expect("parses");
        assert!(check_program(prelude, &program).is_ok(), "{src}");
    }
}
