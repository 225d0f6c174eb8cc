//! Tests of the syntax stage: snapshots of printed ASTs, precedence, errors, robustness.

use gradus::diag::{FileId, SourceMap};
use gradus::syntax::ast::{Exp, NodeIdGen};
use gradus::syntax::{parse_exp, parse_file, print_decs, print_exp};
use proptest::prelude::*;
use std::collections::HashSet;
use std::path::Path;

fn parse_print(text: &str) -> Result<String, String> {
    let mut ids = NodeIdGen::new();
    match parse_file(FileId(0), text, &mut ids) {
        Ok(decs) => Ok(print_decs(&decs)),
        Err(d) => {
            let mut sm = SourceMap::new();
            sm.add("test.fut", text);
            Err(d.one_line(&sm))
        }
    }
}

/// Parses, prints, re-parses the printed text and checks it prints the same.
fn round_trip(name: &str, text: &str) -> String {
    let printed = parse_print(text).unwrap_or_else(|e| panic!("{name}: {e}"));
    let again =
        parse_print(&printed).unwrap_or_else(|e| panic!("{name} (reprinted): {e}\n{printed}"));
    assert_eq!(printed, again, "{name}: printing is not stable");
    printed
}

fn exp(text: &str) -> String {
    let mut ids = NodeIdGen::new();
    match parse_exp(FileId(0), text, &mut ids) {
        Ok(e) => print_exp(&e),
        Err(d) => {
            let mut sm = SourceMap::new();
            sm.add("test.fut", text);
            panic!("{text}: {}", d.one_line(&sm))
        }
    }
}

fn parse_exp_tree(text: &str) -> Exp {
    let mut ids = NodeIdGen::new();
    parse_exp(FileId(0), text, &mut ids).unwrap_or_else(|d| panic!("{text}: {}", d.message))
}

fn err(text: &str) -> String {
    match parse_print(text) {
        Ok(p) => panic!("expected an error for {text:?}, got\n{p}"),
        Err(e) => e,
    }
}

/// Checks, on the debug form of a parse, that node ids are unique and every span lies inside
/// the text with `start <= end`.
fn check_ids_and_spans(text: &str) -> Result<(), String> {
    let mut ids = NodeIdGen::new();
    let decs = parse_file(FileId(0), text, &mut ids).map_err(|d| d.message)?;
    let dbg = format!("{decs:?}");
    let id_re = regex::Regex::new(r"NodeId\((\d+)\)").map_err(|e| e.to_string())?;
    let mut seen = HashSet::new();
    for c in id_re.captures_iter(&dbg) {
        if !seen.insert(c[1].to_string()) {
            return Err(format!("duplicate id {}", &c[1]));
        }
    }
    let span_re = regex::Regex::new(r"start: (\d+), end: (\d+)").map_err(|e| e.to_string())?;
    for c in span_re.captures_iter(&dbg) {
        let (s, e): (usize, usize) = (c[1].parse().unwrap_or(0), c[2].parse().unwrap_or(0));
        if s > e || e > text.len() {
            return Err(format!(
                "bad span {s}..{e} in a text of {} bytes",
                text.len()
            ));
        }
    }
    Ok(())
}

