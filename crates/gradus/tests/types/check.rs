//! Type checker: inferred types of small programs and the exact first error of ill-typed
//! ones, checked against the real prelude.

use crate::common::*;
use gradus::types::{Resolved, Size, Ty};
use gradus::value::PrimType;

// ---------------------------------------------------------------------------------------
// Inference

#[test]
fn prelude_is_well_typed() {
    let (_, t) = ok("");
    assert!(t.decls.len() > 300);
    let sum = t
        .decls
        .iter()
        .find(|d| d.decl.module_path == ["f64"] && d.decl.name == "sum")
        .unwrap();
    assert_eq!(sum.ty.to_string(), "[k]f64 -> f64");
    let map = t.decls.iter().find(|d| d.decl.name == "map").unwrap();
    assert!(map.intrinsic);
    assert_eq!(map.ty.to_string(), "(a -> b) -> [n]a -> [n]b");
}

#[test]
fn defaulting_of_top_level_declarations() {
    assert_eq!(ty_of("def inc x = x + 1", "inc"), "i32 -> i32");
    assert_eq!(ty_of("def half x = x / 2.0", "half"), "f64 -> f64");
    assert_eq!(ty_of("def flip' x = !x", "flip'"), "i32 -> i32");
    assert_eq!(ty_of("def k = 1", "k"), "i32");
    assert_eq!(ty_of("def k = 1.5", "k"), "f64");
}

#[test]
fn generalisation() {
    assert_eq!(
        ty_of("def twice f x = f (f x)", "twice"),
        "(a -> a) -> a -> a"
    );
    assert_eq!(
        ty_of("def pair 'a (x: a) y = (x, y)", "pair"),
        "a -> b -> (a, b)"
    );
    assert_eq!(ty_of("def eq x y = x == y", "eq"), "a -> a -> bool");
    assert_eq!(ty_of("def h xs = map (+1) xs", "h"), "[n]i32 -> [n]i32");
}

#[test]
fn later_uses_do_not_change_a_declaration() {
    let src = "def inc x = x + 1\ndef y = inc 2";
    assert_eq!(ty_of(src, "inc"), "i32 -> i32");
    assert_eq!(
        err_line("def inc x = x + 1\ndef y = inc 2.5"),
        "test.fut:2:13: argument 1 of `inc` has the wrong type"
    );
}

#[test]
fn local_functions_are_polymorphic() {
    let src = "def f = let id' x = x in (id' 1i64, id' true)";
    assert_eq!(ty_of(src, "f"), "(i64, bool)");
}

#[test]
fn constrained_local_functions_are_fixed_by_later_uses() {
    assert_eq!(ty_of("def w = let f x = x + 1 in f 2.5", "w"), "f64");
    assert_eq!(
        err_line("def w = let f x = x + 1 in (f 2.5, f 1i32)"),
        "test.fut:1:38: argument 1 of `f` has the wrong type"
    );
}

#[test]
fn literals() {
    assert_eq!(ty_of("def f (x: f32) = x + 1.5", "f"), "f32 -> f32");
    assert_eq!(ty_of("def f (x: u8) = x * 2", "f"), "u8 -> u8");
    assert_eq!(ty_of("def k = 2f32", "k"), "f32");
    assert_eq!(ty_of("def k = -128i8", "k"), "i8");
    assert_eq!(ty_of("def k = -9223372036854775808i64", "k"), "i64");
    assert_eq!(
        err_line("def k = 128i8"),
        "test.fut:1:9: integer literal does not fit in type `i8`"
    );
    assert_eq!(
        err_line("def k : u8 = 256"),
        "test.fut:1:14: integer literal does not fit in type `u8`"
    );
}

#[test]
fn operators() {
    assert_eq!(
        ty_of("def f a b = a < b && b == 1", "f"),
        "i32 -> i32 -> bool"
    );
    assert_eq!(ty_of("def f (a: i64) = a // 2 %% 3 & 1", "f"), "i64 -> i64");
    assert_eq!(ty_of("def f (a: f32) = -a ** 2", "f"), "f32 -> f32");
    assert_eq!(ty_of("def f (a: bool) = !a || a", "f"), "bool -> bool");
    assert_eq!(ty_of("def f = [1, 2] == [3, 4]", "f"), "bool");
    assert_eq!(
        err_line("def f (x: f64) = x // 2"),
        "test.fut:1:18: the left operand of `//` has the wrong type"
    );
}

#[test]
fn builtin_operators_are_resolved_at_their_operand_type() {
    let (decs, t) = ok("def f (x: f32) = x + 1");
    let gradus::syntax::ast::DecKind::Value(vd) = &decs[0].kind else {
        panic!()
    };
    assert_eq!(
        t.resolved[&vd.body.id],
        Resolved::Builtin {
            op: "+".into(),
            operand: Ty::Prim(PrimType::F32)
        }
    );
}

#[test]
fn qualified_names_and_local_open() {
    assert_eq!(ty_of("def f = f64.sqrt 2 + f64.pi", "f"), "f64");
    assert_eq!(
        ty_of("def f (x: f32) = f32.(sqrt (x * x + 1))", "f"),
        "f32 -> f32"
    );
    assert_eq!(ty_of("def f = map2 (f64.+) [1, 2] [3, 4]", "f"), "[2]f64");
    assert_eq!(ty_of("def f = 1 f64.+ 2", "f"), "f64");
    assert_eq!(ty_of("def f (n: i64) = f64.i64 n", "f"), "i64 -> f64");
    assert_eq!(
        ty_of("def f (xs: []f64) = i64.sum (map i64.f64 xs)", "f"),
        "[n]f64 -> i64"
    );
}

