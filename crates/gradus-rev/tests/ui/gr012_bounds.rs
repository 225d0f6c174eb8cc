use gradus_rev::prelude::*;

#[reversible]
fn f(y: &mut u64, n: &mut usize) {
    for _ in 0..*n {
        INC(n);
    }
}

fn main() {}
