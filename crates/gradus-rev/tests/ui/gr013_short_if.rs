use gradus_rev::prelude::*;

#[reversible]
fn f(x: &mut i64) {
    if x < 0 {
        NEG(x);
    }
}

fn main() {}
