//! Unit tests of the macro pipeline: inverse of inverse, printing, and expansion errors.

use crate::{ast::Kind, expand, invert, parse, print};
use quote::quote;

fn parse_body(src: proc_macro2::TokenStream, params: &[(&str, Kind)]) -> Vec<crate::ast::Stmt> {
    let block: syn::Block = syn::parse2(src).expect("block");
    let mut p = parse::Parser_::new(
        params
            .iter()
            .map(|(n, k)| (syn::Ident::new(n, proc_macro2::Span::call_site()), *k))
            .collect(),
    );
    let b = p.body(&block);
    assert!(p.errors.is_empty(), "{:?}", p.errors);
    b
}

#[test]
fn inverse_of_inverse_is_identity() {
    let b = parse_body(
        quote! {{
            for i in 0..n { y += square(x[i]); SWAP(a, b); }
            routine! { let mut t = T::zero(); t += sin(a); }
            y -= t * b;
            unroutine!();
            if (a > b, c) { INC(k); ROT(a, b, th); } else { inv!(g(a, b)); }
            while (k < 10, k > 0) { INC(k); }
            inv! { a += exp(b); }
            unchecked! { let mut u = 0u8; u ^= 3; }
            safe! { println!("x"); }
        }},
        &[
            ("y", Kind::State),
            ("x", Kind::State),
            ("a", Kind::State),
            ("b", Kind::State),
            ("c", Kind::State),
            ("k", Kind::State),
            ("th", Kind::ConstRef),
            ("n", Kind::ByValue),
        ],
    );
    let inv = invert::invert_body(&b);
    let twice = invert::invert_body(&inv);
    assert_eq!(print::body(&b), print::body(&twice));
    assert_ne!(print::body(&b), print::body(&inv));
    let printed = print::body(&inv);
    // The inverse starts with the mirror of the last statement and accumulates with `-=`.
    assert!(printed.starts_with("safe!"), "{printed}");
    assert!(
        printed.contains("(* y) += t * (* b)") || printed.contains("y += t * b"),
        "{printed}"
    );
    assert!(printed.contains("IROT"), "{printed}");
    assert!(printed.contains("for i in reversed"), "{printed}");
}

#[test]
fn random_bodies_invert_twice_to_themselves() {
    // A small deterministic generator of statement bodies.
    let mut state = 12345u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    for _ in 0..50 {
        let mut src = String::from("{");
        for _ in 0..(next() % 8 + 1) {
            src.push_str(match next() % 7 {
                0 => "a += b;",
                1 => "a -= sin(b);",
                2 => "SWAP(a, b);",
                3 => "for i in 0..3 { a += b * c; }",
                4 => "if (a > b, c > a) { NEG(a); } else { INC(b); }",
                5 => "routine! { let mut t = 0.0; t += a; } b += t; unroutine!();",
                _ => "inv! { c += exp(a); }",
            });
        }
        src.push('}');
        let ts: proc_macro2::TokenStream = src.parse().expect("tokens");
        let b = parse_body(
            ts,
            &[("a", Kind::State), ("b", Kind::State), ("c", Kind::State)],
        );
        let twice = invert::invert_body(&invert::invert_body(&b));
        assert_eq!(print::body(&b), print::body(&twice));
    }
}

