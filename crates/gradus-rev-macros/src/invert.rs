//! Statement → inverse statement (docs/reversible.md §The inverse). The table there is the whole
//! algorithm: a body's inverse is the inverse of each statement, in reverse order. `invert` is an
//! involution on the AST (`invert(invert(b))` prints the same as `b`): blocks carry an
//! `inverted` flag instead of being inverted eagerly, and `routine!`/`unroutine!` swap roles.

use crate::ast::*;

/// The inverse of a statement list.
pub fn invert_body(body: &[Stmt]) -> Vec<Stmt> {
    body.iter().rev().map(invert).collect()
}

/// The inverse of one statement.
pub fn invert(st: &Stmt) -> Stmt {
    match st.clone() {
        Stmt::Acc {
            target,
            op,
            rhs,
            span,
        } => Stmt::Acc {
            target,
            op: match op {
                AccOp::Add => AccOp::Sub,
                AccOp::Sub => AccOp::Add,
                AccOp::Xor => AccOp::Xor,
                AccOp::Mul => AccOp::Div,
                AccOp::Div => AccOp::Mul,
            },
            rhs,
            span,
        },
        Stmt::Named { name, args, span } => Stmt::Named {
            name: match name {
                Named::Inc => Named::Dec,
                Named::Dec => Named::Inc,
                Named::Rot => Named::Irot,
                Named::Irot => Named::Rot,
                n => n,
            },
            args,
            span,
        },
        Stmt::Call {
            func,
            args,
            inverse,
            span,
        } => Stmt::Call {
            func,
            args,
            inverse: !inverse,
            span,
        },
        Stmt::Let {
            name,
            mutable,
            ty,
            init,
            atol,
            span,
        } => Stmt::Release {
            name,
            mutable,
            ty,
            expr: init,
            atol,
            span,
        },
        Stmt::Release {
            name,
            mutable,
            ty,
            expr,
            atol,
            span,
        } => Stmt::Let {
            name,
            mutable,
            ty,
            init: expr,
            atol,
            span,
        },
        // inv(routine{S}; M; unroutine) = routine{S}; inv M; unroutine: after reversing the
        // list, the old `unroutine!` comes first, so it becomes the routine and vice versa.
        Stmt::Routine { name, body, span } => Stmt::Unroutine { name, body, span },
        Stmt::Unroutine { name, body, span } => Stmt::Routine { name, body, span },
        Stmt::If { arms, els, span } => Stmt::If {
            arms: arms
                .into_iter()
                .map(|a| IfArm {
                    pre: a.post,
                    post: a.pre,
                    body: invert_body(&a.body),
                })
                .collect(),
            els: invert_body(&els),
            span,
        },
        Stmt::While {
            pre,
            post,
            body,
            span,
        } => Stmt::While {
            pre: post,
            post: pre,
            body: invert_body(&body),
            span,
        },
        Stmt::For {
            var,
            range,
            reversed,
            body,
            span,
        } => Stmt::For {
            var,
            range,
            reversed: !reversed,
            body: invert_body(&body),
            span,
        },
        Stmt::Safe { tokens, span } => Stmt::Safe { tokens, span },
        Stmt::Block {
            body,
            inverted,
            unchecked,
        } => Stmt::Block {
            body,
            inverted: !inverted,
            unchecked,
        },
    }
}
