//! The text form of core IR: printing, parsing, round trips and renumbering.

use gradus::core::parse::parse_prog;
use gradus::core::print::print_prog;
use gradus::core::renumber::renumber;
use std::path::Path;

fn inputs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/core_ir");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Parses, checks that printing and re-parsing is stable, and returns the renumbered print.
fn round_trip(name: &str, text: &str) -> String {
    let prog = parse_prog(text).unwrap_or_else(|d| panic!("{name}: {d:?}"));
    let printed = print_prog(&prog);
    let again = parse_prog(&printed).unwrap_or_else(|d| panic!("{name} reprint: {d:?}\n{printed}"));
    assert_eq!(printed, print_prog(&again), "{name}: parse(print(p)) != p");
    // Debug strings rather than `==`, which fails on NaN constants.
    assert_eq!(
        format!("{:?}", prog.funs),
        format!("{:?}", again.funs),
        "{name}: functions differ after a round trip"
    );
    assert_eq!(gradus::core::parse::check_round_trip(&prog), Ok(()));
    let dense = renumber(&prog);
    let dense_printed = print_prog(&dense);
    let dense_again = parse_prog(&dense_printed).unwrap();
    assert_eq!(dense_printed, print_prog(&dense_again));
    assert_eq!(
        dense_printed,
        print_prog(&renumber(&dense)),
        "{name}: renumber is not idempotent"
    );
    dense_printed
}

#[test]
fn snapshots_round_trip() {
    for (name, text) in inputs() {
        let printed = round_trip(&name, &text);
        insta::assert_snapshot!(format!("print_{name}"), printed);
    }
}

#[test]
fn snapshot_inputs_verify() {
    for (name, text) in inputs() {
        let prog = parse_prog(&text).unwrap();
        if let Err(e) = gradus::core::verify::verify(&prog) {
            panic!("{name}: {e}");
        }
    }
}
