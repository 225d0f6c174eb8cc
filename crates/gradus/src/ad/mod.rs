//! Automatic differentiation as transformations of core IR.
//!
//! * [`jvp`]: forward mode. Each statement is followed by its tangent statements; SOAC
//!   lambdas are transformed recursively, loops carry tangents as extra parameters, so the
//!   program's parallel structure is kept (a `map` stays a `map`).
//! * [`derivatives`]: the table of partial derivatives of primitive operations
//!   (LANGUAGE.md 10.3 and 10.4), kept apart from the traversal.
//!
//! Naming scheme (STYLE.md item 10): the tangent of `x` is named `x_tan`; Rust code says
//! `tangent_of`.
//!
//! The AD operators of the language are expanded while internalising, innermost first: when
//! the internaliser reaches `jvp f x dx`, it has already expanded every AD operator inside
//! `f`, builds `f`'s body on fresh parameters and hands those statements to
//! [`jvp::differentiate`]. Every variable is bound once, so nested operators cannot confuse
//! their perturbations.

pub mod derivatives;
pub mod jvp;
pub mod vjp;
