//! Run-time values exchanged with gradus programs: primitive scalars and regular
//! multidimensional arrays of primitives.
//!
//! An array is a flat, typed buffer in row-major order plus a shape — never a boxed value per
//! element. Buffers are reference counted so that passing an array around is cheap; a backend
//! that updates in place calls [`Array::buffer_mut`], which copies only when the buffer is
//! shared (copy-on-write). [`ValueRef`] and [`ArrayView`] borrow values from elsewhere (a
//! numpy array, an `ndarray` view) for calls that read them in place.

use std::sync::Arc;

pub use crate::core::scalar::{PrimType, Scalar};

/// The elements of an array: one flat vector of a single primitive type.
#[derive(Clone, Debug, PartialEq)]
#[allow(missing_docs)]
pub enum Buffer {
    Bool(Vec<bool>),
    I8(Vec<i8>),
    I16(Vec<i16>),
    I32(Vec<i32>),
    I64(Vec<i64>),
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
    U64(Vec<u64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
}

/// Applies `$body` to the vector inside a [`Buffer`], whatever its element type.
#[macro_export]
macro_rules! with_buffer {
    ($buf:expr, $v:ident => $body:expr) => {
        match $buf {
            $crate::value::Buffer::Bool($v) => $body,
            $crate::value::Buffer::I8($v) => $body,
            $crate::value::Buffer::I16($v) => $body,
            $crate::value::Buffer::I32($v) => $body,
            $crate::value::Buffer::I64($v) => $body,
            $crate::value::Buffer::U8($v) => $body,
            $crate::value::Buffer::U16($v) => $body,
            $crate::value::Buffer::U32($v) => $body,
            $crate::value::Buffer::U64($v) => $body,
            $crate::value::Buffer::F32($v) => $body,
            $crate::value::Buffer::F64($v) => $body,
        }
    };
}

impl Buffer {
    /// The element type.
    pub fn prim_type(&self) -> PrimType {
        match self {
            Buffer::Bool(_) => PrimType::Bool,
            Buffer::I8(_) => PrimType::I8,
            Buffer::I16(_) => PrimType::I16,
            Buffer::I32(_) => PrimType::I32,
            Buffer::I64(_) => PrimType::I64,
            Buffer::U8(_) => PrimType::U8,
            Buffer::U16(_) => PrimType::U16,
            Buffer::U32(_) => PrimType::U32,
            Buffer::U64(_) => PrimType::U64,
            Buffer::F32(_) => PrimType::F32,
            Buffer::F64(_) => PrimType::F64,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_buffer!(self, v => v.len())
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An empty buffer of type `t` with room for `capacity` elements.
    pub fn with_capacity(t: PrimType, capacity: usize) -> Buffer {
        match t {
            PrimType::Bool => Buffer::Bool(Vec::with_capacity(capacity)),
            PrimType::I8 => Buffer::I8(Vec::with_capacity(capacity)),
            PrimType::I16 => Buffer::I16(Vec::with_capacity(capacity)),
            PrimType::I32 => Buffer::I32(Vec::with_capacity(capacity)),
            PrimType::I64 => Buffer::I64(Vec::with_capacity(capacity)),
            PrimType::U8 => Buffer::U8(Vec::with_capacity(capacity)),
            PrimType::U16 => Buffer::U16(Vec::with_capacity(capacity)),
            PrimType::U32 => Buffer::U32(Vec::with_capacity(capacity)),
            PrimType::U64 => Buffer::U64(Vec::with_capacity(capacity)),
            PrimType::F32 => Buffer::F32(Vec::with_capacity(capacity)),
            PrimType::F64 => Buffer::F64(Vec::with_capacity(capacity)),
        }
    }

    /// `n` copies of `x`.
    pub fn filled(x: Scalar, n: usize) -> Buffer {
        match x {
            Scalar::Bool(v) => Buffer::Bool(vec![v; n]),
            Scalar::I8(v) => Buffer::I8(vec![v; n]),
            Scalar::I16(v) => Buffer::I16(vec![v; n]),
            Scalar::I32(v) => Buffer::I32(vec![v; n]),
            Scalar::I64(v) => Buffer::I64(vec![v; n]),
            Scalar::U8(v) => Buffer::U8(vec![v; n]),
            Scalar::U16(v) => Buffer::U16(vec![v; n]),
            Scalar::U32(v) => Buffer::U32(vec![v; n]),
            Scalar::U64(v) => Buffer::U64(vec![v; n]),
            Scalar::F32(v) => Buffer::F32(vec![v; n]),
            Scalar::F64(v) => Buffer::F64(vec![v; n]),
        }
    }

    /// Element `i`. Panics when out of range (callers check bounds first).
    pub fn get(&self, i: usize) -> Scalar {
        match self {
            Buffer::Bool(v) => Scalar::Bool(v[i]),
            Buffer::I8(v) => Scalar::I8(v[i]),
            Buffer::I16(v) => Scalar::I16(v[i]),
            Buffer::I32(v) => Scalar::I32(v[i]),
            Buffer::I64(v) => Scalar::I64(v[i]),
            Buffer::U8(v) => Scalar::U8(v[i]),
            Buffer::U16(v) => Scalar::U16(v[i]),
            Buffer::U32(v) => Scalar::U32(v[i]),
            Buffer::U64(v) => Scalar::U64(v[i]),
            Buffer::F32(v) => Scalar::F32(v[i]),
            Buffer::F64(v) => Scalar::F64(v[i]),
        }
    }

    /// Sets element `i` to `x`, which must have the buffer's type. Returns `false` (and does
    /// nothing) on a type mismatch.
    pub fn set(&mut self, i: usize, x: Scalar) -> bool {
        match (self, x) {
            (Buffer::Bool(v), Scalar::Bool(x)) => v[i] = x,
            (Buffer::I8(v), Scalar::I8(x)) => v[i] = x,
            (Buffer::I16(v), Scalar::I16(x)) => v[i] = x,
            (Buffer::I32(v), Scalar::I32(x)) => v[i] = x,
            (Buffer::I64(v), Scalar::I64(x)) => v[i] = x,
            (Buffer::U8(v), Scalar::U8(x)) => v[i] = x,
            (Buffer::U16(v), Scalar::U16(x)) => v[i] = x,
            (Buffer::U32(v), Scalar::U32(x)) => v[i] = x,
            (Buffer::U64(v), Scalar::U64(x)) => v[i] = x,
            (Buffer::F32(v), Scalar::F32(x)) => v[i] = x,
            (Buffer::F64(v), Scalar::F64(x)) => v[i] = x,
            _ => return false,
        }
        true
    }

    /// Appends `x`, which must have the buffer's type. Returns `false` on a type mismatch.
    pub fn push(&mut self, x: Scalar) -> bool {
        match (self, x) {
            (Buffer::Bool(v), Scalar::Bool(x)) => v.push(x),
            (Buffer::I8(v), Scalar::I8(x)) => v.push(x),
            (Buffer::I16(v), Scalar::I16(x)) => v.push(x),
            (Buffer::I32(v), Scalar::I32(x)) => v.push(x),
            (Buffer::I64(v), Scalar::I64(x)) => v.push(x),
            (Buffer::U8(v), Scalar::U8(x)) => v.push(x),
            (Buffer::U16(v), Scalar::U16(x)) => v.push(x),
            (Buffer::U32(v), Scalar::U32(x)) => v.push(x),
            (Buffer::U64(v), Scalar::U64(x)) => v.push(x),
            (Buffer::F32(v), Scalar::F32(x)) => v.push(x),
            (Buffer::F64(v), Scalar::F64(x)) => v.push(x),
            _ => return false,
        }
        true
    }

    /// Appends the elements `range` of `other`, which must have the same type. Returns `false`
    /// on a type mismatch.
    pub fn extend_from(&mut self, other: &Buffer, range: std::ops::Range<usize>) -> bool {
        match (self, other) {
            (Buffer::Bool(a), Buffer::Bool(b)) => a.extend_from_slice(&b[range]),
            (Buffer::I8(a), Buffer::I8(b)) => a.extend_from_slice(&b[range]),
            (Buffer::I16(a), Buffer::I16(b)) => a.extend_from_slice(&b[range]),
            (Buffer::I32(a), Buffer::I32(b)) => a.extend_from_slice(&b[range]),
            (Buffer::I64(a), Buffer::I64(b)) => a.extend_from_slice(&b[range]),
            (Buffer::U8(a), Buffer::U8(b)) => a.extend_from_slice(&b[range]),
            (Buffer::U16(a), Buffer::U16(b)) => a.extend_from_slice(&b[range]),
            (Buffer::U32(a), Buffer::U32(b)) => a.extend_from_slice(&b[range]),
            (Buffer::U64(a), Buffer::U64(b)) => a.extend_from_slice(&b[range]),
            (Buffer::F32(a), Buffer::F32(b)) => a.extend_from_slice(&b[range]),
            (Buffer::F64(a), Buffer::F64(b)) => a.extend_from_slice(&b[range]),
            _ => return false,
        }
        true
    }
}

/// A regular multidimensional array: a shape and a flat row-major buffer of
/// `shape.iter().product()` elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    shape: Vec<usize>,
    data: Arc<Buffer>,
}

impl Array {
    /// An array of the given shape. Returns `None` if the element count does not match.
    pub fn new(shape: Vec<usize>, data: Buffer) -> Option<Array> {
        let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        (n == data.len()).then(|| Array {
            shape,
            data: Arc::new(data),
        })
    }

