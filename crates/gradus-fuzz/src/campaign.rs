//! A campaign: seeds turned into programs, run differentially and through the AD checks,
//! failures shrunk and written out, and a summary of what was covered and found.
//!
//! Seed `s` gives one general program of [`Settings::entries`] entry points (each called on
//! [`Settings::cases`] random inputs) and one AD program of [`Settings::ad_functions`]
//! functions, whose sparse Jacobians and Hessians are also checked ([`sparse_check`]). Batching several entry points into one program matters: compiling the C
//! (four times: `c` and `multicore`, optimised and not) is most of the cost of a seed.

use crate::adcheck::{self, AdFunction};
use crate::ast::GenProgram;
use crate::diff::{self, Case, Config, Failure, Kind, Subject};
use crate::generate::{self, Coverage, Gen, Mode};
use crate::shrink;
use crate::sparse_check::{self, SparseStats};
use crate::spec;
use rand::SeedableRng;
use rand_pcg::Pcg64;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::PathBuf;
use std::time::Duration;

/// What a campaign generates and runs.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Entry points per general program.
    pub entries: usize,
    /// Helper functions per general program, which its entry points may call.
    pub helpers: usize,
    /// Random inputs per entry point.
    pub cases: usize,
    /// Nesting depth of generated expressions.
    pub depth: usize,
    /// Functions per AD program (0: no AD programs).
    pub ad_functions: usize,
    /// Functions with control flow and indexing that depend on float values
    /// ([`crate::generate::Gen::value_control`]) per seed, for the sparse checks alone.
    pub branching_functions: usize,
    /// The configurations compared with the oracle.
    pub configs: Vec<Config>,
    /// Where shrunk failures are written, and the time allowed for each.
    pub shrink: Option<(PathBuf, Duration)>,
    /// Whether each seed's program also has the semantic probes ([`crate::spec`]).
    pub probes: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            entries: 8,
            helpers: 3,
            cases: 2,
            depth: 4,
            ad_functions: 2,
            branching_functions: 2,
            configs: Config::ALL.to_vec(),
            shrink: None,
            probes: true,
        }
    }
}

/// Totals of a campaign.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Seeds run.
    pub seeds: u64,
    /// Programs compiled (general and AD).
    pub programs: u64,
    /// Generated entry points (general) and functions (AD).
    pub functions: u64,
    /// Calls compared.
    pub cases: u64,
    /// Calls of the general programs that ended in a run-time error on the oracle.
    pub runtime_errors: u64,
    /// What the checks of the on-demand sparse derivatives did.
    pub sparse: SparseStats,
    /// Constructs generated.
    pub coverage: Coverage,
    /// Failures, with their seeds.
    pub failures: Vec<(u64, Failure)>,
    /// Test-block programs written for failures.
    pub written: Vec<PathBuf>,
}

impl Summary {
    /// Failures counted by kind.
    pub fn by_kind(&self) -> BTreeMap<Kind, usize> {
        let mut m = BTreeMap::new();
        for (_, f) in &self.failures {
            *m.entry(f.kind).or_default() += 1;
        }
        m
    }

    /// The summary as text.
    pub fn report(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "seeds {}, programs {}, functions {}, calls compared {} ({} ended in a run-time error)",
            self.seeds, self.programs, self.functions, self.cases, self.runtime_errors
        );
        let sp = &self.sparse;
        let _ = writeln!(
            s,
            "sparse derivatives checked {} (at {} points, {} entries), refused by the tracer {}, \
             functions failing at their point {}; {:.1} s",
            sp.checked, sp.points, sp.entries, sp.refused, sp.unfit, sp.seconds
        );
        let _ = writeln!(s, "constructs generated:");
        for (k, v) in &self.coverage.0 {
            let _ = writeln!(s, "  {k:<20} {v}");
        }
        let by_kind = self.by_kind();
        if by_kind.is_empty() {
            let _ = writeln!(s, "failures: none");
        } else {
            let _ = writeln!(s, "failures by kind:");
            for (k, v) in by_kind {
                let _ = writeln!(s, "  {k}: {v}");
            }
            for (seed, f) in &self.failures {
                let _ = writeln!(s, "  seed {seed}: {f}");
            }
        }
        for p in &self.written {
            let _ = writeln!(s, "written: {}", p.display());
        }
        s
    }
}

