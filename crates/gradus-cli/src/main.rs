//! The `gradus` command.

fn main() {}
