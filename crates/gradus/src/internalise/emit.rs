//! Emitting core statements while internalising: a stack of open bodies, fresh names, and
//! constructors for the basic operations that compute their result types.

use crate::core::ir::{
    Aux, BasicOp, Body, DimIndex, Exp, Lambda, NameTable, Soac, Stm, SubExp, Type, Var,
};
use crate::core::prim::PrimOp;
use crate::diag::Span;
use crate::value::{PrimType, Scalar};

/// Collects statements into nested bodies.
pub struct Emitter {
    /// The program's name table.
    pub names: NameTable,
    open: Vec<Vec<Stm>>,
    /// The location attached to statements emitted now.
    pub aux: Aux,
}

impl Emitter {
    /// An emitter with an empty name table and one open body.
    pub fn new() -> Self {
        Emitter {
            names: NameTable::new(),
            open: vec![Vec::new()],
            aux: Aux::default(),
        }
    }

    /// Starts a nested body.
    pub fn open_body(&mut self) {
        self.open.push(Vec::new());
    }

    /// Finishes the innermost body with the given results.
    pub fn close_body(&mut self, result: Vec<SubExp>) -> Body {
        let stms = self.open.pop().unwrap_or_default();
        if self.open.is_empty() {
            self.open.push(Vec::new());
        }
        Body { stms, result }
    }

    /// Sets the source span of the statements emitted next; returns the previous span so the
    /// caller can restore it.
    pub fn at(&mut self, span: Span) -> Span {
        std::mem::replace(&mut self.aux.span, span)
    }

    /// Emits `let pat = exp`, creating one fresh variable per type.
    pub fn bind(&mut self, hint: &str, types: Vec<Type>, exp: Exp) -> Vec<Var> {
        let pat: Vec<Var> = types
            .into_iter()
            .map(|t| self.names.fresh(hint, t))
            .collect();
        self.push(pat.clone(), exp);
        pat
    }

    /// Appends an already built statement to the innermost body.
    pub fn push_stm(&mut self, stm: Stm) {
        if let Some(body) = self.open.last_mut() {
            body.push(stm);
        }
    }

    /// Emits a statement with an existing pattern.
    pub fn push(&mut self, pat: Vec<Var>, exp: Exp) {
        let stm = Stm {
            pat,
            exp,
            aux: self.aux.clone(),
        };
        if let Some(body) = self.open.last_mut() {
            body.push(stm);
        }
    }

    /// Emits a one-result expression.
    pub fn bind1(&mut self, hint: &str, ty: Type, exp: Exp) -> Var {
        let v = self.names.fresh(hint, ty);
        self.push(vec![v], exp);
        v
    }

    /// The core type of a sub-expression.
    pub fn ty(&self, se: &SubExp) -> Type {
        self.names.subexp_ty(se)
    }

    /// Applies a primitive operation.
    pub fn prim(&mut self, op: PrimOp, args: Vec<SubExp>) -> SubExp {
        let t = Type::Prim(op.result_type());
        let hint = match op {
            PrimOp::Un(u, _) => format!("{u:?}").to_lowercase(),
            PrimOp::Bin(b, _) => format!("{b:?}").to_lowercase(),
            PrimOp::Cmp(c, _) => format!("{c:?}").to_lowercase(),
            PrimOp::Tern(t, _) => format!("{t:?}").to_lowercase(),
            PrimOp::Conv(..) => "conv".into(),
            PrimOp::FromBits(..) => "from_bits".into(),
        };
        SubExp::Var(self.bind1(&hint, t, Exp::BasicOp(BasicOp::Prim(op, args))))
    }