#[test]
fn sections_and_pipes() {
    assert_eq!(ty_of("def f = map (2 *) [1, 2] |> map (*3)", "f"), "[2]i32");
    assert_eq!(ty_of("def f = (-)", "f"), "i32 -> i32 -> i32");
    assert_eq!(ty_of("def f = map (.0) [(1f32, true)]", "f"), "[1]f32");
    assert_eq!(
        ty_of("def f (xs: [][3]f64) = map (.[1]) xs", "f"),
        "[n][3]f64 -> [n]f64"
    );
    assert_eq!(ty_of("def f = (`f64.max` 1) 2", "f"), "f64");
    assert_eq!(
        ty_of(
            "def dot xs ys = f64.sum (map2 (*) xs ys)\ndef g a b = a `dot` b",
            "g"
        ),
        "[n]f64 -> [n]f64 -> f64"
    );
    assert_eq!(ty_of("def f = (>-> f64.sqrt) f64.abs", "f"), "f64 -> f64");
}

#[test]
fn lambdas_and_higher_order_functions() {
    assert_eq!(
        ty_of("def f [n] (xs: [n]f64) = map (\\x -> x * 2) xs", "f"),
        "[n]f64 -> [n]f64"
    );
    assert_eq!(
        ty_of("def compose f g x = g (f x)", "compose"),
        "(a -> b) -> (b -> c) -> a -> c"
    );
    assert_eq!(ty_of("def f = tabulate 3 \\i -> f64.i64 i", "f"), "[3]f64");
    assert_eq!(
        ty_of("def f = let g = \\(x: f32) -> x in g", "f"),
        "f32 -> f32"
    );
}

#[test]
fn records_and_tuples() {
    assert_eq!(
        ty_of("def p (r: {a: f64, b: i32}) = r.a", "p"),
        "{a: f64, b: i32} -> f64"
    );
    assert_eq!(
        ty_of("def q = map (\\r -> r.a) [{a = 1f32}]", "q"),
        "[1]f32"
    );
    assert_eq!(ty_of("def t = (1, 2.0).1", "t"), "f64");
    assert_eq!(
        ty_of("def t (x: (i32, (f32, bool))) = x.1.0", "t"),
        "(i32, (f32, bool)) -> f32"
    );
    assert_eq!(
        ty_of("def u (r: {a: f64, b: i32}) = r with b = 2", "u"),
        "{a: f64, b: i32} -> {a: f64, b: i32}"
    );
    assert_eq!(
        ty_of("def v {x, y = z} = x + z + 1f32", "v"),
        "{x: f32, y: f32} -> f32"
    );
    assert_eq!(
        ty_of("def w = let x = 1i8 in {x, y = true}", "w"),
        "{x: i8, y: bool}"
    );
    assert_eq!(
        ty_of("def fs = (\\(x: i32) -> x, 2)", "fs"),
        "(i32 -> i32, i32)"
    );
}

#[test]
fn field_access_needs_a_known_type() {
    assert_eq!(
        err_line("def f x = x.a"),
        "test.fut:1:11: the type of this expression must be known to access field `a`"
    );
    assert_eq!(
        err_line("def f x = x with a = 1"),
        "test.fut:1:11: the type of this record must be known to update it"
    );
}

#[test]
fn cyclic_field_constraints_are_errors() {
    assert_eq!(
        err_line("def f x = x.a == x"),
        "test.fut:1:11: the type of this expression must be known to access field `a`"
    );
}

#[test]
fn type_abbreviations() {
    let src = "type vec [n] 't = [n]t\ntype real = f64\n\
               def dot [n] (a: vec [n] real) (b: vec [n] real) : real = f64.sum (map2 (*) a b)";
    assert_eq!(ty_of(src, "dot"), "[n]f64 -> [n]f64 -> f64");
    assert_eq!(
        err_line("type vec [n] 't = [n]t\ndef f (x: vec f64) = x"),
        "test.fut:2:11: type `vec` takes 2 argument(s) but 1 were given"
    );
}

#[test]
fn modules() {
    let src = "module M = { def x = 1i64 module N = { def y = x + 1 } local def z = 3 }\n\
               def a = M.N.y + M.x";
    assert_eq!(ty_of(src, "a"), "i64");
    assert_eq!(
        err_line("module M = { local def z = 3 }\ndef a = M.z"),
        "test.fut:2:9: module `M` has no member `z`"
    );
    let src = "module V = { def (+) (a: (f64, f64)) (b: (f64, f64)) = (a.0 + b.0, a.1 + b.1) }\n\
               def s a b = a V.+ b\ndef t a b = V.(a + b)\nopen V\ndef u = (1, 2) + (3, 4)";
    assert_eq!(ty_of(src, "s"), "(f64, f64) -> (f64, f64) -> (f64, f64)");
    assert_eq!(ty_of(src, "t"), "(f64, f64) -> (f64, f64) -> (f64, f64)");
    assert_eq!(ty_of(src, "u"), "(f64, f64)");
    assert_eq!(ty_of("module F = f64\ndef f = F.sqrt 2", "f"), "f64");
}

#[test]
fn record_variables_shadow_modules() {
    assert_eq!(
        ty_of("def f (f64: {sqrt: i32}) = f64.sqrt", "f"),
        "{sqrt: i32} -> i32"
    );
}

