//! Statement counts by kind: what the `structure` items of test blocks compare
//! (docs/language.md §Structure tests), after Futhark's.
//!
//! [`statement_counts`] walks every function of a program, bodies nested in statements
//! included, and counts each statement under its kind ([`kind`]: `Map`, `Redomap`, `Loop`,
//! `BinOp`, `Index`, ...) and under every path of directly enclosing statements ending in it:
//! a `BinOp` in the lambda of a `Map` in the body of a `Loop` counts as `BinOp`,
//! `Map/BinOp` and `Loop/Map/BinOp`. Counting is read-only and total.

use crate::core::ir::{BasicOp, Body, Exp, Prog, ScremaForm, Soac};
use crate::core::prim::PrimOp;
use std::collections::BTreeMap;

/// The kind of a statement's expression, as `structure` items name it.
pub fn kind(exp: &Exp) -> &'static str {
    match exp {
        Exp::BasicOp(op) => basic_kind(op),
        Exp::If { .. } => "If",
        Exp::Loop { .. } => "Loop",
        Exp::Apply { .. } => "Apply",
        Exp::WithAcc { .. } => "WithAcc",
        Exp::Ad { .. } => "Ad",
        Exp::Soac(soac) => match soac {
            Soac::Map { .. } => "Map",
            Soac::Reduce { .. } => "Reduce",
            Soac::Scan { .. } => "Scan",
            Soac::Hist { .. } => "Hist",
            Soac::Scatter { .. } => "Scatter",
            Soac::Screma { form, .. } => match **form {
                ScremaForm::Reduce { .. } => "Redomap",
                ScremaForm::Scan { .. } => "Scanomap",
                ScremaForm::Hist { .. } => "Histomap",
                ScremaForm::Scatter { .. } => "Scattermap",
            },
        },
    }
}

fn basic_kind(op: &BasicOp) -> &'static str {
    match op {
        BasicOp::SubExp(_) => "SubExp",
        BasicOp::Prim(p, _) => match p {
            PrimOp::Un(..) => "UnOp",
            PrimOp::Bin(..) => "BinOp",
            PrimOp::Cmp(..) => "CmpOp",
            PrimOp::Tern(..) => "TernOp",
            PrimOp::Conv(..) | PrimOp::FromBits(..) => "ConvOp",
        },
        BasicOp::Index { .. } => "Index",
        BasicOp::Update { .. } => "Update",
        BasicOp::Iota { .. } => "Iota",
        BasicOp::Replicate { .. } => "Replicate",
        BasicOp::Scratch { .. } => "Scratch",
        BasicOp::ArrayLit { .. } => "ArrayLit",
        BasicOp::Concat { .. } => "Concat",
        BasicOp::Copy(_) => "Copy",
        BasicOp::Reshape { .. } => "Reshape",
        BasicOp::Rearrange { .. } => "Rearrange",
        BasicOp::Rotate { .. } => "Rotate",
        BasicOp::Coerce { .. } => "Coerce",
        BasicOp::Assert { .. } => "Assert",
        BasicOp::UpdateAcc { .. } => "UpdateAcc",
    }
}

/// Every kind name [`kind`] gives, for checking the names a test writes.
pub const KINDS: &[&str] = &[
    "SubExp",
    "UnOp",
    "BinOp",
    "CmpOp",
    "TernOp",
    "ConvOp",
    "Index",
    "Update",
    "Iota",
    "Replicate",
    "Scratch",
    "ArrayLit",
    "Concat",
    "Copy",
    "Reshape",
    "Rearrange",
    "Rotate",
    "Coerce",
    "Assert",
    "UpdateAcc",
    "If",
    "Loop",
    "Apply",
    "WithAcc",
    "Ad",
    "Map",
    "Reduce",
    "Scan",
    "Hist",
    "Scatter",
    "Redomap",
    "Scanomap",
    "Histomap",
    "Scattermap",
];

/// The number of statements of each kind and each nesting path in `prog`; kinds and paths
/// that do not occur are absent (count 0).
pub fn statement_counts(prog: &Prog) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    let mut outer = Vec::new();
    for f in &prog.funs {
        count_body(&f.body, &mut outer, &mut counts);
    }
    counts
}

fn count_body(body: &Body, outer: &mut Vec<&'static str>, counts: &mut BTreeMap<String, usize>) {
    for stm in &body.stms {
        let k = kind(&stm.exp);
        *counts.entry(k.to_string()).or_default() += 1;
        let mut path = k.to_string();
        for enclosing in outer.iter().rev() {
            path = format!("{enclosing}/{path}");
            *counts.entry(path.clone()).or_default() += 1;
        }
        outer.push(k);
        for b in stm.exp.bodies() {
            count_body(b, outer, counts);
        }
        outer.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_statements_count_under_their_paths() {
        let prog = crate::core::parse::parse_prog(
            r#"fun f [n_0] (xs_1: [n_0]f64) : f64 {
  let s_2: f64 = loop (a_3: f64 = 0.0f64) for i_4: i64 < n_0 do {
    let ys_5: [n_0]f64 = map(n_0, \(x_6: f64) : f64 -> { let y_7: f64 = mul_f64(x_6, a_3) in y_7 }, xs_1)
    let z_8: f64 = ys_5[i_4]
    let b_9: f64 = add_f64(a_3, z_8)
    in b_9
  }
  in s_2
}"#,
        )
        .unwrap();
        let counts = statement_counts(&prog);
        let want = [
            ("Loop", 1),
            ("Map", 1),
            ("Index", 1),
            ("BinOp", 2),
            ("Loop/Map", 1),
            ("Loop/Index", 1),
            ("Loop/BinOp", 1),
            ("Map/BinOp", 1),
            ("Loop/Map/BinOp", 1),
        ];
        assert_eq!(counts.len(), want.len(), "{counts:?}");
        for (k, n) in want {
            assert_eq!(counts.get(k), Some(&n), "{k}: {counts:?}");
        }
        for k in counts.keys() {
            assert!(k.split('/').all(|p| KINDS.contains(&p)), "{k}");
        }
    }
}
