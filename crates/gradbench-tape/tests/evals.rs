//! Each eval's derivative on a small hand-made input, against central finite differences of
//! the tool's own primal.

mod common;
use common::*;
use serde_json::{Value, json};

/// Checks that `gradient_fn`'s output (as numbers) matches finite differences of `primal_fn`
/// with respect to the field `key` of `input`.
fn check_gradient(module: &str, primal_fn: &str, gradient_fn: &str, input: Value, key: &str) {
    let g = numbers(&run(module, gradient_fn, &input));
    let x0 = numbers(&input[key]);
    let fd = gradus_check::fd::grad(&x0, |x| {
        let mut probe = input.clone();
        probe[key] = with_numbers(&input[key], x);
        numbers(&run(module, primal_fn, &probe))[0]
    });
    assert_close(&g, &fd, 1e-6);
}

#[test]
fn hello_double_is_the_derivative_of_square() {
    for x in [-1.5, 0.0, 3.25] {
        let d = numbers(&run("hello", "double", &json!(x)))[0];
        let fd =
            gradus_check::fd::grad(&[x], |v| numbers(&run("hello", "square", &json!(v[0])))[0]);
        assert_close(&[d], &fd, 1e-8);
    }
}

#[test]
fn lse_gradient() {
    let input = json!({"x": [0.3, -1.2, 2.5, 2.5, 0.0, 7.0, -3.0]});
    check_gradient("lse", "primal", "gradient", input, "x");
}

#[test]
fn llsq_gradient() {
    let input = json!({"x": [0.5, -0.25, 1.5, 0.1], "n": 9});
    check_gradient("llsq", "primal", "gradient", input, "x");
}

#[test]
fn gmm_jacobian() {
    let input = json!({
        "d": 3, "k": 2, "n": 4, "m": 1, "gamma": 1.5,
        "x": [[0.1, -0.4, 1.0], [1.2, 0.3, -0.7], [-0.5, 0.8, 0.2], [0.0, 0.0, 0.9]],
        "alpha": [0.2, -0.6],
        "mu": [[0.1, 0.5, -0.2], [0.7, -0.1, 0.4]],
        "q": [[0.3, -0.2, 0.1], [-0.4, 0.2, 0.05]],
        "l": [[0.5, -0.3, 0.2], [0.1, 0.4, -0.6]],
    });
    let g = run("gmm", "jacobian", &input);
    let params = json!([input["alpha"], input["mu"], input["q"], input["l"]]);
    let x0 = numbers(&params);
    let fd = gradus_check::fd::grad(&x0, |x| {
        let p = with_numbers(&params, x);
        let mut probe = input.clone();
        for (i, key) in ["alpha", "mu", "q", "l"].iter().enumerate() {
            probe[*key] = p[i].clone();
        }
        numbers(&run("gmm", "objective", &probe))[0]
    });
    let got = numbers(&json!([g["alpha"], g["mu"], g["q"], g["l"]]));
    assert_close(&got, &fd, 1e-6);
}

#[test]
fn ba_jacobian() {
    let input = json!({
        "n": 1, "m": 1, "p": 1, "w": 0.8, "feat": [0.3, -0.2],
        "cam": [0.1, -0.2, 0.3, 0.5, -0.4, 0.2, 1.5, 0.05, -0.03, 0.01, -0.002],
        "x": [0.7, -0.3, 4.0],
    });
    let j = run("ba", "jacobian", &input);
    let vals = numbers(&j["vals"]);
    assert_eq!(vals.len(), 31);
    let x0: Vec<f64> = numbers(&json!([input["cam"], input["x"], input["w"]]));
    let fd = gradus_check::fd::jacobian(&x0, |x| {
        let mut probe = input.clone();
        probe["cam"] = json!(x[..11]);
        probe["x"] = json!(x[11..14]);
        probe["w"] = json!(x[14]);
        let out = run("ba", "objective", &probe);
        let mut y = numbers(&out["reproj_error"]["elements"]);
        y.push(out["w_err"]["element"].as_f64().unwrap());
        y
    });
    assert_close(&vals[..15], &fd[0], 1e-6);
    assert_close(&vals[15..30], &fd[1], 1e-6);
    assert_close(&vals[30..], &fd[2][14..], 1e-6);
    // The row pointers: the first 30 entries (all 4 here) and the last one.
    assert_eq!(numbers(&j["rows"]), vec![0.0, 15.0, 30.0, 31.0, 31.0]);
}

