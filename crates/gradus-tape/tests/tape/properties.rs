//! Property tests: random expression DAGs with sharing, and random fork-join programs, against
//! finite differences, forward mode, and the sequential reverse pass under several pool sizes.

use gradus_check::{SplitMix64, Tolerance, check_transposition, compare, fd};
use gradus_num::{Dual, Real, jvp};
use gradus_tape::{Adjoints, ReverseOptions, Var, join, par_map, record};
use proptest::prelude::*;
use std::sync::OnceLock;

/// One step of a random program: an operation on earlier values (by index from the end, so
/// values are shared freely).
#[derive(Clone, Debug)]
enum Step {
    Op(u8, usize, usize),
    /// Two sub-programs run as parallel tasks; both results are appended.
    Fork(Vec<Step>, Vec<Step>),
    /// A `par_map` over `k` items, each running the sub-program with the item as a scale.
    Map(u8, Vec<Step>),
}

fn apply<S: Real>(op: u8, a: S, b: S) -> S {
    match op % 12 {
        0 => a + b,
        1 => a - b,
        2 => a * b * S::from_f64(0.5),
        3 => a / (S::one() + b * b),
        4 => a.sin() * b,
        5 => (a * S::from_f64(0.7)).tanh() + b.cos(),
        6 => (S::one() + a * a).sqrt() - b,
        7 => (a * S::from_f64(0.3)).exp() * S::from_f64(0.5),
        8 => a.atan2(S::one() + b * b),
        9 => a.hypot(b + S::from_f64(0.5)),
        // Sums that fuse with the product before them (`s` is the node just before the
        // product; `b` is when it was the last value recorded), the product used again after.
        // Bounded, so that long chains of them stay well conditioned.
        10 => {
            let s = a.tanh() * b.tanh();
            s + a.sin() * s
        }
        _ => {
            let p = a.sin() * b;
            (p + b).tanh() * p
        }
    }
}

fn pick<S: Real>(env: &[S], i: usize) -> S {
    env[env.len() - 1 - i % env.len()]
}

fn run<S: Real>(steps: &[Step], env: &mut Vec<S>) {
    for s in steps {
        match s {
            Step::Op(op, i, j) => {
                let v = apply(*op, pick(env, *i), pick(env, *j));
                env.push(v);
            }
            Step::Fork(l, r) => {
                let (el, er) = (env.clone(), env.clone());
                let (a, b) = join(
                    || {
                        let mut e = el;
                        run(l, &mut e);
                        *e.last().unwrap()
                    },
                    || {
                        let mut e = er;
                        run(r, &mut e);
                        *e.last().unwrap()
                    },
                );
                env.push(a);
                env.push(b);
            }
            Step::Map(k, body) => {
                let items: Vec<f64> = (0..(*k % 5 + 1)).map(|i| 0.5 + 0.25 * i as f64).collect();
                let base = env.clone();
                let outs = par_map(&items, |&w| {
                    let mut e = base.clone();
                    e.push(S::from_f64(w) * *e.last().unwrap());
                    run(body, &mut e);
                    *e.last().unwrap()
                });
                env.extend(outs);
            }
        }
    }
}

/// Outputs: the last three values and a sum over everything.
fn program<S: Real>(steps: &[Step], x: &[S]) -> Vec<S> {
    let mut env = x.to_vec();
    run(steps, &mut env);
    let n = env.len();
    let total = env.iter().fold(S::zero(), |a, &b| a + b * S::from_f64(0.1));
    vec![env[n - 1], env[n - 2], env[n - 3], total]
}

fn op_strategy() -> impl Strategy<Value = Step> {
    (any::<u8>(), 0usize..6, 0usize..6).prop_map(|(o, i, j)| Step::Op(o, i, j))
}

fn steps_strategy() -> impl Strategy<Value = Vec<Step>> {
    let leaf = prop::collection::vec(op_strategy(), 1..8);
    leaf.prop_recursive(3, 60, 4, |inner| {
        prop::collection::vec(
            prop_oneof![
                4 => op_strategy(),
                1 => (inner.clone(), inner.clone()).prop_map(|(l, r)| Step::Fork(l, r)),
                1 => (any::<u8>(), inner).prop_map(|(k, b)| Step::Map(k, b)),
            ],
            1..8,
        )
    })
}

fn pools() -> &'static [rayon::ThreadPool] {
    static POOLS: OnceLock<Vec<rayon::ThreadPool>> = OnceLock::new();
    POOLS.get_or_init(|| {
        [1, 2, 4, 8]
            .iter()
            .map(|&t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            })
            .collect()
    })
}

fn pull(rec: &gradus_tape::Recording, seed: &[f64], options: ReverseOptions) -> Vec<f64> {
    let mut out = vec![0.0; rec.num_inputs()];
    rec.pullback_into(seed, &options, &mut Adjoints::new(), &mut out)
        .unwrap();
    out
}