/// The general program of `seed`, its entry points' inputs, and the coverage.
pub fn general(seed: u64, settings: &Settings) -> (GenProgram, Subject, Coverage) {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut entries = Vec::new();
    let mut cases = Vec::new();
    let mut coverage = Coverage::default();
    let helpers: Vec<_> = (0..settings.helpers)
        .map(|k| {
            let mut g = Gen::new(&mut rng, Mode::General);
            let h = g.entry(&format!("h{k}"), settings.depth.min(3));
            coverage.merge(&g.coverage);
            h
        })
        .collect();
    for k in 0..settings.entries {
        let mut g = Gen::new(&mut rng, Mode::General);
        g.set_helpers(&helpers);
        g.consume = true;
        let entry = g.entry(&format!("e{k}"), settings.depth);
        coverage.merge(&g.coverage);
        for _ in 0..settings.cases {
            cases.push(Case {
                entry: entry.name.clone(),
                args: generate::inputs(&mut rng, &entry, Mode::General),
            });
        }
        entries.push(entry);
    }
    let program = GenProgram { helpers, entries };
    let subject = Subject {
        name: format!("fuzz-{seed}.fut"),
        source: program.print(),
        cases,
    };
    (program, subject, coverage)
}

/// The AD functions of `seed` and their program.
pub fn ad(seed: u64, settings: &Settings) -> (Vec<AdFunction>, Subject, Coverage) {
    let mut rng = Pcg64::seed_from_u64(seed ^ 0x5eed_ad00_0000_0000);
    let mut coverage = Coverage::default();
    let functions: Vec<AdFunction> = (0..settings.ad_functions)
        .map(|_| {
            let (f, c) = AdFunction::generate(&mut rng, settings.depth.min(3));
            coverage.merge(&c);
            f
        })
        .collect();
    let subject = adcheck::subject(&format!("fuzz-ad-{seed}.fut"), &functions);
    (functions, subject, coverage)
}

/// The functions of `seed` with control flow that depends on float values, for the sparse
/// checks.
pub fn branching(seed: u64, settings: &Settings) -> (Vec<AdFunction>, Coverage) {
    let mut rng = Pcg64::seed_from_u64(seed ^ 0x5ba2_5e00_0000_0000);
    let mut coverage = Coverage::default();
    let functions = (0..settings.branching_functions)
        .map(|_| {
            let (f, c) = AdFunction::generate_with(&mut rng, settings.depth.min(3), true);
            coverage.merge(&c);
            f
        })
        .collect();
    (functions, coverage)
}

