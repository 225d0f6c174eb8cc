use gradus_rev::prelude::*;

#[reversible]
fn f(y: &mut u64) {
    let mut t = 0u64;
    release!(t, 0);
    release!(t, 0);
}

fn main() {}