proptest! {
    // A fixed seed: the same 48 programs on every run. Finite differences of a random
    // program are occasionally too inaccurate for the tolerance (about one program in 1500),
    // which must not make a test run fail by chance.
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x6772_6164_7573),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_programs_match_finite_differences_and_forward_mode(
        steps in steps_strategy(),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64::new(seed);
        let x = rng.vector(3, -1.0, 1.0);
        let ybar = rng.vector(4, -1.0, 1.0);
        let rec = record(&x, |v| program(&steps, v));
        let primal = program(&steps, &x);
        prop_assert_eq!(rec.outputs(), primal.as_slice());
        let g = rec.pullback(&ybar);
        // Finite differences of <ybar, f>.
        let fd = fd::grad(&x, |x| gradus_check::dot(&ybar, &program(&steps, x)));
        prop_assert!(compare(&g, &fd, Tolerance::new(1e-5, 1e-5)).is_ok(),
            "reverse {:?} vs finite differences {:?}", g, fd);
        // Forward mode by the transposition identity, along two directions.
        for _ in 0..2 {
            let xdot = rng.vector(3, -1.0, 1.0);
            let (_, ydot) = jvp(&x, &xdot, |d| program::<Dual<f64>>(&steps, d));
            prop_assert!(check_transposition(&g, &xdot, &ybar, &ydot, Tolerance::ROUNDING).is_ok());
        }
    }

    #[test]
    fn parallel_and_sequential_pullbacks_agree_on_every_pool(
        steps in steps_strategy(),
        seed in any::<u64>(),
    ) {
        let mut rng = SplitMix64::new(seed);
        let x = rng.vector(3, -1.0, 1.0);
        let ybar = rng.vector(4, -1.0, 1.0);
        let reference = {
            let rec = record(&x, |v| program(&steps, v));
            pull(&rec, &ybar, ReverseOptions::sequential())
        };
        for pool in pools() {
            let (seq, par, par_again) = pool.install(|| {
                let rec = record(&x, |v| program::<Var>(&steps, v));
                (
                    pull(&rec, &ybar, ReverseOptions::sequential()),
                    pull(&rec, &ybar, ReverseOptions::default()),
                    pull(&rec, &ybar, ReverseOptions::default()),
                )
            });
            // Sequential: bitwise identical whatever the number of threads.
            prop_assert_eq!(&seq, &reference);
            // Parallel: equal up to the order of cross-job additions.
            prop_assert!(compare(&par, &reference, Tolerance::new(1e-13, 1e-12)).is_ok(),
                "parallel {:?} vs sequential {:?}", par, reference);
            prop_assert!(compare(&par_again, &reference, Tolerance::new(1e-13, 1e-12)).is_ok());
        }
    }
}

#[test]
fn shared_input_written_by_many_tasks() {
    // 64 tasks all read the same inputs many times: heavy concurrent accumulation into job 0.
    let x = [0.3, -0.7];
    let rec = record(&x, |v| {
        let items: Vec<usize> = (0..64).collect();
        let parts = par_map(&items, |&i| {
            let mut acc = Var::constant(0.0);
            for k in 0..200 {
                acc += (v[0] * (i + k) as f64).sin() * v[1];
            }
            acc
        });
        vec![gradus_tape::sum(&parts)]
    });
    let seq = pull(&rec, &[1.0], ReverseOptions::sequential());
    for pool in pools() {
        for _ in 0..5 {
            let par = pool.install(|| pull(&rec, &[1.0], ReverseOptions::default()));
            compare(&par, &seq, Tolerance::new(1e-12, 1e-12)).unwrap();
        }
    }
    let fd = fd::grad(&x, |x| {
        (0..64)
            .flat_map(|i| (0..200).map(move |k| (i + k) as f64))
            .map(|c| (x[0] * c).sin() * x[1])
            .sum()
    });
    compare(&seq, &fd, Tolerance::new(1e-5, 1e-6)).unwrap();
}

#[test]
fn generated_programs_do_fork() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    fn forks(steps: &[Step]) -> usize {
        steps
            .iter()
            .map(|s| match s {
                Step::Op(..) => 0,
                Step::Fork(l, r) => 1 + forks(l) + forks(r),
                Step::Map(_, b) => 1 + forks(b),
            })
            .sum()
    }
    let mut runner = TestRunner::deterministic();
    let strategy = steps_strategy();
    let with_forks = (0..100)
        .filter(|_| forks(&strategy.new_tree(&mut runner).unwrap().current()) > 0)
        .count();
    assert!(with_forks >= 30, "only {with_forks} of 100 programs fork");
}
