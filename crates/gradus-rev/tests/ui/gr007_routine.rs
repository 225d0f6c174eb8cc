use gradus_rev::prelude::*;

#[reversible]
fn f<T: RevReal>(y: &mut T, a: &mut T) {
    routine! {
        let mut t = T::zero();
        t += sin(a);
    }
    y += t;
}

fn main() {}
