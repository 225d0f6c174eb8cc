//! Basic operations: scalar operations, indexing, updates, array constructors, checks and
//! accumulator updates.

use super::val::{
    Val, add_block, array, buffer_mut, elem_count, gather, int_scalar, plain, repeat_buffer,
    shape_text, size_error, slice_buffer, type_text, write_block,
};
use super::{Frame, Machine, R, internal};
use crate::core::ir::{BasicOp, DimIndex, SubExp};
use crate::value::{Array, Buffer, Scalar};

/// One resolved entry of an index or slice.
#[derive(Clone, Copy, Debug)]
enum Ix {
    Fix(i64),
    Slice { start: i64, count: i64, stride: i64 },
}

/// Where the elements selected by a slice are: `blocks` contiguous runs of `block_len`
/// elements starting at the given offsets, in row-major order of the result.
struct Plan {
    shape: Vec<usize>,
    starts: Vec<usize>,
    block_len: usize,
}

/// `[1, 2:9, 0:8:2]`, the slice as written in the source, with values.
fn slice_text(ixs: &[Ix]) -> String {
    let parts: Vec<String> = ixs
        .iter()
        .map(|ix| match *ix {
            Ix::Fix(i) => i.to_string(),
            Ix::Slice {
                start,
                count,
                stride,
            } => {
                let end = start as i128 + count as i128 * stride as i128;
                if stride == 1 {
                    format!("{start}:{end}")
                } else {
                    format!("{start}:{end}:{stride}")
                }
            }
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// Checks every position of the slice against `shape`.
fn check_slice(ixs: &[Ix], shape: &[usize]) -> Result<(), String> {
    let ok = ixs.iter().zip(shape).all(|(ix, &d)| {
        let d = d as i128;
        match *ix {
            Ix::Fix(i) => (0..d).contains(&(i as i128)),
            Ix::Slice {
                start,
                count,
                stride,
            } => {
                let (start, count, stride) = (start as i128, count as i128, stride as i128);
                if count < 0 || (stride == 0 && count > 1) {
                    false
                } else if count == 0 {
                    (-1..=d).contains(&start)
                } else {
                    let last = start + (count - 1) * stride;
                    (0..d).contains(&start) && (0..d).contains(&last)
                }
            }
        }
    });
    if ok {
        Ok(())
    } else {
        Err(format!(
            "Index {} out of bounds for array of shape {}.",
            slice_text(ixs),
            shape_text(shape)
        ))
    }
}

/// The layout of a checked slice of an array of `shape`.
fn plan(ixs: &[Ix], shape: &[usize]) -> Plan {
    let k = ixs.len();
    let mut strides = vec![1usize; shape.len()];
    for j in (0..shape.len().saturating_sub(1)).rev() {
        strides[j] = strides[j + 1] * shape[j + 1];
    }
    let inner: usize = shape[k..].iter().product();
    let mut result_shape: Vec<usize> = ixs
        .iter()
        .filter_map(|ix| match ix {
            Ix::Fix(_) => None,
            Ix::Slice { count, .. } => Some(*count as usize),
        })
        .collect();
    result_shape.extend_from_slice(&shape[k..]);
    // A trailing slice of stride 1 selects one contiguous run per position of the others.
    let (outer, block_len, base) = match ixs.last() {
        Some(Ix::Slice {
            start,
            count,
            stride: 1,
        }) => (
            &ixs[..k - 1],
            *count as usize * inner,
            *start as usize * strides[k - 1],
        ),
        _ => (ixs, inner, 0),
    };
    let mut starts = vec![base];
    for (j, ix) in outer.iter().enumerate() {
        let positions: Vec<usize> = match *ix {
            Ix::Fix(i) => vec![i as usize],
            Ix::Slice {
                start,
                count,
                stride,
            } => (0..count).map(|t| (start + t * stride) as usize).collect(),
        };
        let sj = strides[j];
        starts = starts
            .iter()
            .flat_map(|&s| positions.iter().map(move |&p| s + p * sj))
            .collect();
    }
    Plan {
        shape: result_shape,
        starts,
        block_len,
    }
}

/// The flat offset of a full index (checked).
fn offset(ixs: &[Ix], shape: &[usize]) -> usize {
    let mut off = 0usize;
    for (ix, &d) in ixs.iter().zip(shape) {
        if let Ix::Fix(i) = ix {
            off = off * d + *i as usize;
        }
    }
    off
}

/// The message of a failed `assert`: each `{}` of the template replaced by the next value.
fn fill_template(template: &str, args: &[Scalar]) -> String {
    let mut out = String::new();
    let mut args = args.iter();
    let mut rest = template;
    while let Some(p) = rest.find("{}") {
        out.push_str(&rest[..p]);
        match args.next() {
            Some(a) => out.push_str(&plain(*a)),
            None => out.push_str("{}"),
        }
        rest = &rest[p + 2..];
    }
    out.push_str(rest);
    out
}

impl Machine<'_> {
    fn resolve_slice(&self, frame: &Frame, slice: &[DimIndex]) -> R<Vec<Ix>> {
        slice
            .iter()
            .map(|d| {
                Ok(match d {
                    DimIndex::Fix(i) => Ix::Fix(self.int(frame, i)?),
                    DimIndex::Slice {
                        start,
                        count,
                        stride,
                    } => Ix::Slice {
                        start: self.int(frame, start)?,
                        count: self.int(frame, count)?,
                        stride: self.int(frame, stride)?,
                    },
                })
            })
            .collect()
    }

    /// The flat offset of `slice` in an array of `shape` when the slice is a full index (one
    /// position per dimension), computed without allocating; `None` for other slices. Fails
    /// with the out-of-bounds message.
    fn full_offset(&self, frame: &Frame, slice: &[DimIndex], shape: &[usize]) -> R<Option<usize>> {
        if slice.len() != shape.len() {
            return Ok(None);
        }
        let mut off = 0usize;
        for (d, &n) in slice.iter().zip(shape) {
            let DimIndex::Fix(i) = d else {
                return Ok(None);
            };
            let i = self.int(frame, i)?;
            if i < 0 || i as u64 >= n as u64 {
                let ixs = self.resolve_slice(frame, slice)?;
                check_slice(&ixs, shape)?;
                return internal("index checks disagree");
            }
            off = off * n + i as usize;
        }
        Ok(Some(off))
    }

    fn array_of<'f>(&self, frame: &'f Frame, v: crate::core::ir::Var) -> R<&'f Array> {
        match self.get(frame, v)? {
            Val::Array(a) if a.rank() >= 1 => Ok(a),
            other => internal(format!(
                "{} is a {}, expected an array",
                self.name(v),
                other.type_name()
            )),
        }
    }

    fn dims(&self, frame: &Frame, dims: &[SubExp]) -> R<Vec<i64>> {
        dims.iter().map(|d| self.int(frame, d)).collect()
    }

    /// Evaluates a basic operation; `None` for operations that bind nothing (`assert`).
    pub(super) fn eval_basic(&mut self, frame: &mut Frame, op: &BasicOp) -> R<Option<Val>> {
        let v = match op {
            BasicOp::SubExp(se) => self.subexp(frame, se)?,
            BasicOp::Prim(op, args) => {
                let mut xs = [Scalar::Bool(false); 3];
                if args.len() > xs.len() {
                    return internal(format!("{op} applied to {} operands", args.len()));
                }
                for (x, a) in xs.iter_mut().zip(args) {
                    *x = self.scalar(frame, a)?;
                }
                self.counts.prim_ops += 1;
                Val::Scalar(op.eval(&xs[..args.len()]).map_err(|e| e.to_string())?)
            }
            BasicOp::Index { array: arr, slice } => {
                if let Val::Array(a) = self.get(frame, *arr)?
                    && let Some(off) = self.full_offset(frame, slice, a.shape())?
                {
                    self.counts.element_reads += 1;
                    return Ok(Some(Val::Scalar(a.buffer().get(off))));
                }
                let ixs = self.resolve_slice(frame, slice)?;
                let v = self.get(frame, *arr)?;
                let Val::Array(a) = v else {
                    if ixs.is_empty() {
                        self.counts.element_reads += 1;
                        return Ok(Some(v.clone()));
                    }
                    return internal(format!("indexing the scalar {}", self.name(*arr)));
                };
                if ixs.len() > a.rank() {
                    return internal(format!(
                        "{} indices for an array of rank {}",
                        ixs.len(),
                        a.rank()
                    ));
                }
                check_slice(&ixs, a.shape())?;
                if ixs.len() == a.rank() && ixs.iter().all(|ix| matches!(ix, Ix::Fix(_))) {
                    self.counts.element_reads += 1;
                    Val::Scalar(a.buffer().get(offset(&ixs, a.shape())))
                } else {
                    let p = plan(&ixs, a.shape());
                    let n = p.starts.len() * p.block_len;
                    let mut b = Buffer::with_capacity(a.elem_type(), n);
                    for &s in &p.starts {
                        b.extend_from(a.buffer(), s..s + p.block_len);
                    }
                    self.counts.element_reads += n as u64;
                    Val::Array(array(p.shape, b)?)
                }
            }
            BasicOp::Update {
                array: arr,
                slice,
                value,
            } => {
                let value = self.subexp(frame, value)?;
                if let Val::Scalar(x) = value
                    && let Val::Array(a) = self.get(frame, *arr)?
                    && let Some(off) = self.full_offset(frame, slice, a.shape())?
                {
                    let Val::Array(mut a) = self.take(frame, *arr)? else {
                        return internal("array changed while updating it");
                    };
                    if !buffer_mut(&mut self.counts.copies_on_write, &mut a).set(off, x) {
                        return internal(format!(
                            "writing a {} into a {} array",
                            x.prim_type(),
                            a.elem_type()
                        ));
                    }
                    self.counts.element_writes += 1;
                    return Ok(Some(Val::Array(a)));
                }
                let ixs = self.resolve_slice(frame, slice)?;
                let Val::Array(mut a) = self.take(frame, *arr)? else {
                    return internal(format!("updating the scalar {}", self.name(*arr)));
                };
                if ixs.len() > a.rank() {
                    return internal(format!(
                        "{} indices for an array of rank {}",
                        ixs.len(),
                        a.rank()
                    ));
                }
                check_slice(&ixs, a.shape())?;
                let p = plan(&ixs, a.shape());
                let elem = a.elem_type();
                match value {
                    Val::Scalar(x) if p.shape.is_empty() => {
                        let off = offset(&ixs, a.shape());
                        if !buffer_mut(&mut self.counts.copies_on_write, &mut a).set(off, x) {
                            return internal(format!(
                                "writing a {} into a {elem} array",
                                x.prim_type()
                            ));
                        }
                        self.counts.element_writes += 1;
                    }
                    Val::Array(v) if v.shape() == p.shape.as_slice() && v.elem_type() == elem => {
                        let buf = buffer_mut(&mut self.counts.copies_on_write, &mut a);
                        for (bi, &s) in p.starts.iter().enumerate() {
                            let src = bi * p.block_len..(bi + 1) * p.block_len;
                            if !write_block(buf, s, v.buffer(), src) {
                                return internal("update outside the array");
                            }
                        }
                        self.counts.element_writes += v.len() as u64;
                    }
                    Val::Array(v) if v.elem_type() == elem => {
                        return Err(size_error(v.shape(), &type_text(&p.shape, elem)).into());
                    }
                    other => {
                        return internal(format!(
                            "writing a {} into a slice of type {}",
                            other.type_name(),
                            type_text(&p.shape, elem)
                        ));
                    }
                }
                Val::Array(a)
            }
            BasicOp::Iota {
                n,
                start,
                stride,
                elem,
            } => {
                let n = self.int(frame, n)?;
                let s = super::int_value(self.scalar(frame, start)?);
                let st = super::int_value(self.scalar(frame, stride)?);
                let (Some(s), Some(st)) = (s, st) else {
                    return internal("iota of non-integers");
                };
                if n < 0 {
                    return Err(format!(
                        "Range {s}..{}..<{} is invalid.",
                        s + st,
                        s + n as i128 * st
                    )
                    .into());
                }
                if !elem.is_int() {
                    return internal(format!("iota of type {elem}"));
                }
                let len = elem_count(&[n as usize])?;
                let mut b = Buffer::with_capacity(*elem, len);
                let mut x = s;
                for _ in 0..len {
                    b.push(int_scalar(*elem, x));
                    x += st;
                }
                self.counts.elements_built += len as u64;
                Val::Array(array(vec![len], b)?)
            }
            BasicOp::Replicate { shape, value } => {
                let dims = self.dims(frame, shape)?;
                if let Some(&d) = dims.iter().find(|&&d| d < 0) {
                    return Err(format!("Range 0..1..<{d} is invalid.").into());
                }
                let v = self.subexp(frame, value)?;
                if dims.is_empty() {
                    return Ok(Some(v));
                }
                let mut full: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
                let times = elem_count(&full)?;
                full.extend_from_slice(v.shape());
                let n = elem_count(&full)?;
                let b = match &v {
                    Val::Scalar(x) => Buffer::filled(*x, times),
                    Val::Array(a) => repeat_buffer(a.buffer(), times),
                    Val::Acc(_) => return internal("replicating an accumulator"),
                };
                self.counts.elements_built += n as u64;
                Val::Array(array(full, b)?)
            }
            BasicOp::Scratch { elem, shape } => {
                let dims = self.dims(frame, shape)?;
                let Ok(dims) = dims
                    .iter()
                    .map(|&d| usize::try_from(d))
                    .collect::<Result<Vec<_>, _>>()
                else {
                    return internal("scratch of negative size");
                };
                let n = elem_count(&dims)?;
                if !dims.is_empty() {
                    self.counts.scratch_elements += n as u64;
                }
                if dims.is_empty() {
                    Val::Scalar(Scalar::zero(*elem))
                } else {
                    Val::Array(array(dims, Buffer::filled(Scalar::zero(*elem), n))?)
                }
            }
            BasicOp::ArrayLit { elems, row } => {
                let vals = elems
                    .iter()
                    .map(|e| self.subexp(frame, e))
                    .collect::<R<Vec<_>>>()?;
                let row_shape = match (self.resolve_dims(frame, row.dims()), vals.first()) {
                    (Some(s), _) => s,
                    (None, Some(v)) => v.shape().to_vec(),
                    (None, None) => vec![0; row.rank()],
                };
                let elem = row.elem();
                let mut shape = vec![vals.len()];
                shape.extend_from_slice(&row_shape);
                let n = elem_count(&shape)?;
                let mut b = Buffer::with_capacity(elem, n);
                for v in &vals {
                    if v.shape() != row_shape.as_slice() {
                        return Err(size_error(v.shape(), &type_text(&row_shape, elem)).into());
                    }
                    let ok = match v {
                        Val::Scalar(x) => b.push(*x),
                        Val::Array(a) => b.extend_from(a.buffer(), 0..a.len()),
                        Val::Acc(_) => false,
                    };
                    if !ok {
                        return internal(format!(
                            "a {} in an array literal of {elem}",
                            v.type_name()
                        ));
                    }
                }
                self.counts.elements_built += n as u64;
                Val::Array(array(shape, b)?)
            }
            BasicOp::Concat { arrays, size } => {
                let size = self.int(frame, size)?;
                let parts = arrays
                    .iter()
                    .map(|v| self.array_of(frame, *v))
                    .collect::<R<Vec<_>>>()?;
                let Some(first) = parts.first() else {
                    return internal("concatenation of no arrays");
                };
                let (elem, inner) = (first.elem_type(), first.shape()[1..].to_vec());
                let mut total = 0usize;
                for a in &parts {
                    if a.elem_type() != elem {
                        return internal("concatenation of arrays of different types");
                    }
                    if a.shape()[1..] != inner[..] {
                        let mut want = vec![a.shape()[0]];
                        want.extend_from_slice(&inner);
                        return Err(size_error(a.shape(), &type_text(&want, elem)).into());
                    }
                    total += a.shape()[0];
                }
                let mut shape = vec![total];
                shape.extend_from_slice(&inner);
                if size != total as i64 {
                    let mut want = vec![size.max(0) as usize];
                    want.extend_from_slice(&inner);
                    return Err(size_error(&shape, &type_text(&want, elem)).into());
                }
                let n = elem_count(&shape)?;
                let mut b = Buffer::with_capacity(elem, n);
                for a in &parts {
                    b.extend_from(a.buffer(), 0..a.len());
                }
                self.counts.elements_built += n as u64;
                Val::Array(array(shape, b)?)
            }
            BasicOp::Copy(v) => {
                let v = self.get(frame, *v)?.clone();
                self.counts.elements_built += match &v {
                    Val::Array(a) => a.len() as u64,
                    _ => 1,
                };
                v
            }
            BasicOp::Reshape { array: arr, shape } => {
                let dims = self.dims(frame, shape)?;
                let a = self.array_of(frame, *arr)?;
                let elem = a.elem_type();
                let want: Option<Vec<usize>> =
                    dims.iter().map(|&d| usize::try_from(d).ok()).collect();
                let fits = want
                    .as_ref()
                    .and_then(|w| elem_count(w).ok())
                    .is_some_and(|n| n == a.len());
                let want = match (want, fits) {
                    (Some(w), true) => w,
                    _ => {
                        let text: String = dims.iter().map(|d| format!("[{d}]")).collect();
                        return Err(size_error(a.shape(), &format!("{text}{elem}")).into());
                    }
                };
                if want.is_empty() {
                    Val::Scalar(a.buffer().get(0))
                } else {
                    match a.reshaped(want) {
                        Some(r) => Val::Array(r),
                        None => return internal("reshape changed the element count"),
                    }
                }
            }
            BasicOp::Rearrange { array: arr, perm } => {
                let a = self.array_of(frame, *arr)?;
                let r = a.rank();
                let mut seen = vec![false; r];
                for &p in perm {
                    match seen.get_mut(p) {
                        Some(s) if !*s => *s = true,
                        _ => return internal(format!("{perm:?} is not a permutation of rank {r}")),
                    }
                }
                if perm.len() != r {
                    return internal(format!("{perm:?} is not a permutation of rank {r}"));
                }
                if perm.iter().enumerate().all(|(i, &p)| i == p) {
                    Val::Array(a.clone())
                } else {
                    let shape = a.shape();
                    let mut in_strides = vec![1usize; r];
                    for j in (0..r.saturating_sub(1)).rev() {
                        in_strides[j] = in_strides[j + 1] * shape[j + 1];
                    }
                    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
                    let strides: Vec<usize> = perm.iter().map(|&p| in_strides[p]).collect();
                    let mut offsets = Vec::with_capacity(a.len());
                    if !a.is_empty() {
                        let mut idx = vec![0usize; r];
                        let mut off = 0usize;
                        'walk: loop {
                            offsets.push(off);
                            let mut j = r;
                            loop {
                                if j == 0 {
                                    break 'walk;
                                }
                                j -= 1;
                                idx[j] += 1;
                                off += strides[j];
                                if idx[j] < out_shape[j] {
                                    break;
                                }
                                off -= strides[j] * idx[j];
                                idx[j] = 0;
                            }
                        }
                    }
                    let Some(b) = gather(a.buffer(), &offsets) else {
                        return internal("rearrange outside the array");
                    };
                    self.counts.elements_built += b.len() as u64;
                    Val::Array(array(out_shape, b)?)
                }
            }
            BasicOp::Rotate { array: arr, amount } => {
                let amount = self.int(frame, amount)?;
                let a = self.array_of(frame, *arr)?;
                let n = a.shape()[0];
                self.counts.elements_built += a.len() as u64;
                if n == 0 {
                    Val::Array(a.clone())
                } else {
                    let r = amount.rem_euclid(n as i64) as usize;
                    let inner = a.len() / n;
                    let mut b = slice_buffer(a.buffer(), r * inner..a.len());
                    b.extend_from(a.buffer(), 0..r * inner);
                    Val::Array(array(a.shape().to_vec(), b)?)
                }
            }
            BasicOp::Coerce {
                array: arr,
                shape,
                type_text: text,
            } => {
                let dims = self.dims(frame, shape)?;
                let v = self.get(frame, *arr)?;
                let fits = v.shape().len() == dims.len()
                    && v.shape().iter().zip(&dims).all(|(&a, &b)| a as i64 == b);
                if !fits {
                    let text = if text.is_empty() {
                        let d: String = dims.iter().map(|d| format!("[{d}]")).collect();
                        format!("{d}{}", v_elem(v))
                    } else {
                        text.clone()
                    };
                    return Err(size_error(v.shape(), &text).into());
                }
                v.clone()
            }
            BasicOp::Assert {
                cond,
                message,
                args,
            } => {
                match self.scalar(frame, cond)? {
                    Scalar::Bool(true) => {}
                    Scalar::Bool(false) => {
                        let args = args
                            .iter()
                            .map(|a| self.scalar(frame, a))
                            .collect::<R<Vec<_>>>()?;
                        return Err(fill_template(message, &args).into());
                    }
                    other => return internal(format!("assert on a {}", other.prim_type())),
                }
                return Ok(None);
            }
            BasicOp::UpdateAcc {
                acc,
                indices,
                values,
            } => {
                let idx = self.dims(frame, indices)?;
                let vals = values
                    .iter()
                    .map(|v| self.subexp(frame, v))
                    .collect::<R<Vec<_>>>()?;
                let handle = match self.get(frame, *acc)? {
                    Val::Acc(h) => h.clone(),
                    other => {
                        return internal(format!(
                            "update_acc on {}, a {}",
                            self.name(*acc),
                            other.type_name()
                        ));
                    }
                };
                {
                    let Ok(mut state) = handle.try_borrow_mut() else {
                        return internal("accumulator in use");
                    };
                    if idx.len() != state.shape.len() || vals.len() != state.arrays.len() {
                        return internal(format!(
                            "update_acc with {} indices and {} values on an accumulator of rank {} with {} arrays",
                            idx.len(),
                            vals.len(),
                            state.shape.len(),
                            state.arrays.len()
                        ));
                    }
                    let in_range = idx
                        .iter()
                        .zip(&state.shape)
                        .all(|(&i, &d)| i >= 0 && (i as u64) < d as u64);
                    if in_range {
                        let mut pos = 0usize;
                        for (&i, &d) in idx.iter().zip(&state.shape) {
                            pos = pos * d + i as usize;
                        }
                        let k = state.shape.len();
                        for (a, v) in state.arrays.iter_mut().zip(&vals) {
                            let rest = a.shape()[k..].to_vec();
                            let block: usize = rest.iter().product();
                            let ok = match v {
                                Val::Scalar(x) if rest.is_empty() => {
                                    let src = Buffer::filled(*x, 1);
                                    add_block(
                                        buffer_mut(&mut self.counts.copies_on_write, a),
                                        pos,
                                        &src,
                                        0..1,
                                    )
                                }
                                Val::Array(x) if x.shape() == rest.as_slice() => add_block(
                                    buffer_mut(&mut self.counts.copies_on_write, a),
                                    pos * block,
                                    x.buffer(),
                                    0..block,
                                ),
                                Val::Array(x) if x.elem_type() == a.elem_type() => {
                                    return Err(size_error(
                                        x.shape(),
                                        &type_text(&rest, a.elem_type()),
                                    )
                                    .into());
                                }
                                _ => false,
                            };
                            if !ok {
                                return internal(format!(
                                    "adding a {} into an accumulator of {}",
                                    v.type_name(),
                                    type_text(a.shape(), a.elem_type())
                                ));
                            }
                            self.counts.prim_ops += block as u64;
                            self.counts.element_writes += block as u64;
                        }
                    }
                }
                Val::Acc(handle)
            }
        };
        Ok(Some(v))
    }
}

fn v_elem(v: &Val) -> &'static str {
    match v {
        Val::Scalar(s) => s.prim_type().name(),
        Val::Array(a) => a.elem_type().name(),
        Val::Acc(_) => "acc",
    }
}
