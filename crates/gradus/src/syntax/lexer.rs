//! The lexer.
