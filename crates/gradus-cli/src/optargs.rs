//! The optimiser options shared by `run`, `test`, `check` and `dev`: `--no-opt` and
//! `--disable-pass NAME` (repeatable; the names are those of `gradus::opt::PASSES`).

use clap::Args;
use gradus::opt::OptOptions;

/// Optimiser flags.
#[derive(Args, Debug, Clone, Default)]
pub struct OptArgs {
    /// Compile without the optimiser.
    #[arg(long = "no-opt")]
    pub no_opt: bool,
    /// Do not run this optimiser pass (repeatable): fold, copy-prop, cse, if-simp, dce,
    /// tuple-elim, inline, hoist, fusion, single-point, fission, map-fission, loop-norm,
    /// acc-reduce, consumer-fusion.
    #[arg(long = "disable-pass", value_name = "PASS", value_parser = parse_pass)]
    pub disable_pass: Vec<String>,
}

fn parse_pass(s: &str) -> Result<String, String> {
    OptOptions::default().disable(s).map(|_| s.to_string())
}

impl OptArgs {
    /// The library options these flags stand for.
    pub fn options(&self) -> OptOptions {
        let mut o = if self.no_opt {
            OptOptions::off()
        } else {
            OptOptions::default()
        };
        for p in &self.disable_pass {
            // Names were checked when the flags were parsed.
            let _ = o.disable(p);
        }
        o
    }
}
