//! The core IR on its own: the text form (parsing, printing, the files beside this one), the
//! verifier, and the verifier run after every pass of the pipeline.

mod parse;
mod text;
mod verify;
mod verify_every_pass;
