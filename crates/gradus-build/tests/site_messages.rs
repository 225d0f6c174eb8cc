//! The run-time part formats every kind of error site as the library's native backend does.

use gradus::backend::c::site_message;
use gradus::backend::lower::imp::SiteKind;
use gradus::value::PrimType;
use gradus_build::runtime::{self, Prim};

fn leak<T: ?Sized>(b: Box<T>) -> &'static T {
    Box::leak(b)
}

fn prim(t: PrimType) -> Prim {
    match t {
        PrimType::Bool => Prim::Bool,
        PrimType::I8 => Prim::I8,
        PrimType::I16 => Prim::I16,
        PrimType::I32 => Prim::I32,
        PrimType::I64 => Prim::I64,
        PrimType::U8 => Prim::U8,
        PrimType::U16 => Prim::U16,
        PrimType::U32 => Prim::U32,
        PrimType::U64 => Prim::U64,
        PrimType::F32 => Prim::F32,
        PrimType::F64 => Prim::F64,
    }
}

/// The runtime's copy of a site kind.
fn mirror(kind: &SiteKind) -> runtime::SiteKind {
    match kind {
        SiteKind::DivZero => runtime::SiteKind::DivZero,
        SiteKind::Index { fixes, rank } => runtime::SiteKind::Index {
            fixes: leak(fixes.clone().into_boxed_slice()),
            rank: *rank,
        },
        SiteKind::Size {
            actual,
            required,
            elem,
            text,
        } => runtime::SiteKind::Size {
            actual: *actual,
            required: *required,
            elem: prim(*elem),
            text: leak(text.clone().into_boxed_str()),
        },
        SiteKind::Template { template, types } => runtime::SiteKind::Template {
            template: leak(template.clone().into_boxed_str()),
            types: leak(
                types
                    .iter()
                    .map(|t| prim(*t))
                    .collect::<Vec<_>>()
                    .into_boxed_slice(),
            ),
        },
        SiteKind::IotaRange => runtime::SiteKind::IotaRange,
        SiteKind::Alloc => runtime::SiteKind::Alloc,
    }
}

#[test]
fn every_kind_of_site_reads_the_same() {
    let kinds = vec![
        SiteKind::DivZero,
        SiteKind::Index {
            fixes: vec![true, false, true],
            rank: 3,
        },
        SiteKind::Index {
            fixes: vec![false],
            rank: 1,
        },
        SiteKind::Size {
            actual: 2,
            required: 2,
            elem: PrimType::F32,
            text: String::new(),
        },
        SiteKind::Size {
            actual: 1,
            required: 0,
            elem: PrimType::I64,
            text: "[n]i64".into(),
        },
        SiteKind::Template {
            template: "x = {}, b = {}, y = {}, u = {}, extra {}".into(),
            types: PrimType::ALL.to_vec(),
        },
        SiteKind::IotaRange,
        SiteKind::Alloc,
    ];
    let f64_bits = |x: f64| x.to_bits() as i64;
    let f32_bits = |x: f32| (x as f64).to_bits() as i64;
    let arg_sets: Vec<Vec<i64>> = vec![
        vec![],
        vec![5, 1, 2, 1, -3, 7, 8, 9, 10, 11],
        vec![2, 3, 2, 4, 9, 1, 0, 255, 1 << 40],
        vec![-1, i64::MAX, i64::MIN, 0, 3],
        vec![
            1,
            -2,
            70000,
            -5,
            1 << 33,
            300,
            65537,
            1 << 33,
            -1,
            f32_bits(1.5),
            f64_bits(-0.25),
        ],
        vec![
            f64_bits(f64::NAN),
            f64_bits(f64::INFINITY),
            f32_bits(f32::NEG_INFINITY),
        ],
    ];
    for kind in &kinds {
        let copy = mirror(kind);
        for args in &arg_sets {
            assert_eq!(
                runtime::site_message(&copy, args),
                site_message(kind, args),
                "{kind:?} with {args:?}"
            );
        }
    }
}
