//! The one place that orders the compiler's stages.
//!
//! ```text
//! prelude + program text --parse--> AST --modules--> AST without module types, functors or
//!   imports --check--> typed AST --internalise--> core IR
//!   --verify--> opt (crate::opt, verified after every pass) --> interpreter
//! ```
//!
//! Every stage's output can be printed with [`dump_stage`] (`gradus dev --stage NAME`). The
//! core IR verifier runs after internalisation in debug builds and tests; a failure is
//! reported as a compiler bug with the printed IR.

use crate::core::ir::Prog;
use crate::diag::{Diagnostic, Diagnostics, SourceMap};
use crate::opt::OptOptions;

pub mod passes;
pub mod schedule;

use crate::syntax::ast::{Dec, NodeIdGen};
use crate::types::TypedProgram;
use passes::Run;
pub use schedule::optimise;

/// A program after every compile-time stage, ready to run: what [`crate::program::Program`]
/// wraps.
pub struct Compiled {
    /// The sources its spans point into (the prelude and the program).
    pub sources: SourceMap,
    /// The core IR of the entry points.
    pub prog: Prog,
}

/// The parsed prelude and program, sharing one node-id counter.
struct Parsed {
    sources: SourceMap,
    prelude: Vec<Dec>,
    program: Vec<Dec>,
}

fn fail(sources: &SourceMap, d: Diagnostic) -> Diagnostics {
    Diagnostics {
        items: vec![d],
        sources: sources.clone(),
    }
}

fn parse(path: &str, source: &str) -> Result<Parsed, Diagnostics> {
    let mut sources = SourceMap::new();
    let prelude_file = sources.add(crate::prelude::PRELUDE_PATH, crate::prelude::source());
    let file = sources.add(path, source);
    let mut ids = NodeIdGen::new();
    let prelude_text = sources.text(prelude_file).to_string();
    let prelude = crate::syntax::parse_file(prelude_file, &prelude_text, &mut ids)
        .map_err(|d| fail(&sources, d))?;
    let program =
        crate::syntax::parse_file(file, source, &mut ids).map_err(|d| fail(&sources, d))?;
    let program = crate::modules::eliminate(file, program, &mut sources, &mut ids)
        .map_err(|d| fail(&sources, d))?;
    Ok(Parsed {
        sources,
        prelude,
        program,
    })
}

fn check(parsed: &Parsed) -> Result<TypedProgram, Diagnostics> {
    crate::types::check_program(&parsed.prelude, &parsed.program).map_err(|items| Diagnostics {
        items,
        sources: parsed.sources.clone(),
    })
}

fn internalise(parsed: &Parsed, typed: &TypedProgram) -> Result<Prog, Diagnostics> {
    let prog =
        crate::internalise::internalise(&parsed.prelude, &parsed.program, typed, &parsed.sources)
            .map_err(|d| fail(&parsed.sources, d))?;
    verify(&prog, passes::INTERNALISE.name).map_err(|d| fail(&parsed.sources, d))?;
    Ok(prog)
}

/// Expands the AD operators ([`crate::ad::run`]).
fn differentiate(parsed: &Parsed, mut prog: Prog) -> Result<Prog, Diagnostics> {
    let Run::Core(run) = passes::AD.run else {
        return Ok(prog);
    };
    run(&mut prog).map_err(|d| fail(&parsed.sources, d))?;
    verify(&prog, passes::AD.name).map_err(|d| fail(&parsed.sources, d))?;
    Ok(prog)
}

/// [`passes::after_pass`] as a diagnostic.
fn verify(prog: &Prog, pass: &str) -> Result<(), Diagnostic> {
    passes::after_pass(prog, pass).map_err(Diagnostic::bug)
}

/// Runs the optimiser ([`schedule::optimise`]); a failure of the IR verifier after one of its
/// passes is reported as a compiler bug.
fn optimise_program(parsed: &Parsed, prog: Prog, opts: &OptOptions) -> Result<Prog, Diagnostics> {
    schedule::optimise(prog, opts)
        .map(|(p, _)| p)
        .map_err(|m| fail(&parsed.sources, Diagnostic::bug(m)))
}

/// A copy of `prog` rewritten by the pre-lowering passes of the registry, each followed by
/// [`passes::after_pass`]: what the native backend's lowering takes.
pub fn prepare_for_lowering(prog: &Prog) -> Result<Prog, String> {
    let mut prepared = prog.clone();
    for pass in passes::phase(passes::Phase::PreLowering) {
        if let Run::Rewrite(run) = pass.run {
            run(&mut prepared);
        }
        passes::after_pass(&prepared, pass.name)?;
    }
    Ok(prepared)
}

/// Stack size for compiling: internalisation inlines every call, so deeply nested calls (or a
/// recursive function, until the inlining limit rejects it) recurse deeply.
const COMPILE_STACK_BYTES: usize = 512 << 20;