#[test]
fn indexing_and_slicing() {
    assert_eq!(
        ty_of("def f (m: [][]f32) = (m[0], m[:, 1], m[1:3], m[0, 0])", "f"),
        "[n][m]f32 -> ([m]f32, [n]f32, [][m]f32, f32)"
    );
    assert_eq!(
        ty_of(
            "def f [n] (xs: [n]f64) = (xs[:2], xs[0:n], take 2 xs, xs[::-1])",
            "f"
        ),
        "[n]f64 -> ([2]f64, [n]f64, [2]f64, [n]f64)"
    );
    assert_eq!(
        err_line("def f (xs: []f64) = xs[0, 1]"),
        "test.fut:1:21: too many indices: type `[]f64` has 1 dimension(s)"
    );
    assert_eq!(
        ty_of("def f (xs: []f64) (i: i32) (j: u8) = (xs[i], xs[j:])", "f"),
        "[n]f64 -> i32 -> u8 -> (f64, []f64)"
    );
    assert_eq!(
        err_line("def f (xs: []f64) (i: f32) = xs[i]"),
        "test.fut:1:33: an index must have an integer type"
    );
}

#[test]
fn updates() {
    assert_eq!(
        ty_of("def f [n] (xs: *[n]f64) = xs with [0] = 1", "f"),
        "[n]f64 -> [n]f64"
    );
    assert_eq!(
        ty_of(
            "def f (m: *[][]i32) = let m[0, 1] = 2 in m with [1] = m[0]",
            "f"
        ),
        "[n][m]i32 -> [n][m]i32"
    );
    assert_eq!(
        err_line("def f (xs: *[]f64) = xs with [0] = true"),
        "test.fut:1:36: the new value does not have the type of the updated part"
    );
}

#[test]
fn sizes() {
    assert_eq!(
        ty_of("def r n = replicate (n + 1) 0f32", "r"),
        "i64 -> [n + 1]f32"
    );
    assert_eq!(
        ty_of("def s [n] (xs: [n]f64) = replicate n 0f64", "s"),
        "[n]f64 -> [n]f64"
    );
    assert_eq!(
        ty_of(
            "def v [n] [m] (xs: [n * m]f64) = unflatten xs : [n][m]f64",
            "v"
        ),
        "[n * m]f64 -> [n][m]f64"
    );
    assert_eq!(
        ty_of("def f (xs: []f64) = filter (> 0) xs", "f"),
        "[n]f64 -> []f64"
    );
    assert_eq!(ty_of("def f (n: i64) = iota n", "f"), "i64 -> [n]i64");
    assert_eq!(ty_of("def f (n: i64) = 0..<n", "f"), "i64 -> [n]i64");
    assert_eq!(ty_of("def f (n: i64) = 1...n", "f"), "i64 -> []i64");
    assert_eq!(
        ty_of("def k = 3i64\ndef f = replicate k true", "f"),
        "[k]bool"
    );
    assert_eq!(
        ty_of("def f (xs: [10]f64) = split xs : ([3]f64, [7]f64)", "f"),
        "[10]f64 -> ([3]f64, [7]f64)"
    );
    // A size conflict the run time can check is no error.
    assert_eq!(
        ty_of(
            "def f [n] [m] (xs: [n]f64) (ys: [m]f64) = map2 (+) xs ys",
            "f"
        ),
        "[n]f64 -> [m]f64 -> [n]f64"
    );
    assert_eq!(
        ty_of("def f c = if c then [1, 2] else [3]", "f"),
        "bool -> []i32"
    );
    assert_eq!(
        ty_of(
            "def f (xs: []i32) = let n = length xs in replicate n 0",
            "f"
        ),
        "[n]i32 -> []i32"
    );
}

#[test]
fn sizes_that_must_be_known() {
    assert_eq!(
        err_line("def f xs = unflatten xs"),
        "test.fut:1:12: cannot determine the size `n` of `unflatten`"
    );
    assert_eq!(
        err_line("def f = rep 1.0"),
        "test.fut:1:9: cannot determine the size `n` of `rep`"
    );
    assert_eq!(
        err_line("def f (xs: []f64) = split xs"),
        "test.fut:1:21: cannot determine the size `n` of `split`"
    );
    assert_eq!(ty_of("def f : [3]f64 = rep 1.0", "f"), "[3]f64");
    assert_eq!(
        ty_of(
            "def f [n] [m] [k] (xs: [n * m * k]f64) = unflatten_3d xs",
            "f"
        ),
        "[n * m * k]f64 -> [n][m][k]f64"
    );
}

#[test]
fn sizes_solved_from_expressions() {
    let lengths =
        "def lengths [m] (o: [m + 1]i64) : [m]i64 = map (\\i -> o[i + 1] - o[i]) (iota m)\n";
    // `m + 1` against any size: `m` is that size less one.
    assert_eq!(
        ty_of(
            &format!("{lengths}def g (k: i64) = lengths (iota (2 * k))"),
            "g"
        ),
        "i64 -> [2 * k - 1]i64"
    );
    // Constants match constants: `m + 1` against `1 + k` is `m = k`, not `m = 1` ...
    assert_eq!(
        ty_of(
            &format!("{lengths}def g [k] (xs: [k]i64) = lengths (concat [0] xs)"),
            "g"
        ),
        "[k]i64 -> [k]i64"
    );
    // ... and parts are bound only when all of them match: `m + 1` against `2 + k` is solved.
    assert_eq!(
        ty_of(
            &format!("{lengths}def g [k] (xs: [k]i64) = lengths (concat [0, 0] xs)"),
            "g"
        ),
        "[k]i64 -> [2 + k - 1]i64"
    );
    assert_eq!(
        ty_of(
            &format!("{lengths}def g [k] (xs: [k]i64) = lengths (xs ++ [0])"),
            "g"
        ),
        "[k]i64 -> [k]i64"
    );
    assert_eq!(
        ty_of(
            "def f [m] (_: [m - 1]i64) : [m]i64 = iota m\ndef g (k: i64) = f (iota k)",
            "g"
        ),
        "i64 -> [k + 1]i64"
    );
    // A local function, and a size whose other part is still unknown (`split`) is not solved.
    assert_eq!(
        ty_of(
            "def g (k: i64) = let f [m] (o: [m + 1]i64) : [m]i64 = o[1:] :> [m]i64 in f (iota k)",
            "g"
        ),
        "i64 -> [k - 1]i64"
    );
    assert_eq!(
        ty_of("def f (xs: [10]f64) = split xs : ([3]f64, [7]f64)", "f"),
        "[10]f64 -> ([3]f64, [7]f64)"
    );
}

