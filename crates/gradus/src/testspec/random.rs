//! Deterministic generation of `random input` values (docs/language.md §Random inputs).

use super::RandomItem;
use crate::value::{Array, Buffer, PrimType, Value};
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

/// The seed of one case's generator: a stable hash (FNV-1a) of the user's seed, the program
/// path, the entry point, and the block and case positions.
pub fn random_seed(seed: u64, program: &str, entry: &str, block: usize, case: usize) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |bytes: &[u8]| {
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        // Separator, so that ("ab", "c") and ("a", "bc") differ.
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    };
    eat(&seed.to_le_bytes());
    eat(program.as_bytes());
    eat(entry.as_bytes());
    eat(&(block as u64).to_le_bytes());
    eat(&(case as u64).to_le_bytes());
    h
}

/// Generates the values of a `random input`: integers uniform over their whole type, floats
/// uniform in [0, 1], booleans uniform; literals as they are. `seed` comes from
/// [`random_seed`]. Fails (instead of allocating without bound) when an item has more than
/// `max_elements` elements.
pub fn generate_random(
    items: &[RandomItem],
    seed: u64,
    max_elements: usize,
) -> Result<Vec<Value>, String> {
    let mut rng = Pcg64::seed_from_u64(seed);
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            RandomItem::Literal(v) => out.push(v.clone()),
            RandomItem::Generate { elem, shape } => {
                let n = shape
                    .iter()
                    .try_fold(1usize, |a, &d| a.checked_mul(d))
                    .filter(|&n| n <= max_elements)
                    .ok_or_else(|| format!("random input {item} is too large"))?;
                let buf = fill(&mut rng, *elem, n);
                if shape.is_empty() {
                    out.push(Value::Scalar(buf.get(0)));
                } else {
                    match Array::new(shape.clone(), buf) {
                        Some(a) => out.push(Value::Array(a)),
                        None => return Err(format!("random input {item}: bad shape")),
                    }
                }
            }
        }
    }
    Ok(out)
}

fn fill(rng: &mut Pcg64, t: PrimType, n: usize) -> Buffer {
    macro_rules! gen_vec {
        ($variant:ident, $ty:ty) => {
            Buffer::$variant((0..n).map(|_| rng.random::<$ty>()).collect())
        };
    }
    match t {
        PrimType::Bool => gen_vec!(Bool, bool),
        PrimType::I8 => gen_vec!(I8, i8),
        PrimType::I16 => gen_vec!(I16, i16),
        PrimType::I32 => gen_vec!(I32, i32),
        PrimType::I64 => gen_vec!(I64, i64),
        PrimType::U8 => gen_vec!(U8, u8),
        PrimType::U16 => gen_vec!(U16, u16),
        PrimType::U32 => gen_vec!(U32, u32),
        PrimType::U64 => gen_vec!(U64, u64),
        // Uniform in [0, 1]: `random` gives [0, 1).
        PrimType::F32 => gen_vec!(F32, f32),
        PrimType::F64 => gen_vec!(F64, f64),
    }
}
