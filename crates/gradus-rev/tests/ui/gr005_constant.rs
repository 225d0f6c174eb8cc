use gradus_rev::prelude::*;

#[reversible]
fn f<T: RevReal>(y: &mut T, a: &mut T) {
    y += a.sin();
}

fn main() {}