#[test]
fn sizes_that_nothing_binds() {
    // A size the body names that only a function-typed parameter mentions must be known at
    // each call: a function value has no dimensions to read it from.
    let app = "def app [n] (g: [n]f64 -> f64) (x: f64) : f64 = g (replicate n x)\n";
    assert_eq!(
        err_line(&format!("{app}def h = app f64.sum 1.0")),
        "test.fut:2:9: cannot determine the size `n` of `app`"
    );
    assert_eq!(
        ty_of(
            &format!("{app}def h = app (\\(v: [3]f64) -> f64.sum v) 1.0"),
            "h"
        ),
        "f64"
    );
    // ... but one the body does not name is not needed.
    assert_eq!(
        ty_of(
            "def f [n] (g: f64 -> [n]f64) (x: f64) : i64 = length (g x)\n\
             def h = f (\\x -> [x, x]) 1.0",
            "h"
        ),
        "i64"
    );
    assert_eq!(
        err_line("def f (x: i64) = let [n] (y: i64) = x in n"),
        "test.fut:1:22: the size `n` is not the size of an array in the pattern"
    );
    assert_eq!(
        err_line("def f (g: []f64 -> f64) = let [n] (h: [n]f64 -> f64) = g in n"),
        "test.fut:1:31: the size `n` is not the size of an array in the pattern"
    );
    assert_eq!(
        err_line("entry main [n] (x: f64) : [n]f64 = replicate n x"),
        "test.fut:1:12: the size `n` of entry point `main` is not the size of any array parameter"
    );
    assert_eq!(
        ty_of(
            "def f (xs: []f64) = let [n] ((a, _): ([n]f64, i64)) = (xs, 1) in n",
            "f"
        ),
        "[n]f64 -> i64"
    );
}

#[test]
fn size_parameters_are_recorded() {
    let (decs, t) = ok("def f [n] (xs: [n]f64) = xs\ndef g xs = map (+1) xs");
    let gradus::syntax::ast::DecKind::Value(f) = &decs[0].kind else {
        panic!()
    };
    let sp = &t.size_params[&f.body.id];
    assert_eq!(sp.len(), 1);
    assert_eq!(sp[0].0, "n");
    let xs = &t.pat_types[&f.params[0].id];
    assert_eq!(
        *xs,
        Ty::Array(
            vec![Size::Named(sp[0].1, "n".into())],
            Box::new(Ty::Prim(PrimType::F64))
        )
    );
    let gradus::syntax::ast::DecKind::Value(g) = &decs[1].kind else {
        panic!()
    };
    assert_eq!(t.size_params[&g.body.id].len(), 1);
}

#[test]
fn loops() {
    assert_eq!(
        ty_of(
            "def h [n] (cs: [n]f64) (x: f64) : f64 = loop acc = 0 for c in cs do acc * x + c",
            "h"
        ),
        "[n]f64 -> f64 -> f64"
    );
    assert_eq!(
        ty_of(
            "def c (n: i64) = let (_, s) = loop (m, s) = (n, 0) while m != 1 do \
             (if m % 2 == 0 then m / 2 else 3 * m + 1, s + 1) in s",
            "c"
        ),
        "i64 -> i32"
    );
    assert_eq!(
        ty_of(
            "def r [n] (xs: [n]f32) : [n]f32 = loop ys = copy xs for i < n - 1 do ys with [i + 1] = f32.max ys[i] ys[i + 1]",
            "r"
        ),
        "[n]f32 -> [n]f32"
    );
    assert_eq!(
        ty_of(
            "def t [n] (xs: [n]f64) = loop ys = copy xs for i < n do ys with [i] = 1",
            "t"
        ),
        "[n]f64 -> [n]f64"
    );
    assert_eq!(
        ty_of(
            "def u (xs: []i32) = loop acc = [] for x in xs do acc ++ [x]",
            "u"
        ),
        "[n]i32 -> []i32"
    );
    assert_eq!(
        ty_of("def v (x: f64) = loop x for i < 10i32 do x * 2", "v"),
        "f64 -> f64"
    );
    assert_eq!(
        err_line("def f = loop x = 0 for i < 10 do true"),
        "test.fut:1:34: the loop body must return the type of the loop parameters"
    );
    assert_eq!(
        err_line("def f = loop g = (\\(x: i32) -> x) for i < 10 do g"),
        "test.fut:1:14: loop parameters cannot be functions"
    );
}

#[test]
fn ascriptions_and_coercions() {
    assert_eq!(
        ty_of("def f (xs: []f64) = filter (> 0) xs :> [3]f64", "f"),
        "[n]f64 -> [3]f64"
    );
    assert_eq!(ty_of("def f = (1 : i64)", "f"), "i64");
    assert_eq!(
        err_line("def f (x: i32) = x : f64"),
        "test.fut:1:18: the expression does not have the ascribed type"
    );
    assert_eq!(
        err_line("def f (xs: []f64) = xs :> [3]i32"),
        "test.fut:1:21: a size coercion may change only sizes"
    );
}

