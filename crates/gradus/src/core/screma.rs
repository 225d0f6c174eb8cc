//! Fused map–consumer SOACs ([`Soac::Screma`]) split back into a `map` and its consumer.
//!
//! Takes statements of any verified program and returns statements meaning the same in
//! which the chosen fused SOACs are a `map` binding fresh arrays followed by the `reduce`,
//! `scan`, `hist` or `scatter` reading them (a `redomap`'s map results are bound by the
//! `map`, under the `redomap`'s names). The optimiser builds fused SOACs only at its
//! end; the passes that have no rules of their own for them (AD, which runs before the
//! optimiser but may be given parsed IR, and the lowering for fused maps returning arrays)
//! split them with this.

use crate::core::ir::{Body, Exp, NameTable, ScremaForm, Soac, Stm};
use crate::core::type_of::map_result_type;

/// The `map` and the consumer a fused SOAC statement stands for, or `None` for any other
/// statement.
pub fn unfuse(names: &mut NameTable, stm: &Stm) -> Option<[Stm; 2]> {
    let Exp::Soac(Soac::Screma {
        w,
        map,
        arrays,
        form,
    }) = &stm.exp
    else {
        return None;
    };
    // A `redomap`'s own map results (past its `k` reduced values) are bound by the map;
    // the consumer binds the rest of the pattern.
    let (reduced, consumer_pat) = match &**form {
        ScremaForm::Reduce { neutral, .. } => {
            let k = neutral.len().min(map.ret.len()).min(stm.pat.len());
            (k, &stm.pat[..k])
        }
        _ => (map.ret.len(), &stm.pat[..]),
    };
    let mapped: Vec<_> = map.ret[..reduced]
        .iter()
        .map(|t| names.fresh("mapped", map_result_type(t, *w)))
        .collect();
    let mut map_pat = mapped.clone();
    if reduced < map.ret.len() {
        map_pat.extend_from_slice(&stm.pat[reduced..]);
    }
    let map_stm = Stm {
        pat: map_pat,
        exp: Exp::Soac(Soac::Map {
            w: *w,
            lam: map.clone(),
            arrays: arrays.clone(),
        }),
        aux: stm.aux.clone(),
    };
    let consumer = match (**form).clone() {
        ScremaForm::Reduce {
            lam,
            neutral,
            commutative,
        } => Soac::Reduce {
            w: *w,
            lam,
            neutral,
            arrays: mapped,
            commutative,
        },
        ScremaForm::Scan { lam, neutral } => Soac::Scan {
            w: *w,
            lam,
            neutral,
            arrays: mapped,
        },
        ScremaForm::Hist {
            dests,
            lam,
            neutral,
        } => Soac::Hist {
            w: *w,
            dests,
            lam,
            neutral,
            indices: *mapped.first()?,
            values: mapped[1..].to_vec(),
        },
        ScremaForm::Scatter { dests } => Soac::Scatter {
            w: *w,
            dests,
            indices: *mapped.first()?,
            values: mapped[1..].to_vec(),
        },
    };
    let consumer_stm = Stm {
        pat: consumer_pat.to_vec(),
        exp: Exp::Soac(consumer),
        aux: stm.aux.clone(),
    };
    Some([map_stm, consumer_stm])
}

/// `stms` with every fused SOAC for which `split` holds unfused, at any depth.
pub fn unfuse_stms(
    names: &mut NameTable,
    stms: &[Stm],
    split: &impl Fn(&Soac) -> bool,
) -> Vec<Stm> {
    let mut out = Vec::with_capacity(stms.len());
    for stm in stms {
        let mut stm = stm.clone();
        unfuse_nested(names, &mut stm.exp, split);
        match &stm.exp {
            Exp::Soac(soac) if split(soac) => match unfuse(names, &stm) {
                Some(pair) => out.extend(pair),
                None => out.push(stm),
            },
            _ => out.push(stm),
        }
    }
    out
}

/// `body` with its fused SOACs unfused as in [`unfuse_stms`].
pub fn unfuse_body(names: &mut NameTable, body: &mut Body, split: &impl Fn(&Soac) -> bool) {
    body.stms = unfuse_stms(names, &body.stms, split);
}

fn unfuse_nested(names: &mut NameTable, exp: &mut Exp, split: &impl Fn(&Soac) -> bool) {
    match exp {
        Exp::BasicOp(_) | Exp::Apply { .. } => {}
        Exp::If {
            then_body,
            else_body,
            ..
        } => {
            unfuse_body(names, then_body, split);
            unfuse_body(names, else_body, split);
        }
        Exp::Loop { body, .. } => unfuse_body(names, body, split),
        Exp::Soac(soac) => {
            for lam in soac.lambdas_mut() {
                unfuse_body(names, &mut lam.body, split);
            }
        }
        Exp::WithAcc { lam, .. } | Exp::Ad { lam, .. } => unfuse_body(names, &mut lam.body, split),
    }
}

/// Whether `soac` is fused (the `split` of [`unfuse_stms`] that unfuses every one).
pub fn is_fused(soac: &Soac) -> bool {
    matches!(soac, Soac::Screma { .. })
}
