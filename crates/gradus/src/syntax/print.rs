//! The AST printer.

use super::ast::Dec;

/// Prints declarations, fully parenthesised.
pub fn print_decs(_decs: &[Dec]) -> String {
    String::new()
}