#[test]
fn assert_needs_bool() {
    assert_eq!(
        ty_of("def f (x: f64) = assert (x > 0) (f64.sqrt x)", "f"),
        "f64 -> f64"
    );
    assert_eq!(
        err_line("def f (x: f64) = assert x x"),
        "test.fut:1:25: the condition of `assert` must be a `bool`"
    );
}

#[test]
fn automatic_differentiation_operators() {
    assert_eq!(
        ty_of("def d = jvp (\\t -> t * t * t + 2 * t) 2.0 1", "d"),
        "f64"
    );
    assert_eq!(
        ty_of(
            "def g [n] (w: [n]f64) (x: [n]f64) = vjp (\\v -> f64.sum (map2 (*) w v)) x 1",
            "g"
        ),
        "[n]f64 -> [n]f64 -> [n]f64"
    );
    assert_eq!(
        ty_of("def f (x: f64) = x * x\nentry gr = vjp f", "gr"),
        "f64 -> f64 -> f64"
    );
    assert_eq!(
        ty_of(
            "def sq [n] (v: [n]f64) = map (\\t -> t * t) v\n\
               def j [n] (x: [n]f64) = jmp sq x (tabulate n (\\i -> tabulate n (\\j -> f64.bool (i == j))))",
            "j"
        ),
        "[n]f64 -> [n][n]f64"
    );
}

#[test]
fn entry_points() {
    let (_, t) =
        ok("entry a (x: f64) (y: *[]i32) = (x, y)\ndef main = 1\nentry b = vjp (\\(x: f32) -> x)");
    let names: Vec<&str> = t.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["a", "main", "b"]);
    assert_eq!(t.entries[0].params.len(), 2);
    assert_eq!(t.entries[0].unique_params, [false, true]);
    assert_eq!(t.entries[0].ret.to_string(), "(f64, [n]i32)");
    assert_eq!(t.entries[2].params.len(), 2);
    assert_eq!(t.entries[2].ret, Ty::Prim(PrimType::F32));
}

#[test]
fn binders_have_types() {
    assert_eq!(binder_ty("def f (x: f32) = let y = x * 2 in y", "y"), "f32");
    assert_eq!(
        binder_ty("def f = let (a, b) = (1i8, true) in a", "b"),
        "bool"
    );
    assert_eq!(binder_ty("def f [n] (xs: [n]f64) = xs", "xs"), "[n]f64");
}

#[test]
fn let_size_binders() {
    assert_eq!(
        ty_of(
            "def f (xs: []f64) = let [m] (ys: [m]f64) = filter (> 0) xs in replicate m 0f32",
            "f"
        ),
        "[n]f64 -> []f32"
    );
}

#[test]
fn recursion() {
    assert_eq!(
        ty_of(
            "def fact (n: i32) : i32 = if n <= 1 then 1 else n * fact (n - 1)",
            "fact"
        ),
        "i32 -> i32"
    );
}

// ---------------------------------------------------------------------------------------
// Errors

#[test]
fn unknown_names() {
    assert_eq!(
        err_line("def f = frob 1"),
        "test.fut:1:9: unknown name `frob`"
    );
    assert_eq!(err_line("def f = M.x"), "test.fut:1:9: unknown name `M.x`");
    assert_eq!(
        err_line("def f (x: bogus) = x"),
        "test.fut:1:11: unknown type `bogus`"
    );
    assert_eq!(
        err_line("def f = 1 <+> 2"),
        "test.fut:1:11: unknown operator `<+>`"
    );
    assert_eq!(
        err_line("def f = g 1\ndef g x = x"),
        "test.fut:1:9: unknown name `g`"
    );
}

#[test]
fn application_errors() {
    assert_eq!(
        err_line("def f (x: i32) = x 1"),
        "test.fut:1:18: cannot apply a non-function"
    );
    assert_eq!(
        err_line("def f = f64.sqrt 1 2"),
        "test.fut:1:20: too many arguments: `f64.sqrt` takes 1 argument(s) here"
    );
    assert_eq!(
        err_line("def g (x: i32) (y: bool) = x\ndef f = g 1 2"),
        "test.fut:2:13: argument 2 of `g` has the wrong type"
    );
}

#[test]
fn branch_and_condition_errors() {
    assert_eq!(
        err_line("def f = if true then 1 else true"),
        "test.fut:1:29: `if` and `else` have different types"
    );
    assert_eq!(
        err_line("def f = if 1 then 1 else 2"),
        "test.fut:1:12: the condition of `if` must be a `bool`"
    );
}

#[test]
fn no_implicit_conversion() {
    assert_eq!(
        err_line("def f (x: f32) (y: f64) = x + y"),
        "test.fut:1:31: the right operand of `+` has the wrong type"
    );
    assert_eq!(
        err_line("def f (x: i32) : f64 = x"),
        "test.fut:1:24: the body does not have the declared return type"
    );
}

#[test]
fn rigid_type_parameters() {
    assert_eq!(
        err_line("def f 't (x: t) = x + x"),
        "test.fut:1:19: the left operand of `+` has the wrong type"
    );
    assert_eq!(
        err_line("def f 'a 'b (x: a) : b = x"),
        "test.fut:1:26: the body does not have the declared return type"
    );
}

