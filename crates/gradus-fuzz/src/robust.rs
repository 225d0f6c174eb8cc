//! Robustness fuzzing of the readers: the lexer and parser, the type checker, the core-IR
//! text parser and the value readers must answer every input with a value or an error — no
//! panic, no hang.
//!
//! This is a plain mutation fuzzer on stable Rust, run by `cargo test` and the `gradus-fuzz`
//! binary; the coverage-guided cargo-fuzz targets of `fuzz/` (nightly) run [`run_one`] too.
//! Inputs are seeds (the corpus programs, generated programs, their core IR, values in both
//! formats) mutated at the byte and token level (deletions, duplications, insertions of tokens
//! from a dictionary, splices of two seeds). There is no coverage feedback. Each input runs under `catch_unwind`, and a watchdog
//! thread stops the process and prints the input when one takes longer than the time limit.

use gradus::diag::SourceMap;
use gradus::syntax::ast::{Dec, NodeIdGen};
use rand::Rng;
use rand::seq::IndexedRandom;
use rand_pcg::Pcg64;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// A reader under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Lexer and parser.
    Parse,
    /// Parser and type checker.
    TypeCheck,
    /// The core-IR text parser.
    CoreText,
    /// The value readers (textual, binary, gzip).
    Values,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 4] = [
        Target::Parse,
        Target::TypeCheck,
        Target::CoreText,
        Target::Values,
    ];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Target::Parse => "parse",
            Target::TypeCheck => "typecheck",
            Target::CoreText => "core-text",
            Target::Values => "values",
        }
    }
}

/// The prelude, parsed once, and the node-id counter after it.
fn prelude() -> &'static (Vec<Dec>, NodeIdGen) {
    static P: OnceLock<(Vec<Dec>, NodeIdGen)> = OnceLock::new();
    P.get_or_init(|| {
        let mut sources = SourceMap::new();
        let text = gradus::prelude::source();
        let f = sources.add("<prelude>", text.clone());
        let mut ids = NodeIdGen::new();
        let decs = gradus::syntax::parse_file(f, &text, &mut ids).expect("the prelude parses");
        (decs, ids)
    })
}

/// Runs one input through a target; the result is ignored, only panics and hangs matter.
pub fn run_one(target: Target, input: &[u8]) {
    match target {
        Target::Parse | Target::TypeCheck => {
            let text = String::from_utf8_lossy(input);
            let (decs, ids) = prelude();
            let mut ids = ids.clone();
            let mut sources = SourceMap::new();
            let _ = sources.add("<prelude>", "");
            let f = sources.add("fuzz.fut", text.to_string());
            if let Ok(program) = gradus::syntax::parse_file(f, &text, &mut ids)
                && target == Target::TypeCheck
            {
                let _ = gradus::types::check_program(decs, &program);
            }
        }
        Target::CoreText => {
            // A program that parses may still break the IR's invariants: the verifier must
            // report that, and the printer print it, without panicking.
            if let Ok(prog) = gradus::core::parse::parse_prog(&String::from_utf8_lossy(input)) {
                let _ = gradus::core::verify::verify(&prog);
                let _ = gradus::core::print::print_prog(&prog);
            }
        }
        Target::Values => {
            if let Ok(values) = gradus::data::read_values(input) {
                for v in &values {
                    values_round_trip(v);
                }
            }
        }
    }
}

/// Panics unless `v` reads back from both formats as what was written (docs/language.md §Value
/// formats: text is written so that it reads back to the same value). Compared through the written
/// text, so that NaNs compare equal.
fn values_round_trip(v: &gradus::value::Value) {
    use gradus::data::{read_values, write_binary, write_text};
    let text = write_text(v);
    match read_values(text.as_bytes()).as_deref() {
        Ok([again]) => assert_eq!(write_text(again), text, "text round trip of {text}"),
        other => panic!("the written text {text} reads back as {other:?}"),
    }
    match read_values(&write_binary(v)).as_deref() {
        Ok([again]) => assert_eq!(write_text(again), text, "binary round trip of {text}"),
        other => panic!("the binary form of {text} reads back as {other:?}"),
    }
}

/// Tokens inserted by the mutator.
const DICTIONARY: &[&str] = &[
    "let",
    "in",
    "if",
    "then",
    "else",
    "loop",
    "for",
    "while",
    "do",
    "map",
    "reduce",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "->",
    "\\",
    "=",
    "+",
    "*",
    "/",
    "%",
    "i64",
    "f64",
    "[n]",
    "entry",
    "def",
    "0",
    "-1",
    "1.5",
    "true",
    "x",
    "#[unsafe]",
    "'",
    "\"",
    "..",
    "..<",
    ":>",
    "with",
    "case",
    "match",
    "0x",
    "1e309",
    "9223372036854775808i64",
    "empty([0]f64)",
    "b",
    "\u{1F600}",
    "--",
    "\n",
    " ",
    "stm",
    "res",
    "|>",
    "<|",
    ".0",
    "f32.nan",
];

