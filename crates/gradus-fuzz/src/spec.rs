//! Semantic probes: programs whose results the fuzzer computes itself, from the language's
//! definition, so that a wrong result is found even where every backend and the unoptimised
//! interpreter agree on it.
//!
//! * Conversions: every pair of primitive types (`u16.i8`, `i64.u32`, `f32.u64`, `bool.f64`,
//!   ...) applied to arrays of values at the edges of their types (negative ones, extremes,
//!   NaN, infinities, zeros of both signs, subnormals) and to literals (which the optimiser
//!   folds). Between integers the value is truncated, or extended: sign-extended only when
//!   both types are signed, zero-extended otherwise (`u16.i8 (-128i8)` is `128u16`). A float
//!   converted to an integer is truncated towards zero; where that is out of the integer's
//!   range, or the float is NaN or infinite, the result is not checked here.
//! * Float identities that IEEE 754 does not have: `0 * x`, `x * 0 + y`, `x - x`, `x / x`,
//!   `0 / x`, `x + 0` and the like, at both float types, on arrays and literals with NaN,
//!   infinities and signed zeros. Their results are computed with Rust's IEEE arithmetic and
//!   must be bit for bit the same (any NaN equals any NaN).
//!
//! The probes are checked on the oracle ([`crate::diff::Config::ORACLE`]); the differential
//! runs compare every other configuration with it.

use crate::ast::literal;
use crate::diff::{Case, Config, Failure, Kind, Outcome};
use crate::generate::{self, Mode};
use gradus::value::{Array, Buffer, PrimType, Scalar, Value};
use rand::Rng;
use rand_pcg::Pcg64;
use std::fmt::Write;

/// The result of converting `x` to `to` by the language's definition; `None` where it is not
/// checked (a float out of the integer type's range, NaN or infinite).
pub fn convert(x: Scalar, to: PrimType) -> Option<Scalar> {
    let from = x.prim_type();
    if from.is_float() {
        let f = x.to_f64();
        return match to {
            PrimType::Bool => Some(Scalar::Bool(f != 0.0)),
            PrimType::F32 => Some(Scalar::F32(match x {
                Scalar::F32(v) => v,
                _ => f as f32,
            })),
            PrimType::F64 => Some(Scalar::F64(f)),
            _ => {
                let t = f.trunc();
                let (lo, hi) = range(to);
                (f.is_finite() && t >= lo as f64 && t <= hi as f64)
                    .then(|| Scalar::from_i128(to, t as i128))
            }
        };
    }
    let v: i128 = match x {
        Scalar::Bool(b) => b as i128,
        Scalar::I8(v) => v as i128,
        Scalar::I16(v) => v as i128,
        Scalar::I32(v) => v as i128,
        Scalar::I64(v) => v as i128,
        Scalar::U8(v) => v as i128,
        Scalar::U16(v) => v as i128,
        Scalar::U32(v) => v as i128,
        Scalar::U64(v) => v as i128,
        Scalar::F32(_) | Scalar::F64(_) => unreachable!("floats handled above"),
    };
    // Zero-extension unless both types are signed: the bits of a signed value, read as the
    // unsigned type of its width.
    let v = if from.is_signed_int() && to.is_unsigned_int() {
        v & ((1i128 << from.bits()) - 1)
    } else {
        v
    };
    Some(Scalar::from_i128(to, v))
}