/// The direct subexpressions of an expression (not those inside types or patterns).
fn children(e: &Exp) -> Vec<&Exp> {
    use gradus::syntax::ast::{DimIndex, ExpKind as K, LoopForm};
    fn dims<'a>(is: &'a [DimIndex], out: &mut Vec<&'a Exp>) {
        for d in is {
            match d {
                DimIndex::Fix(e) => out.push(e),
                DimIndex::Slice { start, end, stride } => {
                    out.extend(start.iter().chain(end).chain(stride));
                }
            }
        }
    }
    let mut out: Vec<&Exp> = Vec::new();
    match &e.kind {
        K::Int(_) | K::Float(_) | K::Bool(_) | K::Char(_) | K::String(_) | K::Var(_) => {}
        K::OpSection { .. } | K::ProjectSection { .. } | K::Hole => {}
        K::Parens(a) | K::Neg(a) | K::Not(a) => out.push(a),
        K::Tuple(es) | K::Array(es) => out.extend(es),
        K::Record(fs) => out.extend(fs.iter().map(|f| &f.value)),
        K::Project { target, .. } => out.push(target),
        K::Index { target, indices } => {
            out.push(target);
            dims(indices, &mut out);
        }
        K::Apply { func, args } => {
            out.push(func);
            out.extend(args);
        }
        K::BinOp { lhs, rhs, .. } => out.extend([&**lhs, &**rhs]),
        K::LeftSection { left: a, .. } | K::RightSection { right: a, .. } => out.push(a),
        K::IndexSection { indices } => dims(indices, &mut out),
        K::Lambda { body, .. } => out.push(body),
        K::Let { value, body, .. } | K::LetFun { value, body, .. } => {
            out.extend([&**value, &**body]);
        }
        K::If {
            cond,
            then_branch,
            else_branch,
        } => out.extend([&**cond, &**then_branch, &**else_branch]),
        K::Loop {
            init, form, body, ..
        } => {
            out.extend(init.as_deref());
            match form.as_ref() {
                LoopForm::For { bound: x, .. }
                | LoopForm::ForIn { array: x, .. }
                | LoopForm::While(x) => out.push(x),
            }
            out.push(body);
        }
        K::Update {
            target,
            indices,
            value,
        } => {
            out.push(target);
            dims(indices, &mut out);
            out.push(value);
        }
        K::RecordUpdate { target, value, .. } => out.extend([&**target, &**value]),
        K::Range {
            start, second, end, ..
        } => {
            out.push(start);
            out.extend(second.as_deref());
            out.push(end);
        }
        K::Ascribe { exp, .. } | K::Coerce { exp, .. } | K::Attr { exp, .. } => out.push(exp),
        K::LocalOpen { body, .. } => out.push(body),
        K::Assert { cond, body } => out.extend([&**cond, &**body]),
        K::Match { scrutinee, cases } => {
            out.push(scrutinee);
            out.extend(cases.iter().map(|c| &c.body));
        }
        K::Constructor { args, .. } => out.extend(args),
    }
    out
}

/// Checks that every subexpression's span lies inside its parent's.
fn check_span_nesting(e: &Exp, errs: &mut Vec<String>) {
    for c in children(e) {
        if c.span.start < e.span.start || c.span.end > e.span.end {
            errs.push(format!(
                "{:?} at {}..{} outside its parent at {}..{}",
                c.kind, c.span.start, c.span.end, e.span.start, e.span.end
            ));
        }
        check_span_nesting(c, errs);
    }
}

fn programs_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/syntax/programs")
}

#[test]
fn program_snapshots() {
    let mut files: Vec<_> = std::fs::read_dir(programs_dir())
        .expect("programs directory")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "fut"))
        .collect();
    files.sort();
    assert!(files.len() >= 5);
    for f in files {
        let name = f
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let text = std::fs::read_to_string(&f).expect("readable");
        let printed = round_trip(&name, &text);
        assert_eq!(check_ids_and_spans(&text), Ok(()), "{name}");
        let mut ids = NodeIdGen::new();
        let decs = parse_file(FileId(0), &text, &mut ids).expect("parses");
        let mut errs = Vec::new();
        for d in &decs {
            if let gradus::syntax::ast::DecKind::Value(v) = &d.kind {
                assert!(d.span.start <= v.body.span.start && v.body.span.end <= d.span.end);
                check_span_nesting(&v.body, &mut errs);
            }
        }
        assert!(errs.is_empty(), "{name}: {}", errs.join("\n"));
        insta::assert_snapshot!(name, printed);
    }
}