#[test]
fn functions_as_values_restrictions() {
    assert_eq!(
        err_line("def f = [\\(x: i32) -> x]"),
        "test.fut:1:9: arrays of functions are not allowed"
    );
    assert_eq!(
        err_line("def f c = if c then (\\(x: i32) -> x + 1) else (\\x -> x)"),
        "test.fut:1:11: an `if` cannot return a function"
    );
    assert_eq!(
        err_line("def f 't (x: t) = x\ndef g = f (\\(x: i32) -> x)"),
        "test.fut:2:11: argument 1 of `f` has the wrong type"
    );
    assert_eq!(
        ty_of("def f '^t (x: t) = x\ndef g = f (\\(x: i32) -> x)", "g"),
        "i32 -> i32"
    );
    assert_eq!(
        err_line("def f (x: [3](i32 -> i32)) = x"),
        "test.fut:1:11: arrays of functions are not allowed"
    );
    assert_eq!(
        err_line("def f (a: i32 -> i32) (b: i32 -> i32) = a == b"),
        "test.fut:1:41: `==` cannot compare functions"
    );
}

#[test]
fn pattern_errors() {
    assert_eq!(
        err_line("def f (a, a) = a"),
        "test.fut:1:11: `a` is bound twice in the same pattern"
    );
    assert_eq!(
        err_line("def f (x: i32) = let (a, b) = x in a"),
        "test.fut:1:31: the bound value does not match the pattern"
    );
}

#[test]
fn uniqueness() {
    assert_eq!(
        err_line("def f (xs: []i32) = xs with [0] = 1"),
        "test.fut:1:21: cannot consume `xs`: it is a parameter that is not declared unique"
    );
    assert_eq!(
        err_line("def f (xs: *[]i32) = let ys = xs with [0] = 1 in xs[0] + ys[0]"),
        "test.fut:1:50: `xs` is used after being consumed"
    );
    assert_eq!(
        err_line("def f (xs: []i32) = scatter xs [0] [1]"),
        "test.fut:1:29: cannot consume `xs`: it is a parameter that is not declared unique"
    );
    assert_eq!(
        ty_of("def f (xs: *[]i32) = let xs = xs with [0] = 1 in xs", "f"),
        "[n]i32 -> [n]i32"
    );
    assert_eq!(
        err_line("def f (n: i64) = let xs = iota n in map (\\i -> (xs with [i] = 0)[0]) xs"),
        "test.fut:1:49: cannot consume `xs` here: it is bound outside this lambda, loop or local function"
    );
    assert_eq!(
        err_line(
            "def f (n: i64) = let xs = iota n in loop a = 0 for i < n do a + (xs with [i] = 0)[0]"
        ),
        "test.fut:1:66: cannot consume `xs` here: it is bound outside this lambda, loop or local function"
    );
    assert_eq!(
        ty_of(
            "def f (n: i64) = let xs = iota n in loop xs for i < n do xs with [i] = 0",
            "f"
        ),
        "i64 -> [n]i64"
    );
    assert_eq!(
        err_line("def f (xs: []i32) = let ys = xs in ys with [0] = 1"),
        "test.fut:1:36: cannot consume `ys`: it aliases a parameter that is not declared unique"
    );
    assert_eq!(
        err_line(
            "def f (xss: *[][]i32) = let r = xss[0] let yss = xss with [1] = r in r[0] + yss[0, 0]"
        ),
        "test.fut:1:70: `r` is used after being consumed"
    );
    assert_eq!(
        ty_of(
            "def f (xss: *[][]i32) = let x = xss[0, 0] let yss = xss with [1, 1] = x in x + yss[0, 0]",
            "f"
        ),
        "[n][m]i32 -> i32"
    );
    assert_eq!(
        err_line("def f (xs: []i32) = loop ys = xs for i < 3 do ys with [i] = 0"),
        "test.fut:1:31: cannot consume `xs`: it is a parameter that is not declared unique"
    );
    assert_eq!(
        err_line(
            "def f (n: i64) = let xs = iota n let ys = loop (a, b) = (xs, 0) for i < n do (a with [i] = 0, b) in xs"
        ),
        "test.fut:1:101: `xs` is used after being consumed"
    );
    assert_eq!(
        ty_of(
            "def f (c: bool) (xs: *[]i32) = if c then xs with [0] = 1 else xs",
            "f"
        ),
        "bool -> [n]i32 -> [n]i32"
    );
}

#[test]
fn limitations() {
    assert_eq!(
        err_line("module type T = {}"),
        "test.fut:1:13: not supported yet: module types"
    );
    assert_eq!(
        err_line("import \"foo\""),
        "test.fut:1:8: not supported yet: `import`"
    );
    assert_eq!(
        err_line("module F (X: {}) = {}"),
        "test.fut:1:10: not supported yet: parametric modules"
    );
}

