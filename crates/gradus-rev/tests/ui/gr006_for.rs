use gradus_rev::prelude::*;

#[reversible]
fn f(y: &mut u64, v: &Vec<u64>) {
    for x in v.iter() {
        y += 1;
    }
}

fn main() {}