fn range(t: PrimType) -> (i128, i128) {
    let bits = t.bits();
    if t.is_unsigned_int() {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// A float identity: its name, its source with `x` and `y` free, and its value.
struct Identity {
    source: &'static str,
    f64: fn(f64, f64) -> f64,
    f32: fn(f32, f32) -> f32,
}

macro_rules! identities {
    ($($src:literal => |$x:ident, $y:ident| $e:expr;)*) => {
        &[$(Identity {
            source: $src,
            f64: |$x: f64, $y: f64| { let _ = $y; $e },
            f32: |$x: f32, $y: f32| { let _ = $y; $e },
        }),*]
    };
}

// The point is to compute what the optimiser must not simplify.
#[allow(clippy::eq_op)]
/// Expressions the optimiser might rewrite, with their IEEE values. `Z` is the type's zero,
/// `O` its one (written with the type's suffix in the source).
const IDENTITIES: &[Identity] = identities! {
    "Z * x" => |x, y| 0.0 * x;
    "x * Z" => |x, y| x * 0.0;
    "x * Z + y" => |x, y| x * 0.0 + y;
    "x - x" => |x, y| x - x;
    "x / x" => |x, y| x / x;
    "Z / x" => |x, y| 0.0 / x;
    "x + Z" => |x, y| x + 0.0;
    "Z + x" => |x, y| 0.0 + x;
    "(-Z) + x" => |x, y| -0.0 + x;
    "x - Z" => |x, y| x - 0.0;
    "Z - x" => |x, y| 0.0 - x;
    "x * O" => |x, y| x * 1.0;
    "x / O" => |x, y| x / 1.0;
    "(x + y) - y" => |x, y| (x + y) - y;
    "x * y - x * y" => |x, y| x * y - x * y;
    "(Z - x) + x" => |x, y| (0.0 - x) + x;
    "-(-x)" => |x, y| -(-x);
};

/// One probe: a case of the probe program and the values it must return.
#[derive(Clone, Debug)]
pub struct Probe {
    /// The entry point's name.
    pub entry: String,
    /// What each result is, in the source (`u16.i8 x`), one per result, and the source type
    /// of `x`.
    pub what: Vec<String>,
    /// The arguments.
    pub args: Vec<Value>,
    /// The expected results, element by element (`None`: not checked).
    pub expected: Vec<Vec<Option<Scalar>>>,
    /// A program computing one result for one element (`x`, `y` parameters) with its
    /// arguments, by result and element, for the report.
    pub single: Vec<Vec<(String, Vec<Scalar>)>>,
    /// The entry point's source.
    pub source: String,
    /// Whether the native backends may change its results without exact floats (the float
    /// identities, which reassociation rewrites).
    pub reassociable: bool,
}

/// The probe program and its probes, with random values drawn from `rng`.
pub fn probes(rng: &mut Pcg64) -> (String, Vec<Probe>) {
    let mut src = String::new();
    let mut probes = Vec::new();
    for &from in &PrimType::ALL {
        // Arrays of edge values and random values.
        let mut xs: Vec<Scalar> = (0..12).map(|_| generate::edge(rng, from)).collect();
        xs.extend((0..4).map(|_| generate::scalar(rng, from, Mode::General)));
        let targets: Vec<PrimType> = PrimType::ALL.into_iter().filter(|t| *t != from).collect();
        let name = format!("conv_{}", from.name());
        let start = src.len();
        let _ = write!(src, "entry {name} [n] (xs: [n]{}) =\n  (", from.name());
        for (k, to) in targets.iter().enumerate() {
            if k > 0 {
                src.push_str(", ");
            }
            let _ = write!(src, "map (\\x -> {}.{} x) xs", to.name(), from.name());
        }
        src.push_str(")\n\n");
        probes.push(Probe {
            source: src[start..].to_string(),
            reassociable: false,
            entry: name,
            what: targets
                .iter()
                .map(|to| format!("{}.{} x", to.name(), from.name()))
                .collect(),
            args: vec![array(from, &xs)],
            expected: targets
                .iter()
                .map(|to| xs.iter().map(|x| convert(*x, *to)).collect())
                .collect(),
            single: targets
                .iter()
                .map(|to| {
                    xs.iter()
                        .map(|x| {
                            (
                                format!(
                                    "entry main (x: {}) = {}.{} x",
                                    from.name(),
                                    to.name(),
                                    from.name()
                                ),
                                vec![*x],
                            )
                        })
                        .collect()
                })
                .collect(),
        });
        // The same on literals, which the optimiser folds.
        let lits: Vec<Scalar> = (0..3).map(|_| generate::edge(rng, from)).collect();
        let name = format!("convlit_{}", from.name());
        let start = src.len();
        let _ = write!(src, "entry {name} (b: bool) =\n  (");
        for (k, to) in targets.iter().enumerate() {
            if k > 0 {
                src.push_str(", ");
            }
            let items: Vec<String> = lits
                .iter()
                .map(|l| format!("{}.{} {}", to.name(), from.name(), literal(*l)))
                .collect();
            let _ = write!(
                src,
                "(if b then [{}] else [{}])",
                items.join(", "),
                items.join(", ")
            );
        }
        src.push_str(")\n\n");
        probes.push(Probe {
            source: src[start..].to_string(),
            reassociable: false,
            entry: name,
            what: targets
                .iter()
                .map(|to| format!("{}.{} LITERAL", to.name(), from.name()))
                .collect(),
            args: vec![Value::Scalar(Scalar::Bool(rng.random_bool(0.5)))],
            expected: targets
                .iter()
                .map(|to| lits.iter().map(|x| convert(*x, *to)).collect())
                .collect(),
            single: targets
                .iter()
                .map(|to| {
                    lits.iter()
                        .map(|l| {
                            (
                                format!(
                                    "entry main (b: bool) = {}.{} {}",
                                    to.name(),
                                    from.name(),
                                    literal(*l)
                                ),
                                vec![Scalar::Bool(true)],
                            )
                        })
                        .collect()
                })
                .collect(),
        });
    }
    for t in [PrimType::F64, PrimType::F32] {
        let n = 16;
        let pick = |rng: &mut Pcg64| {
            if rng.random_bool(0.6) {
                generate::edge(rng, t)
            } else {
                generate::scalar(rng, t, Mode::General)
            }
        };
        let xs: Vec<Scalar> = (0..n).map(|_| pick(rng)).collect();
        let ys: Vec<Scalar> = (0..n).map(|_| pick(rng)).collect();
        let sub = |e: &str| {
            e.replace('Z', &format!("0.0{}", t.name()))
                .replace('O', &format!("1.0{}", t.name()))
        };
        let eval = |id: &Identity, x: Scalar, y: Scalar| match (x, y) {
            (Scalar::F32(x), Scalar::F32(y)) => Scalar::F32((id.f32)(x, y)),
            _ => Scalar::F64((id.f64)(x.to_f64(), y.to_f64())),
        };
        let name = format!("float_{}", t.name());
        let start = src.len();
        let _ = write!(
            src,
            "entry {name} [n] (xs: [n]{t}) (ys: [n]{t}) =\n  (",
            t = t.name()
        );
        for (k, id) in IDENTITIES.iter().enumerate() {
            if k > 0 {
                src.push_str(", ");
            }
            let _ = write!(src, "map2 (\\x y -> {}) xs ys", sub(id.source));
        }
        src.push_str(")\n\n");
        let single = |body: String| {
            format!(
                "entry main (x: {t}) (y: {t}) = {body}",
                t = t.name(),
                body = body
            )
        };
        probes.push(Probe {
            source: src[start..].to_string(),
            reassociable: true,
            entry: name,
            what: IDENTITIES.iter().map(|id| sub(id.source)).collect(),
            args: vec![array(t, &xs), array(t, &ys)],
            expected: IDENTITIES
                .iter()
                .map(|id| {
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| Some(eval(id, *x, *y)))
                        .collect()
                })
                .collect(),
            single: IDENTITIES
                .iter()
                .map(|id| {
                    xs.iter()
                        .zip(&ys)
                        .map(|(x, y)| (single(sub(id.source)), vec![*x, *y]))
                        .collect()
                })
                .collect(),
        });
        // On literals.
        let (x, y) = (generate::edge(rng, t), generate::edge(rng, t));
        let name = format!("floatlit_{}", t.name());
        let start = src.len();
        let _ = write!(src, "entry {name} (b: bool) =\n  (");
        for (k, id) in IDENTITIES.iter().enumerate() {
            if k > 0 {
                src.push_str(", ");
            }
            let e = sub(id.source)
                .replace('x', &literal(x))
                .replace('y', &literal(y));
            let _ = write!(src, "(if b then {e} else {e})");
        }
        src.push_str(")\n\n");
        probes.push(Probe {
            source: src[start..].to_string(),
            reassociable: true,
            entry: name,
            what: IDENTITIES
                .iter()
                .map(|id| {
                    sub(id.source)
                        .replace('x', &literal(x))
                        .replace('y', &literal(y))
                })
                .collect(),
            args: vec![Value::Scalar(Scalar::Bool(true))],
            expected: IDENTITIES
                .iter()
                .map(|id| vec![Some(eval(id, x, y))])
                .collect(),
            single: IDENTITIES
                .iter()
                .map(|id| {
                    let e = sub(id.source)
                        .replace('x', &literal(x))
                        .replace('y', &literal(y));
                    vec![(
                        format!("entry main (b: bool) = {e}"),
                        vec![Scalar::Bool(true)],
                    )]
                })
                .collect(),
        });
    }
    (src, probes)
}

fn array(t: PrimType, xs: &[Scalar]) -> Value {
    let mut buf = Buffer::with_capacity(t, xs.len());
    for x in xs {
        buf.push(*x);
    }
    Value::Array(Array::new(vec![xs.len()], buf).expect("shape matches"))
}

/// The probes' cases.
pub fn cases(probes: &[Probe]) -> Vec<Case> {
    probes
        .iter()
        .map(|p| Case {
            entry: p.entry.clone(),
            args: p.args.clone(),
        })
        .collect()
}

/// Whether `got` is the expected scalar: the same type and bits, any NaN equal to any NaN.
pub fn same(want: Scalar, got: Scalar) -> bool {
    match (want, got) {
        (Scalar::F32(a), Scalar::F32(b)) => {
            (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
        }
        (Scalar::F64(a), Scalar::F64(b)) => {
            (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
        }
        (a, b) => a == b,
    }
}

/// Checks `config`'s outcomes of the probes (in the order of [`cases`]; `case_offset` is
/// the index of the first in the whole subject). A failure names the expression, the input
/// and both results; with it comes a test-block program of one line that computes it.
pub fn check(
    probes: &[Probe],
    got: &[Outcome],
    config: Config,
    case_offset: usize,
) -> Vec<(Failure, Option<String>)> {
    let mut failures = Vec::new();
    for (k, (p, o)) in probes.iter().zip(got).enumerate() {
        let fail = |detail: String| Failure {
            kind: Kind::Wrong,
            config: Some(config),
            case: Some(case_offset + k),
            detail,
        };
        let values = match o {
            Ok(v) => v,
            Err(e) => {
                failures.push((fail(format!("{}: {e}", p.entry)), None));
                continue;
            }
        };
        if values.len() != p.expected.len() {
            let detail = format!(
                "{}: {} results, expected {}",
                p.entry,
                values.len(),
                p.expected.len()
            );
            failures.push((fail(detail), None));
            continue;
        }
        'results: for (r, (v, want)) in values.iter().zip(&p.expected).enumerate() {
            let elems: Vec<Scalar> = match v {
                Value::Scalar(s) => vec![*s],
                Value::Array(a) => (0..a.len()).map(|i| a.buffer().get(i)).collect(),
            };
            for (i, w) in want.iter().enumerate() {
                let Some(w) = w else { continue };
                let g = elems.get(i).copied();
                if g.is_none_or(|g| !same(*w, g)) {
                    let (prog, args) = &p.single[r][i];
                    let inputs: Vec<String> = args
                        .iter()
                        .map(|a| gradus::data::format_scalar(*a))
                        .collect();
                    let f = fail(format!(
                        "`{prog}` with {}: expected {}, got {}",
                        inputs.join(" "),
                        gradus::data::format_scalar(*w),
                        g.map_or("nothing".into(), gradus::data::format_scalar),
                    ));
                    let note = format!("Found by gradus-fuzz: {f}");
                    failures.push((f, Some(test_program(&note, prog, args, *w))));
                    break 'results;
                }
            }
        }
    }
    failures
}

/// A test-block program for one wrong probe result.
pub fn test_program(note: &str, program: &str, args: &[Scalar], want: Scalar) -> String {
    let mut s = String::new();
    for line in note.lines() {
        let _ = writeln!(s, "-- {line}");
    }
    let inputs: Vec<String> = args
        .iter()
        .map(|a| gradus::data::format_scalar(*a))
        .collect();
    let _ = writeln!(s, "-- ==\n-- input {{ {} }}", inputs.join(" "));
    let _ = writeln!(s, "-- output {{ {} }}\n", gradus::data::format_scalar(want));
    let _ = writeln!(s, "{program}");
    s
}

/// For a probe case that one configuration got wrong, the one-line program and input of
/// the element where it went wrong, read from a [`crate::diff::values_agree`] message
/// (`value #R, element I`).
pub fn single_for(probe: &Probe, detail: &str) -> Option<(String, Vec<Scalar>)> {
    let rest = &detail[detail.find("(value #")? + 8..];
    let (r, rest) = rest.split_once(", element ")?;
    let i: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let (r, i): (usize, usize) = (r.parse().ok()?, i.parse().ok()?);
    probe.single.get(r)?.get(i).cloned()
}

/// The subject of a one-line probe program.
pub fn single_subject(program: &str, args: &[Scalar]) -> crate::diff::Subject {
    crate::diff::Subject {
        name: "probe.fut".into(),
        source: program.to_string(),
        cases: vec![Case {
            entry: "main".into(),
            args: args.iter().map(|a| Value::Scalar(*a)).collect(),
        }],
    }
}
