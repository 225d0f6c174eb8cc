//! Nested bodies built by closures that receive the caller's own state.

use super::Builder;
use crate::core::ir::{Body, Exp, Lambda, Stm, SubExp, Type, Var};

/// A builder, or a pass's state that holds one: the closures building a nested body receive
/// this state, so the code they emit can use everything the pass knows (AD's adjoints, the
/// front end's environment), not only the builder.
///
/// Every helper opens a body on the builder's stack ([`Builder::open_body`]) and closes it
/// again ([`Builder::close_body`]) also when the closure fails, so the stack stays balanced
/// and CSE forgets the operations of the nested body.
pub trait HasBuilder<'n>: Sized {
    /// The builder code is emitted with.
    fn builder(&mut self) -> &mut Builder<'n>;

    /// Runs `f` in a new nested body and returns the statements it emitted, with its value.
    fn nested<T, E>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, E>,
    ) -> Result<(Vec<Stm>, T), E> {
        self.builder().open_body();
        let r = f(self);
        let body = self.builder().close_body(Vec::new());
        Ok((body.stms, r?))
    }

    /// A body (of a branch or a loop) whose statements `f` emits and whose results it returns.
    fn try_body<E>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<Vec<SubExp>, E>,
    ) -> Result<Body, E> {
        let (stms, result) = self.nested(f)?;
        Ok(Body { stms, result })
    }

    /// A lambda with fresh parameters of the given hints and types; `f` emits its body and
    /// returns its results, whose types become the lambda's result types.
    fn try_lambda<E>(
        &mut self,
        params: &[(&str, Type)],
        f: impl FnOnce(&mut Self, &[Var]) -> Result<Vec<SubExp>, E>,
    ) -> Result<Lambda, E> {
        let ps: Vec<Var> = params
            .iter()
            .map(|(h, t)| self.builder().fresh(h, t.clone()))
            .collect();
        let body = self.try_body(|cx| f(cx, &ps))?;
        let b = self.builder();
        let ret = body.result.iter().map(|r| b.ty(r)).collect();
        Ok(Lambda {
            params: ps,
            body,
            ret,
        })
    }

    /// `let hint = if cond then {then_f} else {else_f}`: both branches are built in nested
    /// bodies; the `if` returns the types of the then-branch's results.
    fn try_if<E>(
        &mut self,
        cond: SubExp,
        then_f: impl FnOnce(&mut Self) -> Result<Vec<SubExp>, E>,
        else_f: impl FnOnce(&mut Self) -> Result<Vec<SubExp>, E>,
        hint: &str,
    ) -> Result<Vec<Var>, E> {
        let then_body = self.try_body(then_f)?;
        let else_body = self.try_body(else_f)?;
        let b = self.builder();
        let ret: Vec<Type> = then_body.result.iter().map(|r| b.ty(r)).collect();
        let exp = Exp::If {
            cond,
            then_body,
            else_body,
            ret: ret.clone(),
        };
        Ok(b.bind(exp, ret, hint))
    }
}

impl<'n> HasBuilder<'n> for Builder<'n> {
    fn builder(&mut self) -> &mut Builder<'n> {
        self
    }
}
