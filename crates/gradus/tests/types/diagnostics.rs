//! Rendered type-checker diagnostics, caret lines included (insta snapshots in
//! `tests/types/snapshots/`).

use crate::common::err_render;

macro_rules! diag_snapshot {
    ($name:ident, $src:expr) => {
        #[test]
        fn $name() {
            let rendered = err_render($src);
            insta::with_settings!({snapshot_path => "snapshots", prepend_module_to_snapshot => false, description => $src}, {
                insta::assert_snapshot!(stringify!($name), rendered);
            });
        }
    };
}

diag_snapshot!(unknown_name, "def f (x: i32) = x + frob");
diag_snapshot!(unknown_type, "def f (x: vector) = x");
diag_snapshot!(mixed_float_types, "def f (x: f32) (y: f64) = x + y");
diag_snapshot!(bool_is_not_numeric, "def f = 1 + true");
diag_snapshot!(wrong_return_type, "def f (x: i32) : f64 =\n  x * 2");
diag_snapshot!(
    wrong_argument,
    "def g (x: i32) (y: bool) = x\ndef f = g 1 2"
);
diag_snapshot!(not_a_function, "def f (x: f64) = x 1");
diag_snapshot!(too_many_arguments, "def f = f64.sqrt 2 3");
diag_snapshot!(
    if_branches_differ,
    "def f (c: bool) = if c then [1f32] else [true]"
);
diag_snapshot!(
    if_returns_function,
    "def f (c: bool) = if c then f64.sin else f64.cos"
);
diag_snapshot!(field_of_unknown_type, "def norm p = f64.sqrt (p.x * p.x)");
diag_snapshot!(missing_field, "def f (p: {x: f64}) = p.y");
diag_snapshot!(too_many_indices, "def f (xs: [3]f64) = xs[0, 1]");
diag_snapshot!(literal_out_of_range, "def f : i8 = 200");
diag_snapshot!(unflatten_size_unknown, "def f (xs: []f64) = unflatten xs");
diag_snapshot!(
    consumed_twice,
    "def f (xs: *[]f64) =\n  let a = xs with [0] = 1\n  in a[0] + xs[0]"
);
diag_snapshot!(consume_non_unique, "def f (xs: []f64) = xs with [0] = 1");
diag_snapshot!(rigid_type_parameter, "def f 't (x: t) : i32 = x");
diag_snapshot!(array_of_functions, "def f = [f64.sin, f64.cos]");
diag_snapshot!(
    loop_type_changes,
    "def f (n: i64) = loop x = 0f32 for i < n do i"
);
diag_snapshot!(parametric_module, "module F (X: {}) = {}");
diag_snapshot!(
    match_not_exhaustive,
    "type opt = #none | #some (i32, bool)\ndef f (o: opt) =\n  match o\n  case #some (0, _) -> 1\n  case #some (_, true) -> 2\n  case #none -> 3"
);
diag_snapshot!(
    constructor_arity,
    "type opt = #none | #some i32\ndef f (o: opt) = match o case #some -> 1 case _ -> 0"
);
