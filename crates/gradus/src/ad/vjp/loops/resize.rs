//! Reverse mode of loops whose arrays change size (`checkpoint.rs` calls these pieces).
//!
//! **Takes** a `for` loop (a `while` loop once [`Vjp::lower_loop`] has counted its
//! iterations) some of whose parameters' types mention other parameters: an array that grows
//! (`loop xs = .. for i < n do xs ++ [..]`), shrinks (`while length v > 1 do take h ..`) or is
//! filtered (`loop v = xs for i < n do filter p v`), of any rank. Loops whose arrays keep
//! their size are left to the ordinary rule (one `[n]` checkpoint array per parameter).
//!
//! **Does**: a renamed copy of the loop runs first and records, per array parameter, the
//! number of elements it has at the start of every iteration ([`Vjp::flat_layout`]); an
//! exclusive scan of those counts gives each iteration's offset, their sum the buffer's size.
//! The forward sweep writes each iteration's value of the parameter, flattened, at its offset
//! in that one buffer ([`Vjp::save_flat`]). The return sweep, iteration `i` going down from
//! `n - 1`, first restores iteration `i`'s scalars (among them the sizes, which are ordinary
//! scalar loop parameters with `[n]` checkpoints), and only then reads iteration `i`'s arrays
//! back at their offsets and reshapes them to those sizes ([`Vjp::read_flat`]). Its own loop
//! carries the current sizes as parameters, in front of the adjoints whose types name them.
//!
//! **Guarantees**: the output passes IR verification: the copy that counts gets fresh copies
//! of the initial values the loop consumes (so the loop itself still has them, also under a
//! second `vjp`, where the first one's counting buffers are such values); the adjoints the
//! return sweep carries are coerced to the shapes of the re-executed body's results (equal at
//! run time, but the types name different sizes), and the final ones to the shapes of the
//! initial values. Those coercions cannot fail at run time. Nested `jvp`/`vjp` of the result
//! work like those of any loop.
//!
//! **Cost**: memory is exactly the elements of all the iterations' arrays, `Σᵢ |xsᵢ|` (what
//! the primal allocates in all when each iteration builds a new array), not `n` times the
//! largest, plus two `[n]i64` arrays (counts, offsets) per array parameter. Work: the body
//! runs three times per iteration instead of two (four for a `while` loop, which is counted
//! first); the cost ratio of a growing loop is in `crates/gradus/tests/ad/vjp_cost.rs`.

