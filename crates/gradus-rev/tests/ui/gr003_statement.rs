use gradus_rev::prelude::*;

#[reversible]
fn f(y: &mut u64) {
    loop {
        INC(y);
    }
}

fn main() {}
