//! Name resolution and type inference: AST -> typed AST (side tables keyed by node id).

pub mod ty;