use super::super::{Diagnostic, R, Vjp};
use crate::core::builder::HasBuilder;
use crate::core::ir::{
    BasicOp, Body, DimIndex, Exp, LoopForm, NameTable, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::{BinOp, PrimOp};
use crate::core::scalar::PrimType;
use std::collections::{HashMap, HashSet};

/// Where one array parameter's values go in its flat checkpoint buffer.
#[derive(Clone, Copy)]
pub(super) struct FlatSlot {
    /// `[n]i64`: where iteration `i`'s elements start.
    pub(super) offsets: Var,
    /// `[n]i64`: how many elements the parameter has at the start of iteration `i`.
    pub(super) counts: Var,
    /// The buffer's size: all the counts together.
    pub(super) total: SubExp,
}

/// Whether some loop parameter's type has a dimension that is another loop parameter: an
/// array whose size changes from iteration to iteration.
pub(super) fn resizes(params: &[(Var, SubExp)], names: &NameTable) -> bool {
    !size_params(params, names).is_empty()
}

/// The positions of the loop parameters that are dimensions of other loop parameters' types.
pub(super) fn size_params(params: &[(Var, SubExp)], names: &NameTable) -> Vec<usize> {
    let used: HashSet<Var> = params
        .iter()
        .flat_map(|(p, _)| names.ty(*p).dims().to_vec())
        .filter_map(|d| d.as_var())
        .collect();
    (0..params.len())
        .filter(|j| used.contains(&params[*j].0))
        .collect()
}

impl Vjp<'_> {
    /// For loop `s` (a `for` loop whose arrays change size, running `n` times): the
    /// [`FlatSlot`] of every parameter that is an array (`None` for scalars). The sizes are
    /// only known by running the loop, so a copy of it runs here first and records them.
    pub(super) fn flat_layout(&mut self, s: &Stm, n: SubExp) -> R<Vec<Option<FlatSlot>>> {
        let (mut copy, _) = self.rename(std::slice::from_ref(s), &[], HashMap::new());
        let Some(Stm {
            pat,
            exp: Exp::Loop { params, form, body },
            aux,
        }) = copy.pop()
        else {
            return Err(Diagnostic::bug("flat_layout of a non-loop"));
        };
        let LoopForm::For { i, bound } = form else {
            return Err(Diagnostic::bug("flat_layout of a while loop"));
        };
        // The loop itself runs after the copy and consumes the same initial values.
        let params = self.copy_consumed_inits(s, params);
        let bt = self.e.ty(&bound).elem();
        let arrays: Vec<usize> = (0..params.len())
            .filter(|j| self.e.names.ty(params[*j].0).rank() > 0)
            .collect();
        let count_t = Type::array(PrimType::I64, vec![n]);
        let mut new_params = params.clone();
        let mut count_params = Vec::new();
        for _ in &arrays {
            let scratch = self.e.basic(
                BasicOp::Scratch {
                    elem: PrimType::I64,
                    shape: vec![n],
                },
                "counts",
            );
            let cp = self.e.fresh("counts", count_t.clone());
            new_params.push((cp, SubExp::Var(scratch)));
            count_params.push(cp);
        }
        let (stms, result) = self.nested(|v| {
            let i64i = if bt == PrimType::I64 {
                SubExp::Var(i)
            } else {
                v.e.prim(PrimOp::Conv(bt, PrimType::I64), vec![SubExp::Var(i)])
            };
            let mut out = body.result.clone();
            for (j, cp) in arrays.iter().zip(&count_params) {
                let t = v.e.names.ty(params[*j].0).clone();
                let count = v.num_elems(&t);
                out.push(v.write(*cp, i64i, count, "counts"));
            }
            v.e.add_stms(body.stms.clone());
            Ok(out)
        })?;
        let mut full_pat = pat;
        let mut counts = Vec::new();
        for _ in &arrays {
            let c = self.e.fresh("counts", count_t.clone());
            full_pat.push(c);
            counts.push(c);
        }
        self.e.add_stm(Stm {
            pat: full_pat,
            exp: Exp::Loop {
                params: new_params,
                form: LoopForm::For { i, bound },
                body: Body { stms, result },
            },
            aux,
        });
        let mut layout = vec![None; params.len()];
        for (j, c) in arrays.iter().zip(counts) {
            let add = self.bin_op_lambda(BinOp::Add, PrimType::I64)?;
            let offsets = self.exclusive_scan(n, add, &[SubExp::i64(0)], vec![c])?[0];
            let add = self.bin_op_lambda(BinOp::Add, PrimType::I64)?;
            let total = self.e.bind1(
                Exp::Soac(Soac::Reduce {
                    w: n,
                    lam: add,
                    neutral: vec![SubExp::i64(0)],
                    arrays: vec![c],
                    commutative: true,
                }),
                "total",
            );
            layout[*j] = Some(FlatSlot {
                offsets,
                counts: c,
                total: SubExp::Var(total),
            });
        }
        Ok(layout)
    }

    /// In the forward sweep's body, at iteration `i`: `buf` with array `p`, flattened,
    /// written at iteration `i`'s offset.
    pub(super) fn save_flat(&mut self, buf: Var, p: Var, slot: &FlatSlot, i: SubExp) -> Var {
        let start = self.read(slot.offsets, i, "offset");
        let count = self.read(slot.counts, i, "count");
        let flat = self.e.reshape(SubExp::Var(p), vec![count], "flat");
        self.e.basic(
            BasicOp::Update {
                array: buf,
                slice: vec![DimIndex::Slice {
                    start,
                    count,
                    stride: SubExp::i64(1),
                }],
                value: SubExp::Var(flat),
            },
            "checkpoints",
        )
    }

    /// In the return sweep's body, at iteration `i`: the value of type `t` (the parameter's
    /// type with iteration `i`'s sizes, already restored) saved in `buf` at `offsets[i]`.
    pub(super) fn read_flat(&mut self, buf: Var, offsets: Var, t: &Type, i: SubExp) -> Var {
        let count = self.num_elems(t);
        let start = self.read(offsets, i, "offset");
        let elems = self.e.index(
            buf,
            vec![DimIndex::Slice {
                start,
                count,
                stride: SubExp::i64(1),
            }],
            "checkpoint",
        );
        self.e
            .reshape(SubExp::Var(elems), t.dims().to_vec(), "checkpoint")
    }
}
