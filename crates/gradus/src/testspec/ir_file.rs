//! Pass file tests (docs/internals.md §Pass file tests): an `.ir` file holds core IR, the
//! optimiser passes to run on it, the rules that must (or must not) fire, checks on the
//! result and the expected printed result.
//!
//! ```text
//! -- What the test shows (any comment that is not a directive).
//! -- passes: fold, copy-prop      the passes to run (`all`: the whole optimiser)
//! -- float: strict                the float policy (`fast`, the default, or `strict`)
//! -- fires: mul-zero              rules that must fire
//! -- not-fired: map-unroll        rules that must not fire
//! -- contains: TEXT               the output contains TEXT ("TEXT" keeps spaces at its ends)
//! -- absent: TEXT                 the output does not contain TEXT
//! -- count: N TEXT                TEXT occurs exactly N times in the output
//! -- before: A | B                A occurs, and first occurs before B's first occurrence (B must occur)
//! -- line: N TEXT                 line N (from 0) of the output contains TEXT
//! fun f (...) : ... { ... }
//! -- output:
//! fun f (...) : ... { ... }
//! ```
//!
//! Directives are the `--` comment lines before the first line of IR. Everything before the
//! line `-- output:` is the input (the directives are comments to the IR parser, so the input
//! is a valid `.ir` file on its own); everything after it is the expected output, the printed
//! and renumbered result. A file whose header says `-- output: none` has no expected output
//! and is checked by its directives only (for the runs of the whole optimiser, whose exact
//! output changes with every pass). [`parse_ir_test`] reads a file; [`run_ir_test`] runs it
//! and lists what failed; [`blessed`] rewrites a file with a new expected output.
//!
//! Running: the input is parsed and verified, the optimiser runs with only the named passes
//! (plus `dce` and `simplify`, which clean up and drive the local rules; see
//! [`crate::pipeline::passes::options_running_only`]), and the result must verify and parse
//! back. Never panics on a malformed file: errors carry the line.

use super::SpecError;
use crate::core::ir::Prog;
use crate::diag::SourceMap;
use crate::opt::Stats;
use std::collections::BTreeMap;

/// The line that starts the expected output.
pub const OUTPUT_MARKER: &str = "-- output:";

/// One check on the printed output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The output contains the text.
    Contains(String),
    /// The output does not contain the text.
    Absent(String),
    /// The text occurs exactly this often.
    Count(usize, String),
    /// Both occur, and the first occurs first.
    Before(String, String),
    /// The line (from 0) contains the text.
    Line(usize, String),
}

/// What the output is compared with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExpectedOutput {
    /// No `-- output:` section yet: the test fails until it is blessed.
    Missing,
    /// `-- output: none`: not compared.
    NotCompared,
    /// The expected printed output.
    Text(String),
}

/// A parsed pass file test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IrTest {
    /// The optimiser passes to run; `["all"]` for the whole optimiser.
    pub passes: Vec<String>,
    /// The strict float policy (`-- float: strict`).
    pub strict_float: bool,
    /// Rules that must fire.
    pub fires: Vec<String>,
    /// Rules that must not fire.
    pub not_fired: Vec<String>,
    /// Checks on the output, with their 1-based lines.
    pub checks: Vec<(usize, Check)>,
    /// The input: the text before the output marker.
    pub input: String,
    /// The expected output.
    pub expected: ExpectedOutput,
}

/// The text of a file before its output marker: the input IR with its directives.
pub fn input_part(text: &str) -> &str {
    match marker_offset(text) {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Byte offset of the output marker's line.
fn marker_offset(text: &str) -> Option<usize> {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end() == OUTPUT_MARKER {
            return Some(at);
        }
        at += line.len();
    }
    None
}

/// Reads a pass file test.
pub fn parse_ir_test(text: &str) -> Result<IrTest, SpecError> {
    let input = input_part(text);
    let mut test = IrTest {
        passes: Vec::new(),
        strict_float: false,
        fires: Vec::new(),
        not_fired: Vec::new(),
        checks: Vec::new(),
        input: input.to_string(),
        expected: ExpectedOutput::Missing,
    };
    for (i, line) in input.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let Some(comment) = t.strip_prefix("--") else {
            break;
        };
        let Some((key, value)) = comment.trim().split_once(':') else {
            continue;
        };
        directive(&mut test, i + 1, key.trim(), value.trim())?;
    }
    if test.passes.is_empty() {
        return Err(SpecError {
            line: 1,
            message: "no `-- passes:` line before the IR".into(),
        });
    }
    if let Some(at) = marker_offset(text) {
        let after = &text[at..];
        let body = after.split_once('\n').map_or("", |(_, b)| b);
        if test.expected != ExpectedOutput::NotCompared {
            test.expected = ExpectedOutput::Text(body.trim().to_string());
        }
    }
    Ok(test)
}

