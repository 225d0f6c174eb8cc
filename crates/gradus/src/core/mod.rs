//! Core IR: the typed, first-order, A-normal-form language every pass after internalisation
//! works on. See [`ir`] for the node types and their meaning.

pub mod builder;
pub mod external;
pub mod ir;
pub mod parse;
pub mod prim;
pub mod prim_eval;
pub mod print;
pub mod recognise;
pub mod renumber;
pub mod safety;
pub mod scalar;
pub mod screma;
pub mod structure;
pub mod subst;
pub mod type_of;
pub mod verify;
pub mod visit;
pub mod walk;
