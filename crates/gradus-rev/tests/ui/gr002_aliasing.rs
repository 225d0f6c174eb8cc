use gradus_rev::prelude::*;

#[reversible]
fn f<T: RevReal>(y: &mut T, x: &mut T) {
    y += x * x;
}

fn main() {}