/// A comma-separated list of names.
fn names(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// A text of a check: in double quotes when its spaces at either end matter.
fn unquote(s: &str) -> String {
    match s.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(inner) => inner.to_string(),
        None => s.to_string(),
    }
}

/// Applies one `-- key: value` line of the header; comments that are not directives are
/// descriptions.
fn directive(test: &mut IrTest, line: usize, key: &str, value: &str) -> Result<(), SpecError> {
    let err = |message: String| SpecError { line, message };
    let text = || {
        if value.is_empty() {
            Err(err(format!("`{key}:` needs a text")))
        } else {
            Ok(unquote(value))
        }
    };
    let check = match key {
        "passes" => {
            test.passes = names(value);
            return Ok(());
        }
        "float" => {
            test.strict_float = match value {
                "strict" => true,
                "fast" => false,
                _ => {
                    return Err(err(format!(
                        "`float:` is `strict` or `fast`, not `{value}`"
                    )));
                }
            };
            return Ok(());
        }
        "fires" => {
            test.fires.extend(names(value));
            return Ok(());
        }
        "not-fired" => {
            test.not_fired.extend(names(value));
            return Ok(());
        }
        "output" if value == "none" => {
            test.expected = ExpectedOutput::NotCompared;
            return Ok(());
        }
        "contains" => Check::Contains(text()?),
        "absent" => Check::Absent(text()?),
        "count" | "line" => {
            let Some((n, rest)) = value.split_once(' ') else {
                return Err(err(format!("`{key}:` needs a number and a text")));
            };
            let Ok(n) = n.parse::<usize>() else {
                return Err(err(format!("`{key}:` needs a number first, not `{n}`")));
            };
            if key == "count" {
                Check::Count(n, unquote(rest.trim()))
            } else {
                Check::Line(n, unquote(rest.trim()))
            }
        }
        "before" => match value.split_once(" | ") {
            Some((a, b)) if !a.trim().is_empty() && !b.trim().is_empty() => {
                Check::Before(unquote(a.trim()), unquote(b.trim()))
            }
            _ => return Err(err("`before:` needs two texts separated by ` | `".into())),
        },
        _ => return Ok(()),
    };
    test.checks.push((line, check));
    Ok(())
}

/// Parses and verifies core IR from a file; errors are rendered with the file's name and the
/// location.
pub fn parse_verified(path: &str, text: &str) -> Result<Prog, String> {
    let mut sources = SourceMap::new();
    let file = sources.add(path, text);
    let prog = crate::core::parse::parse_prog_in(file, text).map_err(|d| d.render(&sources))?;
    crate::core::verify::verify(&prog).map_err(|e| format!("{path}: the input IR: {e}"))?;
    Ok(prog)
}

/// What running a test gave.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The printed, renumbered result.
    pub output: String,
    /// The rules that fired and how often.
    pub fired: BTreeMap<&'static str, usize>,
    /// One line per failed expectation; empty if the test passed.
    pub failures: Vec<String>,
}

/// Runs the named optimiser passes on `prog` (`["all"]`: the whole optimiser); the result is
/// verified. An unknown pass name is an error.
pub fn run_passes(prog: Prog, passes: &[String], strict: bool) -> Result<(Prog, Stats), String> {
    let names: Vec<&str> = passes.iter().map(String::as_str).collect();
    let opts = crate::pipeline::passes::options_running_only(&names, strict)?;
    let (out, stats) = crate::pipeline::optimise(prog, &opts)?;
    crate::core::verify::verify(&out).map_err(|e| {
        format!(
            "the result does not verify: {e}\n{}",
            crate::core::print::print_prog(&out)
        )
    })?;
    Ok((out, stats))
}

/// Runs a test read from `path`; `Err` when it cannot run at all (bad input IR, unknown
/// pass, a result that does not verify).
pub fn run_ir_test(path: &str, test: &IrTest) -> Result<Outcome, String> {
    let prog = parse_verified(path, &test.input)?;
    let (out, stats) = run_passes(prog, &test.passes, test.strict_float)?;
    let output = crate::core::print::print_prog(&crate::core::renumber::renumber(&out));
    let mut failures = Vec::new();
    match crate::core::parse::parse_prog(&output) {
        Err(d) => failures.push(format!("the output does not parse back: {}", d.message)),
        Ok(p) => {
            if let Err(e) = crate::core::verify::verify(&p) {
                failures.push(format!("the output parsed back does not verify: {e}"));
            }
        }
    }
    for rule in &test.fires {
        if !stats.rules.contains_key(rule.as_str()) {
            failures.push(format!("rule `{rule}` did not fire"));
        }
    }
    for rule in &test.not_fired {
        if stats.rules.contains_key(rule.as_str()) {
            failures.push(format!("rule `{rule}` fired"));
        }
    }
    for (line, check) in &test.checks {
        if !holds(check, &output) {
            failures.push(format!("line {line}: {check:?} does not hold"));
        }
    }
    match &test.expected {
        ExpectedOutput::Missing => failures.push("no expected output (`-- output:`)".into()),
        ExpectedOutput::NotCompared => {}
        ExpectedOutput::Text(want) if want.trim() != output.trim() => {
            failures.push(format!(
                "the output differs from the expected output:\n{}",
                line_diff(want.trim(), output.trim())
            ));
        }
        ExpectedOutput::Text(_) => {}
    }
    Ok(Outcome {
        output,
        fired: stats.rules,
        failures,
    })
}

