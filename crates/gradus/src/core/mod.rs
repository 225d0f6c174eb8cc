//! Core IR: the typed, first-order, A-normal-form language every pass after internalisation
//! works on. See [`ir`] for the node types and their meaning.

pub mod ir;
pub mod prim;
pub mod prim_eval;
pub mod type_of;
pub mod print;
pub mod parse;
pub mod renumber;
pub mod verify;
pub mod builder;
