//! Module elimination's errors and limitations (docs/language.md §Modules): each is reported at its
//! location, never as an internal error; programs that use modules correctly are in
//! `tests/programs/language`.

use gradus::program::Program;
use gradus::value::{Scalar, Value};
use std::path::PathBuf;

/// The first diagnostic of compiling `src` as `test.fut`, on one line.
fn err(src: &str) -> String {
    match Program::from_source("test.fut", src) {
        Ok(_) => panic!("expected an error for:\n{src}"),
        Err(d) => d.one_line(),
    }
}

/// A fresh directory holding `files` (name, text); returns its path.
fn files(test: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gradus-modules-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, text) in files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn compile_main(dir: &std::path::Path) -> Result<Program, String> {
    Program::from_file(&dir.join("main.fut")).map_err(|d| d.one_line())
}

#[test]
fn ascription_needs_every_specified_member() {
    assert_eq!(
        err("module type T = { type t val f : t -> t val g : i32 }\n\
             module M : T = { type t = i32 def f (x: i32) = x + 1 }"),
        "test.fut:2:8: module `M` does not provide the value `g` that its module type specifies"
    );
    assert_eq!(
        err("module type T = { type t }\nmodule M = { def x = 1i32 } : T"),
        "test.fut:2:12: this module does not provide the type `t` that its module type specifies"
    );
}

#[test]
fn ascription_hides_and_checks_types() {
    assert_eq!(
        err("module type T = { val g : i32 }\n\
             module M : T = { def g = 1i32 def h = 2i32 }\n\
             entry main = M.h"),
        "test.fut:3:14: module `M` has no member `h`"
    );
    let e = err("module type T = { val g : i32 }\n\
                 module M : T = { def g = 1.0f64 }\n\
                 entry main = M.g");
    assert!(e.starts_with("test.fut:1:19:"), "{e}");
}

#[test]
fn arguments_need_what_their_parameters_specify() {
    assert_eq!(
        err("module type T = { val g : i32 }\n\
             module F (X: T) = { def h = X.g + 1 }\n\
             module A = F { def k = 1i32 }"),
        "test.fut:3:14: the argument for parameter `X` of `F` does not provide the value `g` \
         that its module type specifies"
    );
    assert_eq!(
        err("module F (X: {}) (Y: {}) = {}\nmodule A = F {} {} {}"),
        "test.fut:2:12: `F` takes 2 module argument(s), given 3"
    );
    assert_eq!(
        err("module M = { def x = 1i32 }\nmodule A = M M"),
        "test.fut:2:12: `M` is not a parametric module"
    );
    assert_eq!(
        err("module A = G {}"),
        "test.fut:1:12: unknown parametric module `G`"
    );
}

#[test]
fn unknown_module_types() {
    assert_eq!(
        err("module M : S = { def k = 1i32 }"),
        "test.fut:1:12: unknown module type `S`"
    );
    assert_eq!(
        err("module type T = { type t }\nmodule M = T"),
        "test.fut:2:12: `T` is a module type, not a module"
    );
}

#[test]
fn higher_order_modules_are_limitations() {
    assert_eq!(
        err("module F (X: {}) = {}\nmodule B = F"),
        "test.fut:2:12: not supported yet: parametric module `F` used without all its arguments"
    );
    assert_eq!(
        err("module F (X: {}) (Y: {}) = {}\nmodule B = F {}"),
        "test.fut:2:12: not supported yet: partial application of a parametric module: `F` \
         takes 2 module argument(s), given 1"
    );
    assert_eq!(
        err("module type T = {}\nmodule type H = (X: T) -> T\nmodule M : H = {}"),
        "test.fut:2:17: not supported yet: higher-order modules (module types of parametric modules)"
    );
    // A parametric module is not in scope in its own body.
    assert_eq!(
        err("module F (X: {}) = F X\nmodule A = F {}"),
        "test.fut:1:20: unknown parametric module `F`"
    );
}

#[test]
fn import_errors() {
    assert_eq!(
        err("import \"nothere\""),
        "test.fut:1:8: cannot find the imported file `nothere`"
    );
    let dir = files(
        "cycle",
        &[
            ("main.fut", "import \"a\""),
            ("a.fut", "import \"sub/b\""),
            ("sub/b.fut", "import \"../a\""),
        ],
    );
    let e = compile_main(&dir).err().unwrap();
    assert!(
        e.ends_with("sub/b.fut:1:8: `../a` imports itself (an import cycle)"),
        "{e}"
    );
    let dir = files(
        "syntax",
        &[("main.fut", "import \"a\""), ("a.fut", "def x = = 1")],
    );
    let e = compile_main(&dir).err().unwrap();
    assert!(e.contains("a.fut:1:9:"), "{e}");
}

#[test]
fn a_file_imported_twice_is_one_module() {
    // `b` imports `a`; `main` imports both and uses the constant of `a` through each.
    let dir = files(
        "twice",
        &[
            (
                "main.fut",
                "import \"a\"\nimport \"b\"\nmodule A = import \"a\"\nentry main = (x, y, A.x)",
            ),
            ("a.fut", "def x = 1i32"),
            ("b.fut", "import \"a\"\ndef y = x + 1"),
        ],
    );
    let p = compile_main(&dir).unwrap();
    let r = p.call("main", vec![]).unwrap();
    assert_eq!(
        r,
        vec![
            Value::Scalar(Scalar::I32(1)),
            Value::Scalar(Scalar::I32(2)),
            Value::Scalar(Scalar::I32(1))
        ]
    );
    // `import` does not re-export: `main` does not see `a` through `b`.
    let dir = files(
        "no-reexport",
        &[
            ("main.fut", "import \"b\"\nentry main = x"),
            ("a.fut", "def x = 1i32"),
            ("b.fut", "import \"a\"\ndef y = x + 1"),
        ],
    );
    let e = compile_main(&dir).err().unwrap();
    assert!(e.ends_with("main.fut:2:14: unknown name `x`"), "{e}");
}