#[test]
fn sum_types() {
    // A constructor's type is a sum with at least that constructor; what is left open when
    // the declaration is finished is closed to exactly the constructors used.
    assert_eq!(ty_of("def f = #red", "f"), "#red");
    assert_eq!(
        ty_of("def f (b: bool) = if b then #red else #green 1i32", "f"),
        "bool -> #green i32 | #red"
    );
    assert_eq!(
        ty_of("def f x = match x case #a -> 1i32 case #b y -> y", "f"),
        "(#a | #b i32) -> i32"
    );
    let opt = "type opt 'a = #none | #some a
";
    assert_eq!(
        ty_of(
            &format!(
                "{opt}def get 'a (d: a) (o: opt a) = match o case #some x -> x case #none -> d"
            ),
            "get"
        ),
        "a -> (#none | #some a) -> a"
    );
    assert_eq!(
        ty_of(
            &format!("{opt}def xs : [2]opt f64 = [#none, #some 1]"),
            "xs"
        ),
        "[2](#none | #some f64)"
    );
    assert_eq!(
        ty_of("def f (x: #a | #b) (y: #b | #a) = x == y", "f"),
        "(#a | #b) -> (#a | #b) -> bool"
    );
    assert_eq!(
        ty_of(
            "type w = #w i32 f64
def f (#w a b: w) = (b, a)",
            "f"
        ),
        "(#w i32 f64) -> (f64, i32)"
    );
    assert_eq!(ty_of("def f x = match x case _ -> 1i32", "f"), "a -> i32");
}

#[test]
fn sum_type_errors() {
    let opt = "type opt = #none | #some i32
";
    assert_eq!(
        err_line(&format!(
            "{opt}def f (o: opt) = match o case #some 1 -> 1 case #none -> 0"
        )),
        "test.fut:2:18: the cases of this `match` are not exhaustive: `#some 0` is not matched"
    );
    assert_eq!(
        err_line(&format!(
            "{opt}def f (o: opt) = match o case _ -> 1 case #none -> 0"
        )),
        "test.fut:2:43: unreachable case in `match`"
    );
    assert_eq!(
        err_line(&format!("{opt}def f (o: opt) = let #some x = o in x")),
        "test.fut:2:22: refutable pattern: `#some` is not the only constructor of `#none | #some i32`"
    );
    assert_eq!(
        err_line(&format!("{opt}def f : opt = #some true")),
        "test.fut:2:15: the body does not have the declared return type"
    );
    assert_eq!(
        err_line(&format!("{opt}def f : opt = #other")),
        "test.fut:2:15: the body does not have the declared return type"
    );
    assert_eq!(
        err_line(&format!(
            "{opt}def f (o: opt) = match o case #some -> 1 case _ -> 0"
        )),
        "test.fut:2:31: this pattern does not match the type of the value being matched"
    );
    assert_eq!(
        err_line("type t = #a | #a i32"),
        "test.fut:1:15: constructor `#a` appears twice in this sum type"
    );
    assert_eq!(
        err_line("def f (x: i32) = let 1 = x in x"),
        "test.fut:1:22: refutable pattern: literals may appear only in `case`"
    );
    assert_eq!(
        err_line("def f (x: i32) = match x case 1 -> 1f32 case _ -> true"),
        "test.fut:1:51: the cases of this `match` have different types"
    );
    assert_eq!(
        err_line("def f (x: i32) = match x case 1 -> f64.sin case _ -> f64.cos"),
        "test.fut:1:18: a `match` cannot return a function"
    );
    assert_eq!(
        err_line("def f (x: u8) = match x case 256 -> 1 case _ -> 0"),
        "test.fut:1:30: integer literal does not fit in type `u8`"
    );
    assert_eq!(
        err_line("def f = #a 1 + 2"),
        "test.fut:1:9: the left operand of `+` has the wrong type"
    );
}

#[test]
fn entry_points_may_not_be_polymorphic() {
    assert_eq!(
        err_line("entry f x = x"),
        "test.fut:1:7: entry point `f` must not be polymorphic"
    );
    assert_eq!(
        ty_of("entry f [n] (xs: [n]f64) = xs", "f"),
        "[n]f64 -> [n]f64"
    );
}

#[test]
fn size_dependent_parameters() {
    let src = "def f (n: i64) : [n]f64 = replicate n 0\ndef g = f 3\ndef h (k: i64) = f (k * 2)";
    assert_eq!(ty_of(src, "f"), "i64 -> [n]f64");
    assert_eq!(ty_of(src, "g"), "[3]f64");
    assert_eq!(ty_of(src, "h"), "i64 -> [k * 2]f64");
    assert_eq!(
        ty_of(
            "def f (n: i64) = replicate n 0f32\ndef g = map f [1, 2]",
            "g"
        ),
        "[2][]f32"
    );
}

#[test]
fn entry_names_may_not_have_primes() {
    assert_eq!(
        err_line("entry f' = 1"),
        "test.fut:1:7: entry point name `f'` must not contain `'`"
    );
}

#[test]
fn deep_let_chains_do_not_overflow() {
    let mut src = String::from("def f (x: i32) =\n");
    for i in 0..3000 {
        src.push_str(&format!("  let x{i} = x + 1\n"));
    }
    src.push_str("  in x");
    assert_eq!(ty_of(&src, "f"), "i32 -> i32");
}

// ---------------------------------------------------------------------------------------
// The typed-stage printer

#[test]
fn printer_shows_schemes_and_binders() {
    let (decs, t) = ok(
        "def f [n] (xs: [n]f64) =\n  let s = f64.sum xs\n  let g x = x * s\n  in map g xs\nentry main = f [1, 2]",
    );
    let text = gradus::types::print_typed(&decs, &t);
    assert_eq!(
        text,
        "def f [n] : [n]f64 -> [n]f64\n  xs : [n]f64\n  let s : f64\n  let g : f64 -> f64\n    x : f64\nentry main : [2]f64\n"
    );
}

// ---------------------------------------------------------------------------------------
// Programs from docs/language.md

const APPENDIX_A: &str = r#"
def dot [n] (a: [n]f64) (b: [n]f64) : f64 = f64.sum (map2 (*) a b)
def sigmoid (z: f64) : f64 = 1 / (1 + f64.exp (-z))
def loss [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) : f64 =
  let ps = map (\xs -> sigmoid (dot xs w)) xss
  let terms = map2 (\p y -> -(y * f64.log p + (1 - y) * f64.log (1 - p))) ps ys
  in f64.sum terms / f64.i64 m
entry loss_at [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) = loss xss ys w
entry grad_rev [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) =
  vjp (loss xss ys) w 1
entry grad_fwd [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) =
  tabulate n (\i -> jvp (loss xss ys) w (replicate n 0 with [i] = 1))
entry hvp [m] [n] (xss: [m][n]f64) (ys: [m]f64) (w: [n]f64) (v: [n]f64) =
  jvp (\w' -> vjp (loss xss ys) w' 1) w v
"#;

#[test]
fn appendix_a() {
    let (_, t) = ok(APPENDIX_A);
    let sigs: Vec<String> = t
        .entries
        .iter()
        .map(|e| {
            let ps: Vec<String> = e.params.iter().map(|p| p.to_string()).collect();
            format!("{}: {} -> {}", e.name, ps.join(", "), e.ret)
        })
        .collect();
    assert_eq!(
        sigs,
        [
            "loss_at: [m][n]f64, [m]f64, [n]f64 -> f64",
            "grad_rev: [m][n]f64, [m]f64, [n]f64 -> [n]f64",
            "grad_fwd: [m][n]f64, [m]f64, [n]f64 -> [n]f64",
            "hvp: [m][n]f64, [m]f64, [n]f64, [n]f64 -> [n]f64",
        ]
    );
}

#[test]
fn section_5_and_10_examples() {
    let src = r#"
def horner [n] (cs: [n]f64) (x: f64) : f64 =
  loop acc = 0 for c in cs do acc * x + c
def collatz (n: i64) : i64 =
  let (_, steps) =
    loop (m, steps) = (n, 0) while m != 1 do
      (if m % 2 == 0 then m / 2 else 3 * m + 1, steps + 1)
  in steps
def running_max [n] (xs: [n]f32) : [n]f32 =
  loop ys = copy xs for i < n - 1 do
    ys with [i + 1] = f32.max ys[i] ys[i + 1]
def hypot3 (x: f64) (y: f64) (z: f64) =
  let xx = x * x
  let yy = y * y
  let zz = z * z
  in f64.sqrt (xx + yy + zz)
entry d_cubic (x: f64) = jvp (\t -> t * t * t + 2 * t) x 1
entry grad_dot [n] (w: [n]f64) (x: [n]f64) =
  vjp (\v -> f64.sum (map2 (*) w v)) x 1
def sq [n] (v: [n]f64) = map (\t -> t * t) v
entry jac_rev [n] (x: [n]f64) = mjp sq x (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j))))
entry jac_fwd [n] (x: [n]f64) = transpose (jmp sq x (tabulate n (\i -> tabulate n (\j -> f64.bool (i == j)))))
entry ints = (jvp (\x -> x * x * x) 3i32 1, jvp (\x -> x * jvp (\y -> x + y) 1 1) 1 1)
entry pairs (x: f64) (y: f64) = (jvp (\(a, b) -> a * b) (x, y) (1, 0), vjp (\(a, _) -> a + 2) (x, y) 1)
entry hist1 = hist (+) 0 3 [0, 2, 2, 5] [1.0, 2.0, 3.0, 4.0]
entry scat = scatter (replicate 4 0) [1, 3, 9] [10, 30, 90]
entry ranges = (1...4, 0..2..<7, 5..3...0, 4..>1, 3..<3)
entry loop_acc [n] (k: i64) (xs: [n]f64) =
  loop (acc: *[n]f64) = replicate n 0 for i < k do acc with [i % n] = acc[i % n] + xs[i % n]
