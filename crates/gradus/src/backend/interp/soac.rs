//! Second-order array combinators and accumulators.
//!
//! Each SOAC runs its lambda once per row, left to right, binding the lambda's parameters to
//! rows of the inputs (scalars for one-dimensional inputs, copied sub-arrays otherwise) and
//! collecting results into flat buffers row by row ([`Stacker`]).

use super::val::{AccState, Stacker, Val, buffer_mut, row, size_error, type_text, write_block};
use super::{Frame, Machine, R, internal};
use crate::core::ir::{Lambda, ScremaForm, Soac, SubExp, Type, Var};
use crate::value::{Array, Scalar};
use std::cell::RefCell;
use std::rc::Rc;

/// An input of a SOAC: an array split into rows, or an accumulator passed whole.
enum Input {
    Rows(Array),
    Acc(Val),
}

/// An output of `map`: rows stacked into an array, or an accumulator threaded through.
enum Output {
    Rows(Stacker),
    Acc(Option<Val>),
}

impl Machine<'_> {
    /// An input array of a SOAC of width `w`: checks its outer size.
    fn soac_input(&self, frame: &Frame, v: Var, w: usize) -> R<Array> {
        match self.get(frame, v)? {
            Val::Array(a) => {
                check_width(a, w)?;
                Ok(a.clone())
            }
            other => internal(format!(
                "SOAC input {} is a {}, expected an array",
                self.name(v),
                other.type_name()
            )),
        }
    }

    /// A consumed destination array (`hist`, `scatter`).
    fn soac_dest(&self, frame: &mut Frame, v: Var) -> R<Array> {
        match self.take(frame, v)? {
            Val::Array(a) if a.rank() >= 1 => Ok(a),
            other => internal(format!(
                "destination {} is a {}, expected an array",
                self.name(v),
                other.type_name()
            )),
        }
    }

    /// Runs a lambda on arguments.
    fn apply_lambda(&mut self, frame: &mut Frame, lam: &Lambda, args: Vec<Val>) -> R<Vec<Val>> {
        let mut args = args;
        self.apply_lambda_drain(frame, lam, &mut args)
    }

    /// Runs a lambda on arguments taken out of `args` (whose capacity is kept for reuse).
    fn apply_lambda_drain(
        &mut self,
        frame: &mut Frame,
        lam: &Lambda,
        args: &mut Vec<Val>,
    ) -> R<Vec<Val>> {
        if args.len() != lam.params.len() {
            return internal(format!(
                "lambda of {} parameters applied to {} arguments",
                lam.params.len(),
                args.len()
            ));
        }
        for (&p, a) in lam.params.iter().zip(args.drain(..)) {
            self.bind(frame, p, a)?;
        }
        let r = self.eval_body(frame, &lam.body)?;
        if r.len() != lam.ret.len() {
            return internal(format!(
                "lambda returns {} values, declared {}",
                r.len(),
                lam.ret.len()
            ));
        }
        Ok(r)
    }

    /// The shape of a row of pattern variable `v` (an array), for results of width 0.
    fn row_shape_of(&self, frame: &Frame, v: Option<&Var>) -> Vec<usize> {
        let Some(&v) = v else {
            return Vec::new();
        };
        if v.0 as usize >= self.prog.names.len() {
            return Vec::new();
        }
        let dims = self.prog.names.ty(v).dims();
        dims.iter()
            .skip(1)
            .map(|d| {
                self.int(frame, d)
                    .ok()
                    .and_then(|n| usize::try_from(n).ok())
                    .unwrap_or(0)
            })
            .collect()
    }

    fn stackers(&self, lam: &Lambda, w: usize) -> Vec<Stacker> {
        lam.ret.iter().map(|t| Stacker::new(t.elem(), w)).collect()
    }

    fn finish(&self, frame: &Frame, pat: &[Var], outs: Vec<Stacker>) -> R<Vec<Val>> {
        outs.into_iter()
            .enumerate()
            .map(|(j, s)| Ok(s.finish(|| self.row_shape_of(frame, pat.get(j)))?))
            .collect()
    }

    pub(super) fn eval_soac(&mut self, frame: &mut Frame, pat: &[Var], soac: &Soac) -> R<Vec<Val>> {
        match soac {
            Soac::Map { w, lam, arrays } => self.eval_map(frame, pat, *w, lam, arrays),
            Soac::Reduce {
                w,
                lam,
                neutral,
                arrays,
                ..
            } => {
                let w = self.size(frame, w)?;
                let inputs = arrays
                    .iter()
                    .map(|v| self.soac_input(frame, *v, w))
                    .collect::<R<Vec<_>>>()?;
                let mut acc = self.operands(frame, neutral)?;
                for i in 0..w {
                    let mut args = acc;
                    for a in &inputs {
                        args.push(row(a, i)?);
                    }
                    acc = self.apply_lambda(frame, lam, args)?;
                }
                Ok(acc)
            }
            Soac::Scan {
                w,
                lam,
                neutral,
                arrays,
            } => {
                let w = self.size(frame, w)?;
                let inputs = arrays
                    .iter()
                    .map(|v| self.soac_input(frame, *v, w))
                    .collect::<R<Vec<_>>>()?;
                let mut acc = self.operands(frame, neutral)?;
                let mut outs = self.stackers(lam, w);
                if outs.len() != acc.len() {
                    return internal("scan operator and neutral elements disagree");
                }
                for i in 0..w {
                    let mut args = acc;
                    for a in &inputs {
                        args.push(row(a, i)?);
                    }
                    acc = self.apply_lambda(frame, lam, args)?;
                    for (o, v) in outs.iter_mut().zip(&acc) {
                        o.push(v)?;
                    }
                }
                self.finish(frame, pat, outs)
            }
            Soac::Hist {
                w,
                dests,
                lam,
                indices,
                values,
                ..
            } => {
                let w = self.size(frame, w)?;
                let is = self.soac_input(frame, *indices, w)?;
                let vs = values
                    .iter()
                    .map(|v| self.soac_input(frame, *v, w))
                    .collect::<R<Vec<_>>>()?;
                let mut ds = dests
                    .iter()
                    .map(|v| self.soac_dest(frame, *v))
                    .collect::<R<Vec<_>>>()?;
                if ds.len() != vs.len() {
                    return internal("hist with different numbers of destinations and values");
                }
                for i in 0..w {
                    let Some(bin) = index_at(&is, i) else {
                        return internal("hist indices are not integers");
                    };
                    if ds
                        .iter()
                        .any(|d| bin < 0 || bin as u64 >= d.shape()[0] as u64)
                    {
                        continue;
                    }
                    let bin = bin as usize;
                    let mut args = Vec::with_capacity(2 * ds.len());
                    for d in &ds {
                        args.push(row(d, bin)?);
                    }
                    for v in &vs {
                        args.push(row(v, i)?);
                    }
                    let new = self.apply_lambda(frame, lam, args)?;
                    if new.len() != ds.len() {
                        return internal("hist operator returns the wrong number of values");
                    }
                    for (d, v) in ds.iter_mut().zip(&new) {
                        let n = write_row(&mut self.counts.copies_on_write, d, bin, v)?;
                        self.counts.element_reads += n as u64;
                        self.counts.element_writes += n as u64;
                    }
                }
                Ok(ds.into_iter().map(Val::Array).collect())
            }
            Soac::Scatter {
                w,
                dests,
                indices,
                values,
            } => {
                let w = self.size(frame, w)?;
                let is = self.soac_input(frame, *indices, w)?;
                let vs = values
                    .iter()
                    .map(|v| self.soac_input(frame, *v, w))
                    .collect::<R<Vec<_>>>()?;
                let mut ds = dests
                    .iter()
                    .map(|v| self.soac_dest(frame, *v))
                    .collect::<R<Vec<_>>>()?;
                if ds.len() != vs.len() {
                    return internal("scatter with different numbers of destinations and values");
                }
                for (d, v) in ds.iter_mut().zip(&vs) {
                    let inner = &d.shape()[1..];
                    if v.shape()[1..] != *inner || v.elem_type() != d.elem_type() {
                        let mut want = vec![w];
                        want.extend_from_slice(inner);
                        return Err(size_error(v.shape(), &type_text(&want, d.elem_type())).into());
                    }
                    let n = d.shape()[0];
                    let block: usize = inner.iter().product();
                    let buf = buffer_mut(&mut self.counts.copies_on_write, d);
                    for i in 0..w {
                        let Some(k) = index_at(&is, i) else {
                            return internal("scatter indices are not integers");
                        };
                        if k < 0 || k as u64 >= n as u64 {
                            continue;
                        }
                        let k = k as usize;
                        if !write_block(buf, k * block, v.buffer(), i * block..(i + 1) * block) {
                            return internal("scatter outside the array");
                        }
                        self.counts.element_writes += block as u64;
                    }
                }
                Ok(ds.into_iter().map(Val::Array).collect())
            }
            Soac::Screma {
                w,
                map,
                arrays,
                form,
            } => self.eval_screma(frame, pat, *w, map, arrays, form),
        }
    }

    /// A fused map and consumer: per row, the map lambda's results go straight to the
    /// consumer, exactly as the unfused pair would see them row by row.
    fn eval_screma(
        &mut self,
        frame: &mut Frame,
        pat: &[Var],
        w: SubExp,
        map: &Lambda,
        arrays: &[Var],
        form: &ScremaForm,
    ) -> R<Vec<Val>> {
        let w = self.size(frame, &w)?;
        let inputs = arrays
            .iter()
            .map(|v| self.soac_input(frame, *v, w))
            .collect::<R<Vec<_>>>()?;
        let mut args = Vec::with_capacity(inputs.len());
        let mut mapped = |m: &mut Self, frame: &mut Frame, i: usize| -> R<Vec<Val>> {
            args.clear();
            for a in &inputs {
                args.push(row(a, i)?);
            }
            m.apply_lambda_drain(frame, map, &mut args)
        };
        match form {
            ScremaForm::Reduce { lam, neutral, .. } => {
                let k = neutral.len();
                let mut acc = self.operands(frame, neutral)?;
                // The map's own results past the `k` reduced values, stacked.
                let mut outs: Vec<Stacker> = map.ret[k.min(map.ret.len())..]
                    .iter()
                    .map(|t| Stacker::new(t.elem(), w))
                    .collect();
                for i in 0..w {
                    let mut xs = acc;
                    let mut row = mapped(self, frame, i)?;
                    for (o, v) in outs.iter_mut().zip(row.drain(k.min(row.len())..)) {
                        o.push(&v)?;
                    }
                    xs.extend(row);
                    acc = self.apply_lambda(frame, lam, xs)?;
                }
                acc.extend(self.finish(frame, &pat[k.min(pat.len())..], outs)?);
                Ok(acc)
            }
            ScremaForm::Scan { lam, neutral } => {
                let mut acc = self.operands(frame, neutral)?;
                let mut outs = self.stackers(lam, w);
                if outs.len() != acc.len() {
                    return internal("scan operator and neutral elements disagree");
                }
                for i in 0..w {
                    let mut xs = acc;
                    xs.extend(mapped(self, frame, i)?);
                    acc = self.apply_lambda(frame, lam, xs)?;
                    for (o, v) in outs.iter_mut().zip(&acc) {
                        o.push(v)?;
                    }
                }
                self.finish(frame, pat, outs)
            }
            ScremaForm::Hist { dests, lam, .. } => {
                let mut ds = dests
                    .iter()
                    .map(|v| self.soac_dest(frame, *v))
                    .collect::<R<Vec<_>>>()?;
                for i in 0..w {
                    let mut vs = mapped(self, frame, i)?.into_iter();
                    let Some(Val::Scalar(Scalar::I64(bin))) = vs.next() else {
                        return internal("histomap index is not an i64");
                    };
                    if ds
                        .iter()
                        .any(|d| bin < 0 || bin as u64 >= d.shape()[0] as u64)
                    {
                        continue;
                    }
                    let bin = bin as usize;
                    let mut xs = Vec::with_capacity(2 * ds.len());
                    for d in &ds {
                        xs.push(row(d, bin)?);
                    }
                    xs.extend(vs);
                    let new = self.apply_lambda(frame, lam, xs)?;
                    if new.len() != ds.len() {
                        return internal("hist operator returns the wrong number of values");
                    }
                    for (d, v) in ds.iter_mut().zip(&new) {
                        let n = write_row(&mut self.counts.copies_on_write, d, bin, v)?;
                        self.counts.element_reads += n as u64;
                        self.counts.element_writes += n as u64;
                    }
                }
                Ok(ds.into_iter().map(Val::Array).collect())
            }
            ScremaForm::Scatter { dests } => {
                let mut ds = dests
                    .iter()
                    .map(|v| self.soac_dest(frame, *v))
                    .collect::<R<Vec<_>>>()?;
                for i in 0..w {
                    let mut vs = mapped(self, frame, i)?.into_iter();
                    let Some(Val::Scalar(Scalar::I64(k))) = vs.next() else {
                        return internal("scattermap index is not an i64");
                    };
                    for (d, v) in ds.iter_mut().zip(vs) {
                        if k < 0 || k as u64 >= d.shape()[0] as u64 {
                            continue;
                        }
                        let n = write_row(&mut self.counts.copies_on_write, d, k as usize, &v)?;
                        self.counts.element_writes += n as u64;
                    }
                }
                Ok(ds.into_iter().map(Val::Array).collect())
            }
        }
    }

    fn operands(&self, frame: &Frame, ses: &[SubExp]) -> R<Vec<Val>> {
        ses.iter().map(|se| self.subexp(frame, se)).collect()
    }

    fn eval_map(
        &mut self,
        frame: &mut Frame,
        pat: &[Var],
        w: SubExp,
        lam: &Lambda,
        arrays: &[Var],
    ) -> R<Vec<Val>> {
        let w = self.size(frame, &w)?;
        let mut inputs = Vec::with_capacity(arrays.len());
        let mut acc_inputs = Vec::new();
        for &v in arrays {
            match self.get(frame, v)? {
                Val::Array(a) => {
                    check_width(a, w)?;
                    inputs.push(Input::Rows(a.clone()));
                }
                acc @ Val::Acc(_) => {
                    acc_inputs.push(acc.clone());
                    inputs.push(Input::Acc(acc.clone()));
                }
                Val::Scalar(_) => {
                    return internal(format!("map over the scalar {}", self.name(v)));
                }
            }
        }
        let mut acc_inputs = acc_inputs.into_iter();
        let mut outs: Vec<Output> = lam
            .ret
            .iter()
            .map(|t| match t {
                Type::Acc { .. } => Output::Acc(acc_inputs.next()),
                t => Output::Rows(Stacker::new(t.elem(), w)),
            })
            .collect();
        let mut args = Vec::with_capacity(inputs.len());
        for i in 0..w {
            args.clear();
            for input in &inputs {
                args.push(match input {
                    Input::Rows(a) => row(a, i)?,
                    Input::Acc(acc) => acc.clone(),
                });
            }
            let res = self.apply_lambda_drain(frame, lam, &mut args)?;
            for (o, v) in outs.iter_mut().zip(res) {
                match o {
                    Output::Rows(s) => s.push(&v)?,
                    Output::Acc(last) => *last = Some(v),
                }
            }
        }
        outs.into_iter()
            .enumerate()
            .map(|(j, o)| match o {
                Output::Rows(s) => Ok(s.finish(|| self.row_shape_of(frame, pat.get(j)))?),
                Output::Acc(Some(v)) => Ok(v),
                Output::Acc(None) => internal("map returns an accumulator it was not given"),
            })
            .collect()
    }

    pub(super) fn eval_with_acc(
        &mut self,
        frame: &mut Frame,
        inputs: &[(Vec<SubExp>, Vec<Var>)],
        lam: &Lambda,
    ) -> R<Vec<Val>> {
        let mut handles = Vec::with_capacity(inputs.len());
        for (shape, arrays) in inputs {
            let dims = self.dims_usize(frame, shape)?;
            let mut arrs = Vec::with_capacity(arrays.len());
            for &v in arrays {
                let a = self.soac_dest(frame, v)?;
                if a.shape().len() < dims.len() || a.shape()[..dims.len()] != dims[..] {
                    let mut want = dims.clone();
                    want.extend_from_slice(a.shape().get(dims.len()..).unwrap_or(&[]));
                    return Err(size_error(a.shape(), &type_text(&want, a.elem_type())).into());
                }
                arrs.push(a);
            }
            handles.push(Rc::new(RefCell::new(AccState {
                shape: dims,
                arrays: arrs,
            })));
        }
        let args = handles.iter().map(|h| Val::Acc(h.clone())).collect();
        let res = self.apply_lambda(frame, lam, args)?;
        if res.len() < handles.len() {
            return internal("with_acc lambda returns fewer values than accumulators");
        }
        let mut out = Vec::new();
        for h in &handles {
            let Ok(mut state) = h.try_borrow_mut() else {
                return internal("accumulator in use");
            };
            out.extend(
                std::mem::take(&mut state.arrays)
                    .into_iter()
                    .map(Val::Array),
            );
        }
        out.extend(res.into_iter().skip(handles.len()));
        Ok(out)
    }

    fn dims_usize(&self, frame: &Frame, dims: &[SubExp]) -> R<Vec<usize>> {
        dims.iter().map(|d| self.size(frame, d)).collect()
    }
}

