//! One compile-fail case per GR error code (docs/reversible.md §At compile time), with committed
//! stderr. Regenerate the expected output with `TRYBUILD=overwrite` and review the diff.

#[test]
fn compile_fail() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