entry unflat [n] [m] [k] (xs: [n * (m * k)]f64) : [n][m][k]f64 =
  unflatten xs |> map unflatten
entry existential (xs: []f64) = let [k] (ys: [k]f64) = filter (> 0) xs in (k, ys)
entry attrs (xs: []f64) = #[unsafe] #[sequential] map (\x -> x + 1) xs
entry records = let r = {f = \(x: f64) -> x * 2, g = 3f64} in r.f r.g
entry local_open (x: f32) = f32.(sqrt (x * x + 1) + pi)
"#;
    let (_, t) = ok(src);
    let find = |n: &str| {
        t.entries
            .iter()
            .find(|e| e.name == n)
            .unwrap()
            .ret
            .to_string()
    };
    assert_eq!(find("ints"), "(i32, i32)");
    assert_eq!(find("pairs"), "(f64, (f64, f64))");
    assert_eq!(find("hist1"), "[3]f64");
    assert_eq!(find("scat"), "[4]i32");
    assert_eq!(find("ranges"), "([]i32, []i32, []i32, []i32, []i32)");
    assert_eq!(find("loop_acc"), "[n]f64");
    assert_eq!(find("unflat"), "[n][m][k]f64");
    assert_eq!(find("existential"), "(i64, []f64)");
    assert_eq!(find("records"), "f64");
    assert_eq!(find("local_open"), "f32");
}

#[test]
fn modules_example_without_functors() {
    let src = r#"
module poly64 = {
  type t = f64
  def zero = 0f64
  def eval [n] (cs: [n]t) (x: t) : t =
    loop acc = zero for c in reverse cs do acc * x + c
}
module vec2 = {
  type v = {x: f64, y: f64}
  def (+) (a: v) (b: v) : v = {x = a.x f64.+ b.x, y = a.y f64.+ b.y}
  def scale (s: f64) (a: v) : v = {x = s * a.x, y = s * a.y}
}
entry p (x: f64) = poly64.eval [1, 2, 3] x
entry q (a: vec2.v) = vec2.(a + scale 2 a)
entry r (a: vec2.v) = a vec2.+ a
"#;
    let (_, t) = ok(src);
    assert_eq!(t.entries[1].ret.to_string(), "{x: f64, y: f64}");
}