#[test]
fn lstm_jacobian() {
    // l = 1 layer, b = 2 bits, c = 3 characters.
    let input = json!({
        "main_params": [[0.1, -0.3, 0.5, 0.2, -0.4, 0.6, 0.3, -0.1], [0.05, 0.2, -0.15, 0.3, 0.1, -0.2, 0.25, 0.4]],
        "extra_params": [[0.9, -0.7], [0.4, 0.8], [-0.1, 0.2]],
        "state": [[0.3, -0.2], [0.1, 0.5]],
        "sequence": [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]],
    });
    let g = numbers(&run("lstm", "jacobian", &input));
    let params = json!([input["main_params"], input["extra_params"]]);
    let fd = gradus_check::fd::grad(&numbers(&params), |x| {
        let p = with_numbers(&params, x);
        let mut probe = input.clone();
        probe["main_params"] = p[0].clone();
        probe["extra_params"] = p[1].clone();
        numbers(&run("lstm", "objective", &probe))[0]
    });
    assert_eq!(g.len(), 8 * 2 + 3 * 2);
    assert_close(&g, &fd, 1e-6);
}

#[test]
fn ode_gradient_is_of_the_last_component() {
    let input = json!({"x": [0.4, -1.1, 0.7, 2.0, 0.3], "s": 3});
    let g = numbers(&run("ode", "gradient", &input));
    let fd = gradus_check::fd::grad(&numbers(&input["x"]), |x| {
        let mut probe = input.clone();
        probe["x"] = json!(x);
        *numbers(&run("ode", "primal", &probe)).last().unwrap()
    });
    assert_close(&g, &fd, 1e-6);
}

#[test]
fn det_gradient() {
    for ell in [1, 2, 4] {
        let a: Vec<f64> = (0..ell * ell)
            .map(|i| ((i * 7 + 3) % 11) as f64 / 5.0 - 1.0)
            .collect();
        let input = json!({"A": a, "ell": ell});
        let g = numbers(&run("det", "gradient", &input));
        let fd = gradus_check::fd::grad(&a, |x| {
            numbers(&run("det", "primal", &json!({"A": x, "ell": ell})))[0]
        });
        assert_close(&g, &fd, 1e-6);
    }
}

#[test]
fn saddle_nested_gradients() {
    let start = [1.0, 1.0];
    let p = [0.3, -0.7];
    let fd = gradus_check::fd::grad(&p, |x| gradbench_tape::saddle::max_over_q(x, start));
    for function in ["ff", "fr", "rf", "rr"] {
        let g = gradbench_tape::saddle::max_gradient(function, &p, start).unwrap();
        assert_close(&g, &fd, 1e-6);
    }
    let ff = numbers(&run("saddle", "ff", &json!({"start": start})));
    for function in ["fr", "rf", "rr"] {
        let out = numbers(&run("saddle", function, &json!({"start": start})));
        assert_close(&out, &ff, 1e-9);
    }
}

#[test]
fn particle_nested_derivatives() {
    for w in [0.0, 0.15] {
        let fd = gradus_check::fd::grad(&[w], |x| gradbench_tape::particle::miss_distance(x[0]));
        for function in ["ff", "fr", "rf", "rr"] {
            let d = gradbench_tape::particle::miss_derivative(function, w).unwrap();
            assert_close(&[d], &fd, 1e-6);
        }
    }
    let ff = numbers(&run("particle", "ff", &json!({"w": 0.0})));
    for function in ["fr", "rf", "rr"] {
        let out = numbers(&run("particle", function, &json!({"w": 0.0})));
        assert_close(&out, &ff, 1e-9);
    }
}