/// Runs seed `seed` and adds its results to `summary`. The general and the AD program, and
/// the semantic probes, are compiled as one, to compile C once per configuration.
pub fn run_seed(seed: u64, settings: &Settings, summary: &mut Summary) {
    summary.seeds += 1;
    summary.programs += 1;
    let (program, general_subject, coverage) = general(seed, settings);
    summary.coverage.merge(&coverage);
    summary.functions += program.entries.len() as u64;
    let (functions, ad_subject, coverage) = ad(seed, settings);
    summary.coverage.merge(&coverage);
    summary.functions += functions.len() as u64;
    let (probe_source, probes) = if settings.probes {
        spec::probes(&mut Pcg64::seed_from_u64(seed ^ 0x0bad_c0de_0000_0000))
    } else {
        (String::new(), Vec::new())
    };
    let probe_offset = general_subject.cases.len() + ad_subject.cases.len();
    let subject = Subject {
        name: general_subject.name.clone(),
        source: format!(
            "{}\n{}\n{probe_source}",
            general_subject.source, ad_subject.source
        ),
        cases: [
            general_subject.cases.clone(),
            ad_subject.cases.clone(),
            spec::cases(&probes),
        ]
        .concat(),
    };
    summary.cases += subject.cases.len() as u64;
    let mut failures = Vec::new();
    let mut programs: Vec<Option<String>> = Vec::new();
    // The program written for a failure no smaller program reproduces.
    let mut whole = subject.source.clone();
    match diff::oracle(&subject) {
        Ok(outcomes) => {
            summary.runtime_errors += outcomes[..general_subject.cases.len()]
                .iter()
                .filter(|o| o.is_err())
                .count() as u64;
            for (f, p) in spec::check(
                &probes,
                &outcomes[probe_offset..],
                Config::ORACLE,
                probe_offset,
            ) {
                failures.push(f);
                programs.push(p);
            }
            for f in diff::check_against(&subject, &outcomes, &settings.configs) {
                // Without exact floats the C compiler may reassociate `(x + y) - y` and drop
                // the sign of a zero: the float identities are checked natively only with
                // exact floats.
                let probe = f
                    .case
                    .and_then(|c| c.checked_sub(probe_offset))
                    .and_then(|k| probes.get(k));
                if probe.is_some_and(|p| p.reassociable)
                    && f.config.is_some_and(|c| c.native())
                    && !diff::exact_floats()
                {
                    continue;
                }
                failures.push(f);
                programs.push(None);
            }
        }
        Err(f) => {
            failures.push(f);
            programs.push(None);
        }
    }
    if failures.is_empty() && !functions.is_empty() {
        failures = adcheck::check_all(&ad_subject, &functions);
        if failures.is_empty() {
            let name = format!("fuzz-sparse-{seed}.fut");
            let (branching, coverage) = branching(seed, settings);
            summary.coverage.merge(&coverage);
            let all = [functions.clone(), branching].concat();
            failures = sparse_check::check_all(&all, &name, &mut summary.sparse);
            if !failures.is_empty() {
                whole = sparse_check::subject(&name, &all).source;
            }
        }
        programs = vec![None; failures.len()];
    }
    for (f, probe_program) in failures.into_iter().zip(programs) {
        let general_case = f.case.is_none_or(|c| c < general_subject.cases.len());
        if let Some((dir, budget)) = &settings.shrink {
            let probe = f
                .case
                .and_then(|c| c.checked_sub(probe_offset))
                .and_then(|k| probes.get(k));
            let written = if let Some(text) = probe_program {
                write_failure(dir, &format!("wrong-{seed}-{}", f.case.unwrap_or(0)), &text)
            } else if let Some(probe) = probe {
                probe_mismatch(seed, probe, &f).and_then(|text| {
                    write_failure(
                        dir,
                        &format!("mismatch-{seed}-{}", f.case.unwrap_or(0)),
                        &text,
                    )
                })
            } else if general_case && f.kind != Kind::Derivative {
                shrink_and_write(seed, &program, &general_subject, &f, dir, *budget)
            } else {
                None
            };
            let written = written.or_else(|| {
                // Not reproducible from one general entry point alone: the whole program.
                let text = format!(
                    "-- Found by gradus-fuzz (seed {seed}): {}\n{}",
                    f.to_string().replace('\n', "\n-- "),
                    whole
                );
                write_failure(dir, &format!("whole-{seed}"), &text)
            });
            summary.written.extend(written);
        }
        summary.failures.push((seed, f));
    }
}