#[test]
fn precedence() {
    let cases = [
        ("a + b * c", "(a + (b * c))"),
        ("xs |> map f |> g", "((xs |> (map f)) |> g)"),
        ("a / b |> log", "((a / b) |> log)"),
        ("f <| g <| x", "(f <| (g <| x))"),
        ("-f x", "(-(f x))"),
        ("-a * b", "((-a) * b)"),
        ("f -1", "(f - 1)"),
        ("f (-1)", "(f (-1))"),
        ("(- x)", "(-x)"),
        ("(-)", "(-)"),
        ("f x.0", "(f x.0)"),
        ("f a[i]", "(f a[i])"),
        ("f a [i]", "(f a [i])"),
        ("t.0.1", "t.0.1"),
        ("f x with [i] = v", "((f x) with [i] = v)"),
        ("a + b with [i] = v", "((a + b) with [i] = v)"),
        ("xs with [i] = x + 1 |> g", "(xs with [i] = ((x + 1) |> g))"),
        ("2 ** 3 ** 2", "((2 ** 3) ** 2)"),
        ("x & y == z", "((x & y) == z)"),
        ("a >>= b + c", "(a >>= (b + c))"),
        ("a >-> b == c", "((a >-> b) == c)"),
        ("a || b && c", "(a || (b && c))"),
        ("a `f` b + c", "(a `f` (b + c))"),
        ("a `f` b `g` c", "((a `f` b) `g` c)"),
        ("a `f` b with [0] = 1", "(a `f` (b with [0] = 1))"),
        ("0..<n + 1", "(0..<(n + 1))"),
        ("x : i32", "(x : i32)"),
        (
            "tabulate n \\i -> f i + 1",
            "(tabulate n (\\i -> ((f i) + 1)))",
        ),
        ("let x = 1 in x + 1", "(let x = 1 in (x + 1))"),
        ("if c then a else b + 1", "(if c then a else (b + 1))"),
        ("1 + if c then a else b", "(1 + (if c then a else b))"),
        ("\\x -> x + 1 |> f", "(\\x -> ((x + 1) |> f))"),
        ("a[i: i64]", "a[i:i64]"),
        ("a[(i: i64)]", "a[(i : i64)]"),
        ("a[:if c then x else y:2]", "a[:(if c then x else y):2]"),
        ("a[let x = 1 in x:]", "a[(let x = 1 in x):]"),
        ("a[[x : i64]]", "a[[(x : i64)]]"),
        ("(2 *)", "(2 *)"),
        ("(+ 1)", "(+ 1)"),
        ("((i - n) ==)", "((i - n) ==)"),
        ("(a + b *)", "((a + b) *)"),
        ("(f64.+)", "(f64.+)"),
        ("(T.* s)", "(T.* s)"),
        ("a f64.+ b", "(a f64.+ b)"),
        ("f64.sqrt x", "(f64.sqrt x)"),
        ("f64.(sqrt x + 1)", "f64.(((sqrt x) + 1))"),
        ("M.N.x.0", "M.N.x.0"),
        ("(f x)[0]", "(f x)[0]"),
        ("(f x) [0]", "((f x) [0])"),
        ("m[i][j]", "m[i][j]"),
        ("m[i].f", "m[i].f"),
        ("!f x", "(!(f x))"),
        ("#[unsafe] a + b", "(#[unsafe] (a + b))"),
        ("assert (x > 0) x + 1", "(assert (x > 0) (x + 1))"),
        ("#some 1 2", "(#some 1 2)"),
        ("f #none", "(f #none)"),
        ("x :> [n]f64", "(x :> [n]f64)"),
        ("r with a.b = 1", "(r with a.b = 1)"),
        ("a with [i, :] = row", "(a with [i, :] = row)"),
        ("(a, b,)", "(a, b)"),
        ("[1, 2,]", "[1, 2]"),
        ("{a = 1, b,}", "{a = 1, b = b}"),
        ("x' + _y", "(x' + _y)"),
        ("f [1, 2]", "(f [1, 2])"),
        ("f[1]", "f[1]"),
        (
            "loop (x, y) = (0, 1) for i < n do (y, x + y)",
            "(loop (x, y) = (0, 1) for i < n do (y, (x + y)))",
        ),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        let got = exp(src);
        if got != want {
            failures.push(format!("{src}\n  want {want}\n  got  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn literals() {
    use gradus::syntax::ast::{ExpKind, IntLit};
    use gradus::value::PrimType;
    match parse_exp_tree("2f32").kind {
        ExpKind::Float(f) => {
            assert_eq!(f.suffix, Some(PrimType::F32));
            assert_eq!(f.value, 2.0);
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(
        parse_exp_tree("1_000i64").kind,
        ExpKind::Int(IntLit {
            value: 1000,
            suffix: Some(PrimType::I64)
        })
    );
    match parse_exp_tree("(-1)").kind {
        ExpKind::Parens(e) => assert!(matches!(e.kind, ExpKind::Neg(_))),
        k => panic!("{k:?}"),
    }
    match parse_exp_tree("2.5e-3f64").kind {
        ExpKind::Float(f) => {
            assert_eq!(f.text, "2.5e-3");
            assert_eq!(f.suffix, Some(PrimType::F64));
        }
        k => panic!("{k:?}"),
    }
}

#[test]
fn spans_and_ids() {
    let text = "def f (x: i32) = let y = x + 1 in (y, x)";
    let mut ids = NodeIdGen::new();
    let decs = parse_file(FileId(3), text, &mut ids).expect("parses");
    let dbg = format!("{decs:?}");
    // Every node id appears once.
    let re = regex::Regex::new(r"NodeId\((\d+)\)").expect("regex");
    let mut seen = HashSet::new();
    for c in re.captures_iter(&dbg) {
        assert!(seen.insert(c[1].to_string()), "duplicate id {}", &c[1]);
    }
    assert_eq!(seen.len() as u32, ids.count());
    let d = decs.first().expect("one dec");
    assert_eq!(d.span.file, FileId(3));
    assert_eq!((d.span.start, d.span.end), (0, text.len() as u32));
    if let gradus::syntax::ast::DecKind::Value(v) = &d.kind {
        let body = &text[v.body.span.start as usize..v.body.span.end as usize];
        assert_eq!(body, "let y = x + 1 in (y, x)");
        assert_eq!(
            &text[v.name_span.start as usize..v.name_span.end as usize],
            "f"
        );
        let p = v.params.first().expect("param");
        assert_eq!(
            &text[p.span.start as usize..p.span.end as usize],
            "(x: i32)"
        );
    } else {
        panic!("not a value declaration");
    }
    // Ids continue across files.
    let before = ids.count();
    parse_file(FileId(4), "def g = 1", &mut ids).expect("parses");
    assert!(ids.count() > before);
}

#[test]
fn errors() {
    let cases = [
        (
            "def f = let x = 1 in",
            "test.fut:1:21: expected an expression, found end of file",
        ),
        (
            "def f = (1, 2 in",
            "test.fut:1:15: expected `)`, found `in`",
        ),
        (
            "def f = let x = 1 then",
            "test.fut:1:19: expected `in`, found `then`",
        ),
        (
            "def f x = if x then 1",
            "test.fut:1:22: expected `else`, found end of file",
        ),
        (
            "def f = [1, 2",
            "test.fut:1:14: expected `]`, found end of file",
        ),
        (
            "def (a, b) = (1, 2)",
            "test.fut:1:5: top-level patterns are not allowed: expected a name or an operator definition",
        ),
        (
            "def f = 1 +",
            "test.fut:1:12: expected an expression, found end of file",
        ),
        (
            "def f = 3q",
            "test.fut:1:9: invalid suffix `q` on numeric literal",
        ),
        ("def f = x $ y", "test.fut:1:11: unexpected character `$`"),
        (
            "def f = \\ -> 1",
            "test.fut:1:11: expected a parameter, found `->`",
        ),
        (
            "def f = loop x = 0 do x",
            "test.fut:1:20: expected `for` or `while`, found `do`",
        ),
        (
            "def f = x with = 1",
            "test.fut:1:16: expected a field name, found `=`",
        ),
        ("def f : = 1", "test.fut:1:9: expected a type, found `=`"),
        ("x = 1", "test.fut:1:1: expected a declaration, found `x`"),
        (
            "def f = a..b",
            "test.fut:1:13: expected `..<`, `...` or `..>`, found end of file",
        ),
        (
            "def f = match x",
            "test.fut:1:16: expected `case`, found end of file",
        ),
        ("def f = \"abc", "test.fut:1:9: unterminated string literal"),
        (
            "def f = #[inline def",
            "test.fut:1:18: expected `]`, found `def`",
        ),
        (
            "type t = [n",
            "test.fut:1:12: expected `]`, found end of file",
        ),
        (
            "module M = { def x = 1",
            "test.fut:1:23: expected `}`, found end of file",
        ),
        (
            "def f = 1\nlet",
            "test.fut:2:4: expected a name, found end of file",
        ),
        (
            "def f = a[]",
            "test.fut:1:11: expected an expression, found `]`",
        ),
    ];
    let mut failures = Vec::new();
    for (src, want) in cases {
        let got = err(src);
        if got != want {
            failures.push(format!("{src:?}\n  want {want}\n  got  {got}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn rendered_errors() {
    let cases = [
        ("def f (x: i32) =\n  let y = x + 1\n  y * 2\n", "missing_in"),
        ("def g = map (\\x -> x + 1) [1, 2, 3\n", "unclosed"),
        ("def h = 0x1.8p3f64\n", "hex_float"),
        ("def n = x :> [m]i32 |> f\n", "stray_token"),
    ];
    for (src, name) in cases {
        let mut ids = NodeIdGen::new();
        let mut sm = SourceMap::new();
        let file = sm.add("test.fut", src);
        let d = parse_file(file, src, &mut ids).expect_err("an error");
        insta::assert_snapshot!(format!("error_{name}"), d.render(&sm));
    }
}

#[test]
fn unclosed_bracket_has_secondary_label() {
    let mut ids = NodeIdGen::new();
    let d = parse_file(FileId(0), "def f = (1 + 2", &mut ids).expect_err("error");
    assert_eq!(d.secondary.len(), 1);
    let (span, label) = d.secondary.first().expect("label");
    assert_eq!((span.start, span.end), (8, 9));
    assert_eq!(label, "unclosed `(`");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 100_000;
    let inputs = [
        format!("def f = {}1{}", "(".repeat(n), ")".repeat(n)),
        format!("def f = {}1{}", "[".repeat(n), "]".repeat(n)),
        format!("def f = {}x", "- ".repeat(n)),
        format!("def f = {}x", "! ".repeat(n)),
        format!("def f = {}", "if x then 1 else ".repeat(n)),
        format!("def f = {}", "\\x -> ".repeat(n)),
        format!("def f = {}1", "f <| ".repeat(n)),
        format!("type t = {}i32", "[n]".repeat(n)),
        format!("type t = {}i32", "* ".repeat(n)),
        format!("def f ({}x{}) = 1", "(".repeat(n), ")".repeat(n)),
        "module M = { ".repeat(n),
        format!("def f = {}x", "#[a] ".repeat(n)),
        format!("def f = #[{}a{}] x", "a(".repeat(n), ")".repeat(n)),
    ];
    for (i, text) in inputs.iter().enumerate() {
        let r = parse_print(text);
        let e = r.expect_err("too deep");
        assert!(e.contains("nesting too deep"), "input {i}: {e}");
    }
    // Long chains are fine up to a limit, which keeps the tree's depth bounded.
    let chain = |n| format!("def f = {}0", "1 + ".repeat(n));
    assert!(parse_print(&chain(1000)).is_ok());
    let e = parse_print(&chain(5000)).expect_err("too long");
    assert!(e.contains("expression too long"), "{e}");
    let lets = |n| format!("def f = {} in 0", "let x = 1 ".repeat(n));
    assert!(parse_print(&lets(1000)).is_ok());
    assert!(parse_print(&lets(5000)).is_err());
    let idx = format!("def f = a{}", "[0]".repeat(5000));
    assert!(parse_print(&idx).is_err());
}

/// Every `futhark` block of the language reference is a program that parses and prints back.
#[test]
fn language_md_examples() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/language.md");
    let md = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut blocks = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.lines() {
        match &mut cur {
            None if line.trim_start().starts_with("```futhark") => cur = Some(String::new()),
            Some(b) if line.trim_start().starts_with("```") => {
                blocks.push(std::mem::take(b));
                cur = None;
            }
            Some(b) => {
                b.push_str(line);
                b.push('\n');
            }
            None => {}
        }
    }
    assert!(blocks.len() >= 6, "found {} blocks", blocks.len());
    for (i, b) in blocks.iter().enumerate() {
        round_trip(&format!("docs/language.md block {i}"), b);
    }
}

#[test]
fn repository_examples_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "fut") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            round_trip(&path.display().to_string(), &text);
        }
    }
}

#[test]
fn prelude_parses() {
    round_trip("prelude", &gradus::prelude::source());
}

const SOUP: &[&str] = &[
    "def", "entry", "let", "in", "if", "then", "else", "loop", "for", "while", "do", "with",
    "match", "case", "assert", "module", "type", "open", "local", "import", "val", "include", "x",
    "f", "M", "f64", "i64", "1", "2.5", "3i32", "'a'", "\"s\"", "(", ")", "[", "]", "{", "}", ",",
    ":", ":>", "->", "=", "\\", "_", "'", "'~", "'^", "~", "?", "???", "#[", "`", ".", "..", "...",
    "..<", "..>", "+", "-", "*", "|>", "<|", "==", "!", "&&", "|", "#c", " ", "\n", "-- c\n",
];

/// 2000 cases; failures are remembered in `main.proptest-regressions` beside this file.
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    }
}

/// Source text of random, syntactically valid patterns.
fn arb_pat() -> impl Strategy<Value = String> {
    let leaf =
        prop::sample::select(vec!["x", "_", "()", "y'", "_w", "(n: i64)"]).prop_map(String::from);
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b},)")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{f = {a}, g = {b}, h}}")),
            inner.clone().prop_map(|a| format!("({a} : [n]f64)")),
            inner.clone().prop_map(|a| format!("#[true_dep] {a}")),
            inner.clone().prop_map(|a| format!("({a})")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("(#c {a} {b})")),
        ]
    })
}

