//! Diagnostics: every rejection is a `syn::Error` at the offending span whose message starts
//! with its code (docs/reversible.md §At compile time).

use proc_macro2::Span;

/// An error `"{code}: {msg}"` at `span`.
pub fn err(span: Span, code: &str, msg: &str) -> syn::Error {
    syn::Error::new(span, format!("{code}: {msg}"))
}

/// Combines several errors into one (all are reported).
pub fn combine(errors: Vec<syn::Error>) -> Option<syn::Error> {
    let mut it = errors.into_iter();
    let mut first = it.next()?;
    for e in it {
        first.combine(e);
    }
    Some(first)
}