    /// A one-dimensional array.
    pub fn from_buffer(data: Buffer) -> Array {
        Array {
            shape: vec![data.len()],
            data: Arc::new(data),
        }
    }

    /// The shape, outermost dimension first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The rank (number of dimensions, at least 1).
    pub fn rank(&self) -> usize {
        self.shape.len()
    }
    /// The element type.
    pub fn elem_type(&self) -> PrimType {
        self.data.prim_type()
    }
    /// The flat elements.
    pub fn buffer(&self) -> &Buffer {
        &self.data
    }
    /// The flat elements, for updating in place; copies them first if they are shared.
    pub fn buffer_mut(&mut self) -> &mut Buffer {
        Arc::make_mut(&mut self.data)
    }
    /// Total number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }
    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
    /// Takes the buffer out, copying only if it is shared.
    pub fn into_buffer(self) -> Buffer {
        Arc::try_unwrap(self.data).unwrap_or_else(|shared| (*shared).clone())
    }
    /// The same elements under another shape with the same number of elements, sharing the
    /// buffer (no copy). `None` if the element counts differ.
    pub fn reshaped(&self, shape: Vec<usize>) -> Option<Array> {
        let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        (n == self.data.len()).then(|| Array {
            shape,
            data: Arc::clone(&self.data),
        })
    }
}

/// A value: a primitive or an array of primitives.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A primitive value (rank 0).
    Scalar(Scalar),
    /// An array (rank at least 1).
    Array(Array),
}

impl Value {
    /// The element type.
    pub fn elem_type(&self) -> PrimType {
        match self {
            Value::Scalar(s) => s.prim_type(),
            Value::Array(a) => a.elem_type(),
        }
    }
    /// The shape (empty for scalars).
    pub fn shape(&self) -> &[usize] {
        match self {
            Value::Scalar(_) => &[],
            Value::Array(a) => a.shape(),
        }
    }
    /// The rank (0 for scalars).
    pub fn rank(&self) -> usize {
        self.shape().len()
    }
    /// The type of the value in source syntax, e.g. `[2][3]f64`.
    pub fn type_name(&self) -> String {
        let mut s = String::new();
        for d in self.shape() {
            s.push_str(&format!("[{d}]"));
        }
        s.push_str(self.elem_type().name());
        s
    }
}

impl From<Scalar> for Value {
    fn from(s: Scalar) -> Self {
        Value::Scalar(s)
    }
}

impl From<Array> for Value {
    fn from(a: Array) -> Self {
        Value::Array(a)
    }
}

/// An array borrowed from its owner (a [`Value`], a numpy array, an `ndarray` view): element
/// type, shape and the elements in row-major order. Calling a native program with borrowed
/// arguments passes their elements to the generated code where they lie, without copying.
#[derive(Clone, Copy, Debug)]
pub struct ArrayView<'a> {
    shape: &'a [usize],
    data: ViewData<'a>,
}

