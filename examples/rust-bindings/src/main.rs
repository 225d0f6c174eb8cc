//! Calls the GMM objective and its gradient through bindings generated at build time, checks
//! the gradient against central finite differences and forward mode, and shows a run-time
//! error.

mod gmm {
    include!(concat!(env!("OUT_DIR"), "/gmm.rs"));
}

mod kinds {
    include!(concat!(env!("OUT_DIR"), "/kinds.rs"));
}

use gmm::ndarray::{Array, Array1, Array2, Dimension};

/// A small deterministic mixture: 3 components in 2 dimensions, 6 points.
fn inputs() -> (Array1<f64>, Array2<f64>, Array2<f64>, Array2<f64>) {
    let wave = |i: usize, scale: f64| scale * ((i as f64) * 0.7 + 0.3).sin();
    let alphas = Array1::from_shape_fn(3, |i| wave(i, 1.0));
    let means = Array2::from_shape_fn((3, 2), |(i, j)| wave(2 * i + j + 5, 1.5));
    let icf = Array2::from_shape_fn((3, 3), |(i, j)| wave(3 * i + j + 11, 0.3));
    let x = Array2::from_shape_fn((6, 2), |(i, j)| wave(2 * i + j + 23, 2.0));
    (alphas, means, icf, x)
}

/// Central differences of `f` at `at`, one coordinate at a time.
fn central<D: Dimension>(at: &Array<f64, D>, f: impl Fn(&Array<f64, D>) -> f64) -> Array<f64, D> {
    let h = 1e-6;
    let mut grad = at.clone();
    for (k, g) in grad.iter_mut().enumerate() {
        let (mut up, mut down) = (at.clone(), at.clone());
        up.as_slice_mut().unwrap()[k] += h;
        down.as_slice_mut().unwrap()[k] -= h;
        *g = (f(&up) - f(&down)) / (2.0 * h);
    }
    grad
}

fn close<D: Dimension>(a: &Array<f64, D>, b: &Array<f64, D>, tol: f64) -> bool {
    a.iter()
        .zip(b)
        .all(|(x, y)| (x - y).abs() <= tol * (1.0 + y.abs()))
}

/// Calls over other element types, ranks and layouts; panics on a wrong result.
fn element_types() -> Result<(), kinds::Error> {
    use kinds::ndarray::{Array3, array};
    let k = kinds::Context::new()?;
    let xss = array![[1.0f32, 2.0], [3.0, 4.5]];
    assert_eq!(k.row_sums(xss.view())?, array![3.0f32, 7.5]);
    // A transposed view: not in standard layout, copied once.
    assert_eq!(k.row_sums(xss.t())?, array![4.0f32, 6.5]);
    assert_eq!(k.stats(array![1.0, 5.0, 2.0].view())?, (8.0, 5.0, 3));
    assert_eq!(
        k.positive(array![3, -1, 0].view())?,
        array![true, false, false]
    );
    assert_eq!(k.count(array![true, false, true].view())?, 2);
    assert_eq!(k.shift(array![250u8, 1].view(), 10)?, array![4u8, 11]);
    assert_eq!(k.both(true, 3, 1.5)?, (false, 4, 3.0));
    let cube: Array3<i64> = k.cube(3)?;
    assert_eq!(cube.shape(), &[3, 3, 3]);
    assert_eq!(cube[[2, 1, 0]], 210);
    assert_eq!(k.take(2, array![1.0, 2.0, 3.0].view())?, array![1.0, 2.0]);
    let err = k.pick(array![1.0, 2.0].view(), 5).unwrap_err();
    assert_eq!(
        err.message,
        "Index [5] out of bounds for array of shape [2]."
    );
    assert!(err.locations[0].starts_with("src/kinds.fut:13:"), "{err}");
    let err = k.take(4, array![1.0].view()).unwrap_err();
    println!("{err}");
    println!("element types, ranks and layouts: ok");
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    element_types()?;
    let ctx = gmm::Context::new()?;
    let (alphas, means, icf, x) = inputs();
    let (gamma, m) = (1.0, 0);
    let objective = ctx.objective(alphas.view(), means.view(), icf.view(), x.view(), gamma, m)?;
    println!("objective: {objective:.9}");
    let (d_alphas, d_means, d_icf) =
        ctx.gradient(alphas.view(), means.view(), icf.view(), x.view(), gamma, m)?;
    println!("d alphas: {d_alphas}");

    let f = |a: &Array1<f64>, mu: &Array2<f64>, q: &Array2<f64>| {
        ctx.objective(a.view(), mu.view(), q.view(), x.view(), gamma, m)
            .unwrap()
    };
    let fd_alphas = central(&alphas, |a| f(a, &means, &icf));
    let fd_means = central(&means, |mu| f(&alphas, mu, &icf));
    let fd_icf = central(&icf, |q| f(&alphas, &means, q));
    let matches = close(&d_alphas, &fd_alphas, 1e-5)
        && close(&d_means, &fd_means, 1e-5)
        && close(&d_icf, &fd_icf, 1e-5);
    println!("gradient matches finite differences: {matches}");

    // The same gradient in forward mode, on one thread, with a transposed (column-major)
    // copy of the data: arrays not in standard layout are copied once.
    let one = gmm::Context::with_threads(1)?;
    let x_t = x.t().to_owned();
    let (f_alphas, f_means, f_icf) =
        one.gradient_fwd(alphas.view(), means.view(), icf.view(), x_t.t(), gamma, m)?;
    let agrees = close(&d_alphas, &f_alphas, 1e-10)
        && close(&d_means, &f_means, 1e-10)
        && close(&d_icf, &f_icf, 1e-10);
    println!("forward mode agrees: {agrees}");

    // The gradient derived on demand at build time (`.derivative` in build.rs).
    let (g_alphas, g_means, g_icf) =
        ctx.grad_objective(alphas.view(), means.view(), icf.view(), x.view(), gamma, m)?;
    let derived = close(&d_alphas, &g_alphas, 1e-12)
        && close(&d_means, &g_means, 1e-12)
        && close(&d_icf, &g_icf, 1e-12);
    println!("derived gradient agrees: {derived}");

    // Sizes that do not agree are a run-time error with the entry point's location.
    let bad_means = Array2::<f64>::zeros((2, 2));
    match ctx.objective(
        alphas.view(),
        bad_means.view(),
        icf.view(),
        x.view(),
        gamma,
        m,
    ) {
        Ok(v) => println!("unexpected success: {v}"),
        Err(e) => println!("{e}"),
    }
    if matches && agrees && derived {
        Ok(())
    } else {
        Err("the gradient does not match".into())
    }
}
