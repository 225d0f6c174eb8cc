use gradus_rev::prelude::*;

#[reversible]
fn f(y: &mut f64, data: &f64) {
    data += y;
}

fn main() {}
