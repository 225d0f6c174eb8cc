use gradus_rev::prelude::*;

#[reversible]
fn f(y: &mut f64) -> f64 {
    y += 1.0;
}

fn main() {}