/// Checks that `a` has outer size `w` (the size check of `map2`, `zip`...).
fn check_width(a: &Array, w: usize) -> R<()> {
    if a.shape().first() == Some(&w) {
        return Ok(());
    }
    let mut want = vec![w];
    want.extend_from_slice(a.shape().get(1..).unwrap_or(&[]));
    Err(size_error(a.shape(), &type_text(&want, a.elem_type())).into())
}

/// Element `i` of a one-dimensional integer array, as an `i64`.
fn index_at(a: &Array, i: usize) -> Option<i64> {
    if a.rank() != 1 || i >= a.len() {
        return None;
    }
    match a.buffer().get(i) {
        Scalar::F32(_) | Scalar::F64(_) => None,
        s => s.as_i64(),
    }
}

/// Overwrites row `k` of `d` with `v`; returns the number of elements written.
fn write_row(copies: &mut u64, d: &mut Array, k: usize, v: &Val) -> R<usize> {
    let block: usize = d.shape()[1..].iter().product();
    let elem = d.elem_type();
    let ok = match v {
        Val::Scalar(x) if d.rank() == 1 => buffer_mut(copies, d).set(k, *x),
        Val::Array(x) if x.shape() == &d.shape()[1..] => {
            write_block(buffer_mut(copies, d), k * block, x.buffer(), 0..block)
        }
        Val::Array(x) if x.elem_type() == elem => {
            return Err(size_error(x.shape(), &type_text(&d.shape()[1..], elem)).into());
        }
        _ => false,
    };
    if ok {
        Ok(block)
    } else {
        internal(format!(
            "writing a {} into a row of {}",
            v.type_name(),
            type_text(d.shape(), elem)
        ))
    }
}