    /// `a op b` on `i64`.
    pub fn i64_op(&mut self, op: crate::core::prim::BinOp, a: SubExp, b: SubExp) -> SubExp {
        use crate::core::prim::BinOp::*;
        // Fold the cases size arithmetic produces constantly.
        if let (SubExp::Const(Scalar::I64(x)), SubExp::Const(Scalar::I64(y))) = (a, b) {
            let folded = match op {
                Add => Some(x.wrapping_add(y)),
                Sub => Some(x.wrapping_sub(y)),
                Mul => Some(x.wrapping_mul(y)),
                _ => None,
            };
            if let Some(v) = folded {
                return SubExp::i64(v);
            }
        }
        match (op, a, b) {
            (Add | Sub, x, SubExp::Const(Scalar::I64(0))) => return x,
            (Mul, x, SubExp::Const(Scalar::I64(1))) | (Mul, SubExp::Const(Scalar::I64(1)), x) => {
                return x;
            }
            _ => {}
        }
        self.prim(PrimOp::Bin(op, PrimType::I64), vec![a, b])
    }

    /// The dimensions of an array sub-expression (empty for scalars).
    pub fn dims(&self, se: &SubExp) -> Vec<SubExp> {
        self.ty(se).dims().to_vec()
    }

    /// Indexes/slices an array; the result type follows from the slice.
    pub fn index(&mut self, array: Var, slice: Vec<DimIndex>) -> SubExp {
        let t = self.names.ty(array).clone();
        let mut dims = Vec::new();
        for (i, d) in t.dims().iter().enumerate() {
            match slice.get(i) {
                Some(DimIndex::Fix(_)) => {}
                Some(DimIndex::Slice { count, .. }) => dims.push(*count),
                None => dims.push(*d),
            }
        }
        let rt = Type::array(t.elem(), dims);
        SubExp::Var(self.bind1(
            self.names.hint(array).to_string().as_str(),
            rt,
            Exp::BasicOp(BasicOp::Index { array, slice }),
        ))
    }

    /// A basic operation whose single result has type `ty`.
    pub fn basic(&mut self, hint: &str, ty: Type, op: BasicOp) -> SubExp {
        SubExp::Var(self.bind1(hint, ty, Exp::BasicOp(op)))
    }

    /// The array `se` reshaped to `shape` (which has the same number of elements).
    pub fn reshape(&mut self, hint: &str, se: SubExp, shape: Vec<SubExp>) -> SubExp {
        let elem = self.ty(&se).elem();
        let array = self.as_var(se);
        self.basic(
            hint,
            Type::array(elem, shape.clone()),
            BasicOp::Reshape { array, shape },
        )
    }

    /// Copies `se` to a fresh variable (so it can be consumed or returned under a new name).
    pub fn copy(&mut self, se: SubExp) -> SubExp {
        match se {
            SubExp::Var(v) => {
                let t = self.names.ty(v).clone();
                self.basic(self.names.hint(v).to_string().as_str(), t, BasicOp::Copy(v))
            }
            c => c,
        }
    }

    /// Turns a sub-expression into a variable, binding constants.
    pub fn as_var(&mut self, se: SubExp) -> Var {
        match se {
            SubExp::Var(v) => v,
            c => {
                let t = self.ty(&c);
                self.bind1("const", t, Exp::BasicOp(BasicOp::SubExp(c)))
            }
        }
    }

    /// Emits a SOAC with the given result types.
    pub fn soac(&mut self, hint: &str, types: Vec<Type>, soac: Soac) -> Vec<SubExp> {
        self.bind(hint, types, Exp::Soac(soac))
            .into_iter()
            .map(SubExp::Var)
            .collect()
    }

    /// A lambda with fresh parameters of the given types, whose body `f` builds from them.
    pub fn lambda<E>(
        &mut self,
        param_types: Vec<Type>,
        hint: &str,
        f: impl FnOnce(&mut Self, Vec<SubExp>) -> Result<Vec<SubExp>, E>,
    ) -> Result<Lambda, E> {
        let params: Vec<Var> = param_types
            .into_iter()
            .map(|t| self.names.fresh(hint, t))
            .collect();
        self.open_body();
        let res = f(self, params.iter().map(|p| SubExp::Var(*p)).collect());
        let result = match res {
            Ok(r) => r,
            Err(e) => {
                self.close_body(Vec::new());
                return Err(e);
            }
        };
        let ret = result.iter().map(|r| self.ty(r)).collect();
        let body = self.close_body(result);
        Ok(Lambda { params, body, ret })
    }
}

impl Default for Emitter {
    fn default() -> Self {
        Self::new()
    }
}
