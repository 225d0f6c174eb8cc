//! The optimiser options shared by `run`, `test`, `check` and `dev`: `--no-opt` and
//! `--disable-pass NAME` (repeatable; the names are those of the optimiser's passes in the
//! registry, `gradus::pipeline::passes`).

use clap::Args;
use gradus::opt::OptOptions;

/// Optimiser flags.
#[derive(Args, Debug, Clone, Default)]
pub struct OptArgs {
    /// Compile without the optimiser.
    #[arg(long = "no-opt")]
    pub no_opt: bool,
    /// Do not run this optimiser pass (repeatable; the help lists the passes).
    #[arg(long = "disable-pass", value_name = "PASS", value_parser = parse_pass, help = disable_pass_help())]
    pub disable_pass: Vec<String>,
}

/// The help of `--disable-pass`, naming every optimiser pass of the registry.
fn disable_pass_help() -> String {
    let names: Vec<_> = gradus::pipeline::passes::optimiser_passes()
        .map(|p| p.name)
        .collect();
    format!(
        "Do not run this optimiser pass (repeatable): {}",
        names.join(", ")
    )
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