/// The one-line program of the element of `probe` that a configuration got wrong, as a
/// test-block program with the oracle's result, when it fails alone as well.
fn probe_mismatch(seed: u64, probe: &spec::Probe, f: &Failure) -> Option<String> {
    let configs: Vec<Config> = f.config.into_iter().collect();
    // The one element alone, or else the probe's entry point alone.
    let single = spec::single_for(probe, &f.detail)
        .map(|(program, args)| spec::single_subject(&program, &args));
    let whole = Subject {
        name: "probe.fut".into(),
        source: probe.source.clone(),
        cases: spec::cases(std::slice::from_ref(probe)),
    };
    let (subject, found) = single.into_iter().chain([whole]).find_map(|s| {
        let found = diff::run(&s, &configs)
            .into_iter()
            .find(|g| g.kind == f.kind)?;
        Some((s, found))
    })?;
    let outcome = diff::oracle(&subject).ok()?.into_iter().next()?;
    let mut text = String::new();
    let _ = writeln!(text, "-- Found by gradus-fuzz (seed {seed}): {found}");
    let _ = writeln!(text, "-- ==");
    let case = &subject.cases[0];
    let inputs: Vec<String> = case.args.iter().map(gradus::data::write_text).collect();
    let _ = writeln!(text, "-- entry: {}", case.entry);
    let _ = writeln!(text, "-- input {{ {} }}", inputs.join(" "));
    if let Ok(v) = outcome {
        let out: Vec<String> = v.iter().map(gradus::data::write_text).collect();
        let _ = writeln!(text, "-- output {{ {} }}", out.join(" "));
    }
    let _ = writeln!(text, "\n{}", subject.source);
    Some(text)
}

fn write_failure(dir: &std::path::Path, stem: &str, text: &str) -> Option<PathBuf> {
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("{stem}.fut"));
    std::fs::write(&path, text).ok()?;
    Some(path)
}

/// Finds the entry point behind `failure`, shrinks it, and writes a test-block program.
fn shrink_and_write(
    seed: u64,
    program: &GenProgram,
    subject: &Subject,
    failure: &Failure,
    dir: &std::path::Path,
    budget: Duration,
) -> Option<PathBuf> {
    let kind = failure.kind;
    let config = failure.config;
    let helpers = program.print_helpers();
    let fails = |s: &Subject| diff::still_fails(s, kind, config);
    // The failing entry and input: the case's, or the first entry that fails alone.
    let (entry, args) = match failure.case {
        Some(c) => {
            let case = &subject.cases[c];
            let e = program.entries.iter().find(|e| e.name == case.entry)?;
            (e.clone(), case.args.clone())
        }
        None => program.entries.iter().find_map(|e| {
            let case = subject.cases.iter().find(|c| c.entry == e.name)?;
            fails(&shrink::subject(&helpers, e, &case.args)).then(|| (e.clone(), case.args.clone()))
        })?,
    };
    let (small, small_args) = shrink::shrink(&helpers, &entry, &args, &fails, budget);
    // Only the helpers the shrunk entry point still calls, if it fails with those alone.
    let body = small.body.print();
    let used = GenProgram {
        helpers: program
            .helpers
            .iter()
            .filter(|h| body.contains(&format!("({} ", h.name)))
            .cloned()
            .collect(),
        entries: Vec::new(),
    }
    .print_helpers();
    let helpers = if fails(&shrink::subject(&used, &small, &small_args)) {
        used
    } else {
        helpers
    };
    let small_subject = shrink::subject(&helpers, &small, &small_args);
    let outcome = diff::oracle(&small_subject)
        .ok()
        .and_then(|o| o.into_iter().next());
    let detail = diff::run(&small_subject, &config.into_iter().collect::<Vec<_>>())
        .into_iter()
        .find(|f| f.kind == kind)
        .map_or_else(|| failure.to_string(), |f| f.to_string());
    let note = format!("Found by gradus-fuzz (seed {seed}), shrunk:\n{detail}");
    let text = match &outcome {
        Some(o) => shrink::test_program(&note, &helpers, &small, &small_args, o),
        None => format!(
            "-- {}\n{helpers}{}",
            note.replace('\n', "\n-- "),
            small.print()
        ),
    };
    let slug = match kind {
        Kind::Rejected => "rejected",
        Kind::InternalError => "ice",
        Kind::CCompile => "cc",
        Kind::NativeUnsupported => "unsupported",
        Kind::Panic => "panic",
        Kind::Mismatch => "mismatch",
        Kind::Derivative => "derivative",
        Kind::Wrong => "wrong",
    };
    std::fs::create_dir_all(dir).ok()?;
    let path = dir.join(format!("{slug}-{seed}.fut"));
    std::fs::write(&path, text).ok()?;
    Some(path)
}
