//! The shared deterministic generator of `benchmarks/README.md` §the input generator (SplitMix64 in
//! counter form) and the generated inputs of the k-means, NNMF, micro, `project` and synthetic GMM
//! benchmarks, as argument values of the entry points in `benchmarks/*.fut`.
//!
//! Every element is a pure function of (seed, flat index), so the inputs are bit-identical to
//! those of every other implementation of the specification.

use crate::adbench::{Gmm, f64_array};
use gradus::value::{Scalar, Value};

const GOLD: u64 = 0x9E37_79B9_7F4A_7C15;
const K1: u64 = 0xBF58_476D_1CE4_E5B9;
const K2: u64 = 0x94D0_49BB_1331_11EB;

fn mix(z: u64) -> u64 {
    let z1 = (z ^ (z >> 30)).wrapping_mul(K1);
    let z2 = (z1 ^ (z1 >> 27)).wrapping_mul(K2);
    z2 ^ (z2 >> 31)
}

/// `bits(s, i)`: the (i+1)-th output of SplitMix64 seeded with `s`.
pub fn bits(seed: u64, i: u64) -> u64 {
    mix(seed.wrapping_add(i.wrapping_add(1).wrapping_mul(GOLD)))
}

/// `unif(s, i)`, exactly representable, in `[0, 1)`.
pub fn unif(seed: u64, i: u64) -> f64 {
    (bits(seed, i) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `gauss(s, i)` by Box–Muller from `unif(s, 2i)` and `unif(s, 2i + 1)`.
pub fn gauss(seed: u64, i: u64) -> f64 {
    let u1 = unif(seed, 2 * i);
    let u2 = unif(seed, 2 * i + 1);
    (-2.0 * (1.0 - u1).ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

fn unif_vec(seed: u64, len: usize, offset: f64) -> Vec<f64> {
    (0..len as u64).map(|t| offset + unif(seed, t)).collect()
}

/// Seeds fixed by the specification.
pub mod seeds {
    /// k-means points.
    pub const KMEANS: u64 = 1;
    /// NNMF data `A`.
    pub const NNMF_A: u64 = 11;
    /// NNMF factor `W`.
    pub const NNMF_W: u64 = 12;
    /// NNMF factor `H`.
    pub const NNMF_H: u64 = 13;
    /// Micro benchmark `x`.
    pub const MICRO_X: u64 = 21;
    /// Micro benchmark `y`.
    pub const MICRO_Y: u64 = 22;
    /// Micro benchmark `s`.
    pub const MICRO_S: u64 = 23;
    /// `project` points.
    pub const PROJECT: u64 = 31;
    /// Synthetic GMM alphas, means, icf, x.
    pub const GMM: [u64; 4] = [41, 42, 43, 44];
}

/// k-means input (benchmarks/README.md §k-means): points `P : [n][d]` and initial centres `C =
/// P[0..k)`. The values are `points centres`.
pub fn kmeans(k: usize, n: usize, d: usize) -> Option<Vec<Value>> {
    if k > n {
        return None;
    }
    let p = unif_vec(seeds::KMEANS, n.checked_mul(d)?, 0.0);
    let c = p[..k * d].to_vec();
    Some(vec![f64_array(&[n, d], p), f64_array(&[k, d], c)])
}

/// NNMF input (benchmarks/README.md §NNMF): `A : [m][n]`, `W : [m][r]`, `H : [r][n]`, each `0.5 +
/// unif`. The values are `a w h`.
pub fn nnmf(m: usize, n: usize, r: usize) -> Option<Vec<Value>> {
    Some(vec![
        f64_array(&[m, n], unif_vec(seeds::NNMF_A, m.checked_mul(n)?, 0.5)),
        f64_array(&[m, r], unif_vec(seeds::NNMF_W, m.checked_mul(r)?, 0.5)),
        f64_array(&[r, n], unif_vec(seeds::NNMF_H, r.checked_mul(n)?, 0.5)),
    ])
}

/// Micro-benchmark input (benchmarks/README.md §micro benchmarks): `x : [n]`, `y : [n]`, `s`. The
/// values are `x y s`.
pub fn micro(n: usize) -> Vec<Value> {
    vec![
        f64_array(&[n], unif_vec(seeds::MICRO_X, n, 0.0)),
        f64_array(&[n], unif_vec(seeds::MICRO_Y, n, 0.0)),
        Value::Scalar(Scalar::F64(unif(seeds::MICRO_S, 0))),
    ]
}

/// The fixed camera of the `project` benchmark (benchmarks/README.md §BA project), the same as the
/// ADBench BA files'.
pub const PROJECT_CAMERA: [f64; 11] = [
    -0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673, 419.194514, 5.864426,
    -8.518870, 0.087812, 0.002739,
];

/// `project` benchmark input (benchmarks/README.md §BA project): the camera `[11]` and points `X :
/// [N][3]`. The values are `cam x`.
pub fn project(points: usize) -> Option<Vec<Value>> {
    let x0 = [7.203245, 0.001144, 3.023326];
    let x = (0..points.checked_mul(3)? as u64)
        .map(|t| x0[(t % 3) as usize] + 2.0 * unif(seeds::PROJECT, t) - 1.0)
        .collect();
    Some(vec![
        f64_array(&[11], PROJECT_CAMERA.to_vec()),
        f64_array(&[points, 3], x),
    ])
}

/// A synthetic GMM instance (benchmarks/README.md §GMM), drawn the way ADBench drew its own.
pub fn gmm(d: usize, k: usize, n: usize) -> Option<Gmm> {
    let s = d * (d + 1) / 2;
    let [sa, sm, sq, sx] = seeds::GMM;
    Some(Gmm {
        d,
        k,
        n,
        alphas: (0..k as u64).map(|t| gauss(sa, t)).collect(),
        means: (0..k.checked_mul(d)? as u64).map(|t| unif(sm, t)).collect(),
        icf: (0..k.checked_mul(s)? as u64)
            .map(|t| gauss(sq, t))
            .collect(),
        x: (0..n.checked_mul(d)? as u64)
            .map(|t| gauss(sx, t))
            .collect(),
        gamma: 1.0,
        m: 0,
        replicated: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // The vectors are copied digit for digit from the specification.
    #[allow(clippy::excessive_precision)]
    #[test]
    fn test_vectors_of_the_specification() {
        assert_eq!(bits(0, 0), 0xe220a8397b1dcdaf);
        assert_eq!(bits(1, 0), 0x910a2dec89025cc1);
        assert_eq!(bits(42, 0), 0xbdd732262feb6e95);
        let u0: Vec<f64> = (0..3).map(|i| unif(0, i)).collect();
        assert_eq!(
            u0,
            [
                0.88331080821364261,
                0.43152799704850997,
                0.026433771592597743
            ]
        );
        let u1: Vec<f64> = (0..3).map(|i| unif(1, i)).collect();
        assert_eq!(
            u1,
            [0.5665615751722809, 0.74578175726270113, 0.97100275358679622]
        );
        let u42: Vec<f64> = (0..3).map(|i| unif(42, i)).collect();
        assert_eq!(
            u42,
            [0.74156487877182331, 0.1599103928769201, 0.27860113025513866]
        );
        let g = [
            -0.30718751604168471,
            -0.34813332680546255,
            -0.9336242682643392,
        ];
        for (i, e) in g.iter().enumerate() {
            let v = gauss(41, i as u64);
            assert!((v - e).abs() <= 4.0 * f64::EPSILON * e.abs(), "{v} vs {e}");
        }
    }

    #[test]
    fn counter_form_matches_the_sequential_generator() {
        let mut rng = gradus_check::SplitMix64::new(7);
        for i in 0..5 {
            assert_eq!(rng.next_u64(), bits(7, i));
        }
    }

    #[test]
    fn generated_shapes() {
        let k = kmeans(3, 10, 2).unwrap();
        assert_eq!(k[0].shape(), &[10, 2]);
        assert_eq!(k[1].shape(), &[3, 2]);
        assert!(kmeans(4, 3, 1).is_none());
        assert_eq!(nnmf(4, 5, 2).unwrap()[2].shape(), &[2, 5]);
        assert_eq!(project(10).unwrap()[1].shape(), &[10, 3]);
        assert_eq!(micro(10)[0].shape(), &[10]);
        assert_eq!(gmm(3, 4, 20).unwrap().num_params(), 40);
    }
}
