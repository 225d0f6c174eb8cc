use gradus_rev::prelude::*;

#[reversible]
fn f<T: RevReal>(y: &mut T, a: &mut T, b: &mut T) {
    y += sin(a * b);
}

fn main() {}
