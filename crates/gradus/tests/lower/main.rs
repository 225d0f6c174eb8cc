//! The lowering stage's tests, one module per property of the lowered code (in-place updates,
//! bounds checks, loop shapes, float exactness, ...): each compiles small programs, looks at
//! the code of one entry point after lowering, and runs them on the interpreter and the native
//! backends. `common` holds the helpers they share (also used by the `backend`, `ad` and
//! `lower_float_order` test binaries). Several force exact floats for the whole process; the
//! tests that need the default float mode are the `lower_float_order` binary.

mod common;

mod columns;
mod concat_in_place;
mod copy_last_use;
mod costly_reductions;
mod exact_floats;
mod exclusive_accs;
mod in_bounds;
mod independent_loops;
mod literal_rows;
mod peel_first;
mod row_sums;
mod rows_in_place;