#[test]
fn errors_carry_codes_and_do_not_panic() {
    let cases = [
        (
            quote!(),
            quote! { fn f<T: RevReal>(y: &mut T) { y = 1.0; } },
            "GR001",
        ),
        (
            quote!(),
            quote! { fn f<T: RevReal>(y: &mut T) { y += y * y; } },
            "GR002",
        ),
        (
            quote!(),
            quote! { fn f<T: RevReal>(y: &mut T) { return; } },
            "GR003",
        ),
        (
            quote!(),
            quote! { fn f<T: RevReal>(y: &mut T, a: &mut T) { y += sin(a * a); } },
            "GR004",
        ),
        (
            quote!(),
            quote! { fn f<T: RevReal>(y: &mut T, a: &mut T) { y += a.sin(); } },
            "GR005",
        ),
        (
            quote!(),
            quote! { fn f(y: &mut u64) { for mut i in 0..3 { INC(y); } } },
            "GR006",
        ),
        (
            quote!(),
            quote! { fn f(y: &mut u64) { unroutine!(); } },
            "GR007",
        ),
        (
            quote!(),
            quote! { fn f(y: &mut u64) { release!(y, 0); } },
            "GR008",
        ),
        (quote!(), quote! { fn f(y: &u64) { INC(y); } }, "GR009"),
        (quote!(), quote! { fn f(y: &mut u64) -> u64 { } }, "GR010"),
        (
            quote!(),
            quote! { fn f(y: &mut usize, n: &mut usize) { for i in 0..*n { INC(n); } } },
            "GR012",
        ),
        (
            quote!(),
            quote! { fn f(y: &mut i64) { if y < 0 { NEG(y); } } },
            "GR013",
        ),
        (
            quote!(loss = q),
            quote! { fn f<T: RevReal>(y: &mut T) { } },
            "GR010",
        ),
    ];
    for (attr, item, code) in cases {
        let e = expand(attr, item.clone()).expect_err(&item.to_string());
        assert!(e.to_string().starts_with(code), "{item}: {e}");
    }
}

#[test]
fn scopes_nested_in_a_routine_release_their_own_ancillas() {
    let b = parse_body(
        quote! {{
            routine! {
                let mut s = 0.0;
                if (a > 0.0) {
                    let mut t = 0.0;
                    t += a;
                    s += t;
                }
            }
            b += s;
            unroutine!();
        }},
        &[("a", Kind::State), ("b", Kind::State)],
    );
    let printed = print::body(&b);
    // `t` is released inside the `if` block; `s` only by the routine's uncompute.
    assert!(printed.contains("release!(t"), "{printed}");
    assert!(!printed.contains("release!(s"), "{printed}");
}

#[test]
fn uncompute_is_skippable_only_when_the_routine_writes_its_own_ancillas() {
    let params = [
        ("y", Kind::State),
        ("x", Kind::State),
        ("th", Kind::ConstRef),
    ];
    let routine_body = |b: Vec<crate::ast::Stmt>| match b.into_iter().next() {
        Some(crate::ast::Stmt::Routine { body, .. }) => body,
        other => panic!("expected a routine, got {other:?}"),
    };
    let own = parse_body(
        quote! {{
            routine! {
                let mut t = T::zero();
                for i in 0..3 { let mut u = T::zero(); u += x[i]; t += sin(u); }
                ROT(t, y, th);
            }
            y += t;
            unroutine!();
        }},
        &params,
    );
    // `y` is not an ancilla of the routine, and ROT writes it.
    assert!(!crate::lower::writes_only_own_ancillas(&routine_body(own)));
    let own = parse_body(
        quote! {{
            routine! {
                let mut t = T::zero();
                let mut t2 = T::zero();
                for i in 0..3 { t += sin(x[i]); }
                ROT(t, t2, th);
                if (t > 0.0) { t2 += exp(t); }
            }
            y += t2;
            unroutine!();
        }},
        &params,
    );
    let body = routine_body(own);
    assert!(crate::lower::writes_only_own_ancillas(&body));
    // Its ancillas start from constants, so its compute pass may run on values only; an
    // ancilla initialised from state would carry that state's gradient.
    let mut writable = Vec::new();
    crate::lower::writable_roots(&body, &mut writable);
    assert!(crate::lower::lets_read_no_writable(&body, &writable));
    let copied = parse_body(
        quote! {{
            routine! { let mut t = *x; t += sin(y); }
            y += t;
            unroutine!();
        }},
        &params,
    );
    let mut writable = vec![syn::Ident::new("x", proc_macro2::Span::call_site())];
    crate::lower::writable_roots(&copied, &mut writable);
    assert!(!crate::lower::lets_read_no_writable(
        &routine_body(copied),
        &writable
    ));
    for src in [
        quote! {{ routine! { let mut t = T::zero(); x[0] += sin(t); } y += t; unroutine!(); }},
        quote! {{ routine! { let mut t = T::zero(); g(t, x); } y += t; unroutine!(); }},
        quote! {{ routine! { let mut t = T::zero(); t += sin(y); safe! { println!("{}", 1); } } y += t; unroutine!(); }},
    ] {
        assert!(!crate::lower::writes_only_own_ancillas(&routine_body(
            parse_body(src, &params)
        )));
    }
}