/// Source text of random, syntactically valid expressions.
fn arb_exp() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["x", "y", "xs", "f64.pi", "x'", "_z"]).prop_map(String::from),
        (0u32..1000).prop_map(|n| n.to_string()),
        prop::sample::select(vec![
            "1.5", "2f32", "3i64", "true", "???", "()", "(+)", "(.0)"
        ])
        .prop_map(String::from),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        let ops = prop::sample::select(vec![
            "+", "-", "*", "/", "**", "==", "<", "&&", "||", "|>", "<|", "&", "<<", ">->", "`f`",
            "f64.+",
        ]);
        prop_oneof![
            (inner.clone(), ops, inner.clone()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("f ({a}) ({b})")),
            inner.clone().prop_map(|a| format!("- {a}")),
            inner.clone().prop_map(|a| format!("!({a})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("if {a} then {b} else {c}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("let x = {a} in {b}")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("let x = {a}\nlet y = x\nin {b}")),
            inner.clone().prop_map(|a| format!("\\x (y: i32) -> {a}")),
            inner.clone().prop_map(|a| format!("({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b},)")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("[{a}, {b}]")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a})[{b}, :{b}:]")),
            inner.clone().prop_map(|a| format!("({a}).0.1")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("{a} with [{b}] = {c}")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("loop x = {a} for i < {b} do {c}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} : [{b}]i32)")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}..<{b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} *) ({b})")),
            inner.clone().prop_map(|a| format!("(+ {a})")),
            inner.clone().prop_map(|a| format!("#[unsafe] {a}")),
            (arb_pat(), inner.clone(), inner.clone())
                .prop_map(|(p, a, b)| format!("let {p} = {a} in {b}")),
            (arb_pat(), arb_pat(), inner.clone())
                .prop_map(|(p, q, a)| format!("\\{p} ({q}) -> {a}")),
            (arb_pat(), inner.clone(), inner.clone())
                .prop_map(|(p, a, b)| format!("loop {p} = {a} while x do {b}")),
            inner.clone().prop_map(|a| format!("M.({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{a = {a}, b = {b}}}")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("match ({a}) case #c y -> {b} case _ -> y")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("tabulate ({a}) \\i -> {b}")),
        ]
    })
}