/// Runs every stage on `source`, the optimiser with its default options.
pub fn compile(path: &str, source: &str) -> Result<Compiled, Diagnostics> {
    compile_with(path, source, &OptOptions::default())
}

/// Runs every stage on `source`, the optimiser with options `opts`.
pub fn compile_with(path: &str, source: &str, opts: &OptOptions) -> Result<Compiled, Diagnostics> {
    let run = || compile_here(path, source, opts);
    std::thread::scope(|s| {
        match std::thread::Builder::new()
            .stack_size(COMPILE_STACK_BYTES)
            .spawn_scoped(s, run)
        {
            Ok(handle) => handle.join().unwrap_or_else(|_| {
                Err(Diagnostics {
                    items: vec![Diagnostic::bug("the compiler panicked")],
                    sources: SourceMap::new(),
                })
            }),
            Err(_) => compile_here(path, source, opts),
        }
    })
}

fn compile_here(path: &str, source: &str, opts: &OptOptions) -> Result<Compiled, Diagnostics> {
    let parsed = parse(path, source)?;
    let typed = check(&parsed)?;
    let prog = internalise(&parsed, &typed)?;
    let prog = differentiate(&parsed, prog)?;
    let prog = optimise_program(&parsed, prog, opts)?;
    Ok(Compiled {
        sources: parsed.sources,
        prog,
    })
}

/// A stage whose output `gradus dev --stage` can print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The abstract syntax tree.
    Parse,
    /// The AST with inferred types.
    Typed,
    /// Core IR after internalisation: AD operators are still [`crate::core::ir::Exp::Ad`]
    /// statements.
    Core,
    /// Core IR with every AD operator expanded ([`crate::ad::run`]).
    Ad,
    /// Core IR after the optimiser (`crate::opt`).
    Opt,
    /// The imperative IR of the native backend (multicore, with checks): explicit buffers,
    /// loops and parallel loops.
    Lower,
    /// The C code of the native backend (multicore, with checks).
    C,
    /// The code of the `gpu` backend (with checks): which parallel loops run on the host and
    /// why, the OpenCL kernels, the host code.
    Gpu,
    /// The kernels of the `gpu` backend as the CUDA C++ that NVRTC compiles.
    Cuda,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 9] = [
        Stage::Parse,
        Stage::Typed,
        Stage::Core,
        Stage::Ad,
        Stage::Opt,
        Stage::Lower,
        Stage::C,
        Stage::Gpu,
        Stage::Cuda,
    ];
    /// The stage's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Typed => "typed",
            Stage::Core => "core",
            Stage::Ad => "ad",
            Stage::Opt => "opt",
            Stage::Lower => "lower",
            Stage::C => "c",
            Stage::Gpu => "gpu",
            Stage::Cuda => "cuda",
        }
    }
}

/// Runs the pipeline up to `stage` and returns that stage's printed output (for the program,
/// not the prelude).
pub fn dump_stage(path: &str, source: &str, stage: Stage) -> Result<String, Diagnostics> {
    dump_stage_with(path, source, stage, &OptOptions::default())
}

/// [`dump_stage`] with optimiser options (used from `opt` on; earlier stages ignore them).
pub fn dump_stage_with(
    path: &str,
    source: &str,
    stage: Stage,
    opts: &OptOptions,
) -> Result<String, Diagnostics> {
    let parsed = parse(path, source)?;
    if stage == Stage::Parse {
        return Ok(crate::syntax::print_decs(&parsed.program));
    }
    let typed = check(&parsed)?;
    if stage == Stage::Typed {
        return Ok(crate::types::print_typed(&parsed.program, &typed));
    }
    let prog = internalise(&parsed, &typed)?;
    let prog = match stage {
        Stage::Core => prog,
        Stage::Ad => differentiate(&parsed, prog)?,
        _ => optimise_program(&parsed, differentiate(&parsed, prog)?, opts)?,
    };
    let native = if matches!(stage, Stage::Gpu | Stage::Cuda) {
        crate::backend::c::NativeOptions::gpu()
    } else {
        crate::backend::c::NativeOptions {
            multicore: true,
            ..Default::default()
        }
    };
    let lowered = |prog: &Prog| {
        prepare_for_lowering(prog)
            .and_then(|prog| crate::backend::c::lower_prog(&prog, &parsed.sources, native))
            .map_err(|m| fail(&parsed.sources, Diagnostic::bug(m)))
    };
    match stage {
        Stage::Lower => return Ok(crate::backend::lower::imp::show_program(&lowered(&prog)?)),
        Stage::C => return Ok(crate::backend::c::print::print_program(&lowered(&prog)?)),
        Stage::Gpu => return Ok(crate::backend::c::gpu::listing(&lowered(&prog)?)),
        Stage::Cuda => {
            let cuda = crate::backend::c::gpu::Dialect::Cuda;
            return Ok(crate::backend::c::gpu::kernel_source(
                &lowered(&prog)?,
                cuda,
            ));
        }
        _ => {}
    }
    Ok(crate::core::print::print_prog(&prog))
}