/// A mutation of `input`, possibly spliced with `other`.
pub fn mutate(rng: &mut Pcg64, input: &[u8], other: &[u8]) -> Vec<u8> {
    let mut v = input.to_vec();
    let rounds = 1 + rng.random_range(0..4);
    for _ in 0..rounds {
        let len = v.len();
        let pos = if len == 0 {
            0
        } else {
            rng.random_range(0..=len)
        };
        match rng.random_range(0..7) {
            0 if len > 0 => {
                let end = (pos + rng.random_range(1..=16)).min(len);
                v.drain(pos.min(len)..end.max(pos.min(len)));
            }
            1 if len > 0 => {
                let start = rng.random_range(0..len);
                let end = (start + rng.random_range(1..=32)).min(len);
                let piece = v[start..end].to_vec();
                v.splice(pos..pos, piece);
            }
            2 => {
                let tok = DICTIONARY.choose(rng).unwrap().as_bytes();
                v.splice(pos..pos, tok.iter().copied());
            }
            3 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] = rng.random();
            }
            4 if !other.is_empty() => {
                let cut = rng.random_range(0..other.len());
                v.truncate(pos);
                v.extend_from_slice(&other[cut..]);
            }
            5 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] = *b"()[]{}0123456789-.,:\n ".choose(rng).unwrap();
            }
            _ => {}
        }
    }
    v.truncate(1 << 16);
    v
}

/// A finding: a panic or a hang, with the input.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The target.
    pub target: Target,
    /// The panic message.
    pub message: String,
    /// The input.
    pub input: Vec<u8>,
}

/// Totals of a robustness run.
#[derive(Clone, Debug, Default)]
pub struct RobustSummary {
    /// Inputs run per target.
    pub inputs: Vec<(Target, u64)>,
    /// Panics found.
    pub findings: Vec<Finding>,
}

/// Runs `target` on mutations of `seeds` for `duration` (or `max_inputs` inputs); an input
/// running longer than `hang` stops the process with the input printed.
pub fn fuzz(
    target: Target,
    seeds: &[Vec<u8>],
    rng: &mut Pcg64,
    duration: Duration,
    max_inputs: u64,
    hang: Duration,
) -> (u64, Vec<Finding>) {
    let current: Arc<Mutex<(Vec<u8>, Instant)>> =
        Arc::new(Mutex::new((Vec::new(), Instant::now())));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let current = current.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let guard = current.lock().unwrap();
                if guard.1.elapsed() > hang && !done.load(Ordering::Relaxed) {
                    eprintln!(
                        "gradus-fuzz: {} hangs (over {:?}) on this input:\n{}",
                        target.name(),
                        hang,
                        String::from_utf8_lossy(&guard.0)
                    );
                    std::process::exit(3);
                }
            }
        })
    };
    let start = Instant::now();
    let mut findings = Vec::new();
    let mut n = 0u64;
    while start.elapsed() < duration && n < max_inputs {
        let a = seeds.choose(rng).unwrap();
        let b = seeds.choose(rng).unwrap();
        let input = mutate(rng, a, b);
        {
            let mut g = current.lock().unwrap();
            *g = (input.clone(), Instant::now());
        }
        let r = catch_unwind(AssertUnwindSafe(|| run_one(target, &input)));
        if let Err(p) = r {
            let message = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            findings.push(Finding {
                target,
                message,
                input,
            });
        }
        {
            // Between inputs the clock does not run.
            let mut g = current.lock().unwrap();
            g.1 = Instant::now() + Duration::from_secs(3600 * 24);
        }
        n += 1;
    }
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    (n, findings)
}

/// Seeds for a target: the corpus programs, generated programs, their core IR, values.
pub fn seeds(target: Target, programs: &[String], rng: &mut Pcg64) -> Vec<Vec<u8>> {
    match target {
        Target::Parse | Target::TypeCheck => {
            programs.iter().map(|p| p.as_bytes().to_vec()).collect()
        }
        Target::CoreText => programs
            .iter()
            .filter_map(|p| gradus::program::Program::from_source("seed.fut", p).ok())
            .map(|p| gradus::core::print::print_prog(p.core()).into_bytes())
            .take(64)
            .collect(),
        Target::Values => {
            let mut out = Vec::new();
            for _ in 0..32 {
                let t = *gradus::value::PrimType::ALL.choose(rng).unwrap();
                let rank = rng.random_range(0..=3);
                let shape: Vec<usize> = (0..rank).map(|_| rng.random_range(0..=3)).collect();
                let v = crate::generate::value(rng, t, &shape, crate::generate::Mode::General);
                out.push(gradus::data::write_text(&v).into_bytes());
                let bin = gradus::data::write_binary(&v);
                out.push(gradus::data::compress(&bin));
                out.push(bin);
            }
            out
        }
    }
}