/// The elements of an [`ArrayView`].
#[derive(Clone, Copy, Debug)]
#[allow(missing_docs)]
pub enum ViewData<'a> {
    Bool(&'a [bool]),
    I8(&'a [i8]),
    I16(&'a [i16]),
    I32(&'a [i32]),
    I64(&'a [i64]),
    U8(&'a [u8]),
    U16(&'a [u16]),
    U32(&'a [u32]),
    U64(&'a [u64]),
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl<'a> ArrayView<'a> {
    /// A view of `data` under `shape` (rank at least 1). `None` if the element count does not
    /// match the shape or the shape is empty.
    pub fn new<T: Element>(shape: &'a [usize], data: &'a [T]) -> Option<ArrayView<'a>> {
        let n = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        (!shape.is_empty() && n == data.len()).then(|| ArrayView {
            shape,
            data: T::view(data),
        })
    }

    /// A view of an owned array.
    pub fn of(a: &'a Array) -> ArrayView<'a> {
        let data = with_buffer!(a.buffer(), v => Element::view(v.as_slice()));
        ArrayView {
            shape: a.shape(),
            data,
        }
    }

    /// The shape, outermost dimension first.
    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }
    /// The element type.
    pub fn elem_type(&self) -> PrimType {
        match self.data {
            ViewData::Bool(_) => PrimType::Bool,
            ViewData::I8(_) => PrimType::I8,
            ViewData::I16(_) => PrimType::I16,
            ViewData::I32(_) => PrimType::I32,
            ViewData::I64(_) => PrimType::I64,
            ViewData::U8(_) => PrimType::U8,
            ViewData::U16(_) => PrimType::U16,
            ViewData::U32(_) => PrimType::U32,
            ViewData::U64(_) => PrimType::U64,
            ViewData::F32(_) => PrimType::F32,
            ViewData::F64(_) => PrimType::F64,
        }
    }
    /// The elements.
    pub fn data(&self) -> ViewData<'a> {
        self.data
    }
    /// The address of the first element, as the generated code takes it.
    pub fn as_ptr(&self) -> *const std::ffi::c_void {
        macro_rules! ptr {
            ($($v:ident),*) => {
                match self.data { $(ViewData::$v(s) => s.as_ptr() as *const std::ffi::c_void),* }
            };
        }
        ptr!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64)
    }
    /// An owned copy.
    pub fn to_array(&self) -> Array {
        macro_rules! owned {
            ($($v:ident),*) => {
                match self.data { $(ViewData::$v(s) => Buffer::$v(crate::huge_pages::copy_of(s))),* }
            };
        }
        let buf = owned!(Bool, I8, I16, I32, I64, U8, U16, U32, U64, F32, F64);
        Array {
            shape: self.shape.to_vec(),
            data: Arc::new(buf),
        }
    }
}

/// A value borrowed from its owner: a primitive or an [`ArrayView`].
#[derive(Clone, Copy, Debug)]
pub enum ValueRef<'a> {
    /// A primitive value (rank 0).
    Scalar(Scalar),
    /// A borrowed array (rank at least 1).
    Array(ArrayView<'a>),
}

impl ValueRef<'_> {
    /// The element type.
    pub fn elem_type(&self) -> PrimType {
        match self {
            ValueRef::Scalar(s) => s.prim_type(),
            ValueRef::Array(a) => a.elem_type(),
        }
    }
    /// The shape (empty for scalars).
    pub fn shape(&self) -> &[usize] {
        match self {
            ValueRef::Scalar(_) => &[],
            ValueRef::Array(a) => a.shape(),
        }
    }
    /// The rank (0 for scalars).
    pub fn rank(&self) -> usize {
        self.shape().len()
    }
    /// The type of the value in source syntax, e.g. `[2][3]f64`.
    pub fn type_name(&self) -> String {
        let mut s: String = self.shape().iter().map(|d| format!("[{d}]")).collect();
        s.push_str(self.elem_type().name());
        s
    }
    /// An owned copy.
    pub fn to_value(&self) -> Value {
        match self {
            ValueRef::Scalar(s) => Value::Scalar(*s),
            ValueRef::Array(a) => Value::Array(a.to_array()),
        }
    }
}

impl Value {
    /// The value borrowed (no copy).
    pub fn as_value_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Scalar(s) => ValueRef::Scalar(*s),
            Value::Array(a) => ValueRef::Array(ArrayView::of(a)),
        }
    }
}

/// Element types that convert between `ndarray` arrays and [`Value`]s.
pub trait Element: Copy + 'static {
    /// The primitive type.
    const PRIM: PrimType;
    /// Wraps a vector of elements.
    fn into_buffer(v: Vec<Self>) -> Buffer;
    /// Borrows the elements of a buffer of this type.
    fn slice(b: &Buffer) -> Option<&[Self]>;
    /// Wraps borrowed elements.
    fn view(v: &[Self]) -> ViewData<'_>;
}

macro_rules! element {
    ($t:ty, $variant:ident) => {
        impl Element for $t {
            const PRIM: PrimType = PrimType::$variant;
            fn into_buffer(v: Vec<Self>) -> Buffer {
                Buffer::$variant(v)
            }
            fn slice(b: &Buffer) -> Option<&[Self]> {
                match b {
                    Buffer::$variant(v) => Some(v),
                    _ => None,
                }
            }
            fn view(v: &[Self]) -> ViewData<'_> {
                ViewData::$variant(v)
            }
        }
    };
}

element!(bool, Bool);
element!(i8, I8);
element!(i16, I16);
element!(i32, I32);
element!(i64, I64);
element!(u8, U8);
element!(u16, U16);
element!(u32, U32);
element!(u64, U64);
element!(f32, F32);
element!(f64, F64);

impl Value {
    /// Converts an `ndarray` array (any dimensionality; rank 0 gives a scalar).
    pub fn from_ndarray<T: Element, D: ndarray::Dimension>(a: ndarray::Array<T, D>) -> Value {
        let shape = a.shape().to_vec();
        let data: Vec<T> = a.iter().copied().collect();
        if shape.is_empty() {
            let b = T::into_buffer(data);
            return Value::Scalar(b.get(0));
        }
        // The element count matches the shape by construction.
        match Array::new(shape, T::into_buffer(data)) {
            Some(arr) => Value::Array(arr),
            None => Value::Scalar(Scalar::zero(T::PRIM)),
        }
    }

    /// Converts to a dynamic-dimensional `ndarray` array, if the element type is `T`.
    pub fn to_ndarray<T: Element>(&self) -> Option<ndarray::ArrayD<T>> {
        match self {
            Value::Scalar(s) => {
                let b = Buffer::filled(*s, 1);
                let v = T::slice(&b)?.to_vec();
                ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(&[]), v).ok()
            }
            Value::Array(a) => {
                let v = T::slice(a.buffer())?.to_vec();
                ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(a.shape()), v).ok()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndarray_round_trip() {
        let a = ndarray::arr2(&[[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]]);
        let v = Value::from_ndarray(a.clone());
        assert_eq!(v.shape(), &[2, 3]);
        assert_eq!(v.type_name(), "[2][3]f64");
        let back = v.to_ndarray::<f64>().unwrap();
        assert_eq!(back, a.into_dyn());
        assert!(v.to_ndarray::<f32>().is_none());
    }

    #[test]
    fn scalar_conversion() {
        let v = Value::from_ndarray(ndarray::arr0(7i32));
        assert_eq!(v, Value::Scalar(Scalar::I32(7)));
        assert_eq!(
            v.to_ndarray::<i32>().unwrap().into_raw_vec_and_offset().0,
            vec![7]
        );
    }

    #[test]
    fn conversions_saturate_and_truncate() {
        assert_eq!(Scalar::from_f64(PrimType::I8, 300.7), Scalar::I8(127));
        assert_eq!(Scalar::from_f64(PrimType::I32, -2.9), Scalar::I32(-2));
        assert_eq!(Scalar::from_f64(PrimType::U8, f64::NAN), Scalar::U8(0));
        assert_eq!(Scalar::from_f64(PrimType::Bool, 0.5), Scalar::Bool(true));
    }

    #[test]
    fn borrowed_views() {
        let data = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
        let shape = [2, 3];
        let view = ArrayView::new(&shape, &data).unwrap();
        assert_eq!(view.elem_type(), PrimType::F64);
        assert_eq!(view.as_ptr(), data.as_ptr() as *const std::ffi::c_void);
        let r = ValueRef::Array(view);
        assert_eq!(r.type_name(), "[2][3]f64");
        let owned = r.to_value();
        assert_eq!(
            owned,
            Value::from_ndarray(ndarray::arr2(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        );
        assert_eq!(owned.as_value_ref().type_name(), "[2][3]f64");
        assert!(ArrayView::new(&[4], &data).is_none());
        assert!(ArrayView::new::<f64>(&[], &[1.0]).is_none());
        assert_eq!(ValueRef::Scalar(Scalar::I8(3)).type_name(), "i8");
    }

    #[test]
    fn copy_on_write() {
        let a = Array::from_buffer(Buffer::I64(vec![1, 2, 3]));
        let mut b = a.clone();
        b.buffer_mut().set(0, Scalar::I64(9));
        assert_eq!(a.buffer().get(0), Scalar::I64(1));
        assert_eq!(b.buffer().get(0), Scalar::I64(9));
        assert!(Array::new(vec![2, 2], Buffer::I64(vec![1])).is_none());
    }
}
