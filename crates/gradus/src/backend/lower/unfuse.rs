//! Unfusing of the fused SOACs whose map returns arrays (the pre-lowering pass `unfuse` of
//! the registry, `crate::pipeline::passes`).
//!
//! **Takes** a verified program.
//!
//! **Guarantees** a verified program computing the same values in which no `screma`'s fused
//! map returns anything but scalars: each such `screma` is split into the `map` and its
//! consumer, because the lowering binds the values of a fused map as scalars only (the
//! consumer then reads the map's rows as it reads any input array).

use crate::core::ir::{Prog, Soac, Type};

/// Splits the fused SOACs whose map returns arrays into the map and its consumer, in every
/// body of every function.
pub fn run(prog: &mut Prog) {
    let split = |s: &Soac| {
        matches!(s, Soac::Screma { map, .. }
            if map.ret.iter().any(|t| !matches!(t, Type::Prim(_))))
    };
    let Prog { names, funs } = prog;
    for f in funs {
        crate::core::screma::unfuse_body(names, &mut f.body, &split);
    }
}