/// A small made-up hand: 22 bones in finger chains, 6 vertices, 4 points.
fn ht_input(complicated: bool) -> Value {
    let mut seed = 7u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as f64 / (1u64 << 31) as f64) - 0.5
    };
    let mut matrix = |shift: f64| {
        let mut m: Vec<Vec<f64>> = (0..4)
            .map(|i| (0..4).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        for row in m.iter_mut().take(3) {
            for x in row.iter_mut().take(3) {
                *x += 0.3 * next();
            }
            row[3] = shift * next();
        }
        m
    };
    let parents: Vec<i64> = (0..22)
        .map(|b| match b {
            0 => -1,
            1 => 0,
            b if (b - 2) % 4 == 0 => 1,
            b => b - 1,
        })
        .collect();
    let base_relatives: Vec<_> = (0..22).map(|_| matrix(1.0)).collect();
    let inverse_base_absolutes: Vec<_> = (0..22).map(|_| matrix(0.5)).collect();
    let base_positions: Vec<Vec<f64>> = (0..6).map(|_| vec![next(), next(), next(), 1.0]).collect();
    let weights: Vec<Vec<f64>> = (0..6)
        .map(|v| {
            let mut w = vec![0.0; 22];
            w[2 + 3 * v] = 0.6;
            w[3 + 3 * v] = 0.4;
            w
        })
        .collect();
    let theta: Vec<f64> = (0..26).map(|_| next()).collect();
    let points: Vec<Vec<f64>> = (0..4).map(|_| vec![next(), next(), next()]).collect();
    json!({
        "theta": theta,
        "us": if complicated { json!([[0.2, 0.3], [0.5, 0.1], [0.3, 0.3], [0.1, 0.7]]) } else { json!([]) },
        "data": {
            "model": {
                "bone_count": 22,
                "bone_names": (0..22).map(|b| format!("b{b}")).collect::<Vec<_>>(),
                "parents": parents,
                "base_relatives": base_relatives,
                "inverse_base_absolutes": inverse_base_absolutes,
                "base_positions": base_positions,
                "weights": weights,
                "triangles": [[0, 1, 2], [3, 4, 5], [1, 3, 5]],
                "is_mirrored": complicated,
            },
            "correspondences": if complicated { [0, 1, 2, 1] } else { [0, 5, 3, 2] },
            "points": points,
        },
    })
}

#[test]
fn ht_jacobian() {
    for complicated in [false, true] {
        let input = ht_input(complicated);
        let j: Vec<Vec<f64>> = run("ht", "jacobian", &input)
            .as_array()
            .unwrap()
            .iter()
            .map(numbers)
            .collect();
        assert_eq!(j.len(), 12);
        let skip = if complicated { 2 } else { 0 };
        let objective_at = |key: &str, x: &[f64]| {
            let mut probe = input.clone();
            probe[key] = with_numbers(&input[key], x);
            numbers(&run("ht", "objective", &probe))
        };
        let fd =
            gradus_check::fd::jacobian(&numbers(&input["theta"]), |x| objective_at("theta", x));
        for (row, fd_row) in j.iter().zip(&fd) {
            assert_close(&row[skip..], fd_row, 1e-6);
        }
        if complicated {
            let fd = gradus_check::fd::jacobian(&numbers(&input["us"]), |x| objective_at("us", x));
            for (r, row) in j.iter().enumerate() {
                let point = r / 3;
                assert_close(&row[..2], &fd[r][2 * point..2 * point + 2], 1e-6);
            }
        }
    }
}

#[test]
fn llsq_gradient_in_tasks_matches_the_sequential_one() {
    let x = [0.5, -0.25, 1.5, 0.1, 0.3];
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for n in [9, 700] {
        let g1 = one.install(|| gradbench_tape::llsq::gradient(&x, n));
        let g2 = two.install(|| gradbench_tape::llsq::gradient(&x, n));
        assert_close(&g1, &g2, 1e-12);
        let fd = gradus_check::fd::grad(&x, |x| gradbench_tape::llsq::llsq(x, n));
        assert_close(&g2, &fd, 1e-6);
    }
}