/// Source text of random, syntactically valid types.
fn arb_type() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(vec![
        "i32", "f64", "bool", "t", "R.t", "[n]f64", "[]i32", "()", "vec [3]",
    ])
    .prop_map(String::from);
    leaf.prop_recursive(4, 32, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("[n * 2]({a})")),
            inner.clone().prop_map(|a| format!("[k][]({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b},)")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} -> {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("(x: {a}) -> {b}")),
            inner.clone().prop_map(|a| format!("*({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{{x: {a}, y: {b},}}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("pair ({a}) ({b}) [n]")),
            inner.clone().prop_map(|a| format!("?[k][l].{a}")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("#c ({a}) ({b}) | #d | #e i32")),
        ]
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn printed_types_parse_back_the_same(t in arb_type(), e in arb_exp()) {
        let text = format!(
            "type^ abbrev 'a [n] = {t}\ndef main (p: {t}) : {t} = \\(q: {t}) -> ({e} : {t})\n"
        );
        let printed = parse_print(&text);
        prop_assert!(printed.is_ok(), "{text}: {:?}", printed);
        let printed = printed.unwrap_or_default();
        let again = parse_print(&printed);
        prop_assert_eq!(Ok(printed.clone()), again, "{}", text);
    }

    #[test]
    fn printed_expressions_parse_back_the_same(e in arb_exp()) {
        let text = format!("def main = {e}\n");
        prop_assert_eq!(check_ids_and_spans(&text), Ok(()));
        let tree = parse_exp_tree(&e);
        let mut errs = Vec::new();
        check_span_nesting(&tree, &mut errs);
        prop_assert!(errs.is_empty(), "{}: {}", e, errs.join("; "));
        let printed = parse_print(&text);
        prop_assert!(printed.is_ok(), "{text}: {:?}", printed);
        let printed = printed.unwrap_or_default();
        let again = parse_print(&printed);
        prop_assert_eq!(Ok(printed.clone()), again, "{}", text);
    }

    #[test]
    fn arbitrary_strings_never_panic(s in ".{0,200}") {
        let _ = parse_print(&s);
    }

    #[test]
    fn token_soup_never_panics(toks in prop::collection::vec(prop::sample::select(SOUP), 0..80)) {
        let text = toks.join(" ");
        let _ = parse_print(&text);
        let glued = toks.concat();
        let _ = parse_print(&glued);
    }

    #[test]
    fn mutated_programs_never_panic(cut in 0usize..2000, len in 0usize..20, ins in prop::sample::select(SOUP)) {
        let text = include_str!("programs/tier2.fut");
        let cut = text.floor_char_boundary(cut.min(text.len()));
        let end = text.floor_char_boundary((cut + len).min(text.len()));
        let mutated = format!("{}{}{}", &text[..cut], ins, &text[end..]);
        let _ = parse_print(&mutated);
    }
}