/// Whether a check holds on `out`.
fn holds(check: &Check, out: &str) -> bool {
    match check {
        Check::Contains(t) => out.contains(t.as_str()),
        Check::Absent(t) => !out.contains(t.as_str()),
        Check::Count(n, t) => out.matches(t.as_str()).count() == *n,
        Check::Before(a, b) => match (out.find(a.as_str()), out.find(b.as_str())) {
            (Some(i), Some(j)) => i < j,
            _ => false,
        },
        Check::Line(n, t) => out.lines().nth(*n).is_some_and(|l| l.contains(t.as_str())),
    }
}

/// The lines of `want` and `got` from the first that differs, marked `-` and `+`.
fn line_diff(want: &str, got: &str) -> String {
    let w: Vec<_> = want.lines().collect();
    let g: Vec<_> = got.lines().collect();
    let first = w.iter().zip(&g).take_while(|(a, b)| a == b).count();
    let mut out = format!("(first difference at output line {})\n", first + 1);
    for l in &w[first..] {
        out.push_str(&format!("- {l}\n"));
    }
    for l in &g[first..] {
        out.push_str(&format!("+ {l}\n"));
    }
    out
}

/// The file `text` with its expected output replaced by `output` (added if it had none);
/// a file with `-- output: none` is returned unchanged.
pub fn blessed(text: &str, test: &IrTest, output: &str) -> String {
    if test.expected == ExpectedOutput::NotCompared {
        return text.to_string();
    }
    let input = input_part(text).trim_end();
    format!("{input}\n\n{OUTPUT_MARKER}\n{}\n", output.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = "-- Ring laws.\n-- passes: fold, copy-prop\n-- fires: mul-zero\n\
        -- absent: mul_f64\n-- count: 1 3i64\nfun f (x_0: f64, k_1: i64) : (f64, i64) {\n\
        \x20 let c_2: i64 = mul_i64(k_1, 0i64)\n  let d_3: i64 = add_i64(c_2, 3i64)\n\
        \x20 let a_4: f64 = mul_f64(x_0, 1.0f64)\n  in a_4, d_3\n}\n";

    #[test]
    fn a_file_without_output_fails_until_blessed() {
        let test = parse_ir_test(FILE).unwrap();
        assert_eq!(test.passes, ["fold", "copy-prop"]);
        let out = run_ir_test("t.ir", &test).unwrap();
        assert_eq!(out.failures.len(), 1, "{:?}", out.failures);
        let text = blessed(FILE, &test, &out.output);
        let again = parse_ir_test(&text).unwrap();
        assert_eq!(again.input, test.input.trim_end().to_string() + "\n\n");
        let out = run_ir_test("t.ir", &again).unwrap();
        assert!(out.failures.is_empty(), "{:?}", out.failures);
        assert_eq!(blessed(&text, &again, &out.output), text);
    }

    #[test]
    fn a_corrupted_expectation_fails() {
        let test = parse_ir_test(FILE).unwrap();
        let out = run_ir_test("t.ir", &test).unwrap();
        let good = blessed(FILE, &test, &out.output);
        for (from, to) in [
            ("x_0, 3i64 }", "x_0, 4i64 }"),
            ("fires: mul-zero", "fires: map-map"),
            ("absent: mul_f64", "absent: x_0"),
            ("count: 1 3i64", "count: 2 3i64"),
        ] {
            let bad = good.replacen(from, to, 1);
            assert_ne!(bad, good, "{from}");
            let test = parse_ir_test(&bad).unwrap();
            let out = run_ir_test("t.ir", &test).unwrap();
            assert!(!out.failures.is_empty(), "{from} -> {to}");
        }
    }

    #[test]
    fn malformed_files_are_located_errors() {
        let e = parse_ir_test("fun f (x_0: f64) : f64 { in x_0 }").unwrap_err();
        assert!(e.message.contains("passes"), "{e}");
        let e = parse_ir_test("-- passes: fold\n-- count: x y\nfun").unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse_ir_test("-- passes: fold\n-- float: loose\n").unwrap_err();
        assert_eq!(e.line, 2);
        let test = parse_ir_test("-- passes: nope\nfun f (x_0: f64) : f64 { in x_0 }").unwrap();
        assert!(run_ir_test("t.ir", &test).unwrap_err().contains("nope"));
        let test = parse_ir_test("-- passes: fold\nfun f ( : f64 { in x_0 }").unwrap();
        assert!(run_ir_test("t.ir", &test).unwrap_err().contains("t.ir"));
    }
}
