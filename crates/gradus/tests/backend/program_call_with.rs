//! `Program::call_with` hands the results over without copying them out of the native
//! backend's buffers: they are the values `Program::call` returns, for every element type
//! (booleans, which are bytes in C, included), for scalars and arrays of any rank, on the
//! interpreter and both native backends.

use crate::lower_common::{native_backends, random_f64};
use gradus::program::{Backend, Program};
use gradus::value::{Value, ValueRef};

const SRC: &str = r#"
entry mixed [n] (xs: [n]f64) : ([n]bool, [n][2]i32, f64, [n]f32, u8) =
  ( map (> 0) xs
  , map (\x -> [i32.f64 (x * 10), i32.f64 (x * 100)]) xs
  , f64.sum xs
  , map f32.f64 xs
  , u8.i64 n )
"#;

#[test]
fn borrowed_results_are_the_owned_ones() {
    let args = vec![random_f64(&[17], 5, -1.0, 1.0)];
    let refs: Vec<ValueRef> = args.iter().map(Value::as_value_ref).collect();
    let interp = Program::from_source("call_with.fut", SRC)
        .unwrap()
        .with_backend(Backend::Interpreter)
        .unwrap();
    let mut programs = native_backends("call_with.fut", SRC);
    programs.push(("interpreter", interp));
    for (name, p) in &programs {
        let owned = p.call("mixed", args.clone()).unwrap();
        let borrowed: Vec<Value> = p
            .call_with("mixed", &refs, |rs| {
                rs.iter().map(ValueRef::to_value).collect()
            })
            .unwrap();
        assert_eq!(borrowed, owned, "{name}");
        assert_eq!(borrowed.len(), 5, "{name}");
    }
}
