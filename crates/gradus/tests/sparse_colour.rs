//! Colourings and recovery of `gradus::sparse`: patterns with known optimal colour counts,
//! every colouring checked by the checkers, the checkers checked against brute force on
//! small graphs, and recovery compared with dense products of random matrices.

use gradus::sparse::colour::{
    Colouring, Order, check_columns, check_star, colour_columns, colour_columns_in, colour_rows,
    colour_star, colour_star_in, recover_by_columns, recover_by_rows, recover_star, seeds,
};
use gradus::sparse::csr::Pattern;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

// ---------------------------------------------------------------- patterns

fn tridiagonal(n: usize) -> Pattern {
    banded(n, 1)
}

fn banded(n: usize, b: usize) -> Pattern {
    let rows: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            (i.saturating_sub(b)..(i + b + 1).min(n))
                .map(|j| j as u32)
                .collect()
        })
        .collect();
    Pattern::from_rows(n, &rows)
}

/// The 5-point stencil on a k × k grid, numbered row by row.
fn stencil5(k: usize) -> Pattern {
    let mut rows = Vec::with_capacity(k * k);
    for y in 0..k {
        for x in 0..k {
            let mut r = vec![(y * k + x) as u32];
            if x > 0 {
                r.push((y * k + x - 1) as u32);
            }
            if x + 1 < k {
                r.push((y * k + x + 1) as u32);
            }
            if y > 0 {
                r.push(((y - 1) * k + x) as u32);
            }
            if y + 1 < k {
                r.push(((y + 1) * k + x) as u32);
            }
            rows.push(r);
        }
    }
    Pattern::from_rows(k * k, &rows)
}

/// Dense first row and column plus the diagonal.
fn arrow(n: usize) -> Pattern {
    let rows: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            if i == 0 {
                (0..n as u32).collect()
            } else {
                vec![0, i as u32]
            }
        })
        .collect();
    Pattern::from_rows(n, &rows)
}

fn random_pattern(rng: &mut Pcg64, nrows: usize, ncols: usize, density: f64) -> Pattern {
    let mut rows: Vec<Vec<u32>> = (0..nrows)
        .map(|_| {
            (0..ncols as u32)
                .filter(|_| rng.random_bool(density))
                .collect()
        })
        .collect();
    // Now and then a dense row or column, the hard cases for one side.
    if nrows > 0 && ncols > 0 && rng.random_bool(0.2) {
        rows[rng.random_range(0..nrows)] = (0..ncols as u32).collect();
    }
    if nrows > 0 && ncols > 0 && rng.random_bool(0.2) {
        let j = rng.random_range(0..ncols as u32);
        rows.iter_mut().for_each(|r| r.push(j));
    }
    Pattern::from_rows(ncols, &rows)
}

fn random_size(rng: &mut Pcg64) -> (usize, usize, f64) {
    let m = rng.random_range(0..40);
    let n = rng.random_range(0..40);
    let density = [0.02, 0.05, 0.1, 0.2, 0.4][rng.random_range(0..5)];
    (m, n, density)
}

fn dense(p: &Pattern) -> Vec<Vec<bool>> {
    let mut d = vec![vec![false; p.ncols]; p.nrows];
    for (i, row) in d.iter_mut().enumerate() {
        for &j in p.row(i) {
            row[j as usize] = true;
        }
    }
    d
}

// ---------------------------------------------------------------- values and products

/// A random matrix with the pattern's structure: `(dense, values in the pattern's order)`.
fn random_matrix(rng: &mut Pcg64, p: &Pattern) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut a = vec![vec![0.0; p.ncols]; p.nrows];
    let mut values = Vec::new();
    for (i, row) in a.iter_mut().enumerate() {
        for &j in p.row(i) {
            let v = rng.random_range(-10.0..10.0);
            row[j as usize] = v;
            values.push(v);
        }
    }
    (a, values)
}

/// A random symmetric matrix with the structure of `P or Pᵀ`: the dense matrix.
fn random_symmetric(rng: &mut Pcg64, p: &Pattern) -> Vec<Vec<f64>> {
    let s = p.symmetrised();
    let mut h = vec![vec![0.0; s.ncols]; s.nrows];
    let upper: Vec<(usize, usize)> = (0..s.nrows)
        .flat_map(|i| s.row(i).iter().map(move |&j| (i, j as usize)))
        .filter(|&(i, j)| j >= i)
        .collect();
    for (i, j) in upper {
        let v = rng.random_range(-10.0..10.0);
        h[i][j] = v;
        h[j][i] = v;
    }
    h
}

/// Row-major `[count][nrows]`: product k is A·s_k.
fn products_by_columns(a: &[Vec<f64>], ncols: usize, c: &Colouring) -> Vec<f64> {
    let s = seeds(c, ncols);
    let mut out = Vec::new();
    for k in 0..c.count {
        for row in a {
            out.push((0..ncols).map(|j| row[j] * s[k * ncols + j]).sum());
        }
    }
    out
}

/// Row-major `[count][ncols]`: product k is s_kᵀ·A.
fn products_by_rows(a: &[Vec<f64>], ncols: usize, c: &Colouring) -> Vec<f64> {
    let m = a.len();
    let s = seeds(c, m);
    let mut out = Vec::new();
    for k in 0..c.count {
        out.extend((0..ncols).map(|j| (0..m).map(|i| s[k * m + i] * a[i][j]).sum::<f64>()));
    }
    out
}

fn assert_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-12 * w.abs().max(1.0),
            "{what}: entry {k} is {g}, expected {w}"
        );
    }
}

fn values_of(a: &[Vec<f64>], p: &Pattern) -> Vec<f64> {
    (0..p.nrows)
        .flat_map(|i| p.row(i).iter().map(move |&j| a[i][j as usize]))
        .collect()
}

// ---------------------------------------------------------------- brute-force definitions

/// No two columns of one colour share a row, by definition.
fn columns_valid(p: &Pattern, c: &[u32]) -> bool {
    (0..p.nrows).all(|i| {
        let r = p.row(i);
        r.iter()
            .enumerate()
            .all(|(a, &x)| r[a + 1..].iter().all(|&y| c[x as usize] != c[y as usize]))
    })
}

/// Distance-1 and no two-coloured path on four vertices, by enumeration of all paths.
fn star_valid(p: &Pattern, c: &[u32]) -> bool {
    let d = dense(&p.symmetrised());
    let n = p.nrows;
    let adj = |u: usize, v: usize| u != v && d[u][v];
    for u in 0..n {
        for v in 0..n {
            if !adj(u, v) {
                continue;
            }
            if c[u] == c[v] {
                return false;
            }
            for w in 0..n {
                if w == u || !adj(v, w) {
                    continue;
                }
                for x in 0..n {
                    if x == u || x == v || !adj(w, x) {
                        continue;
                    }
                    if c[u] == c[w] && c[v] == c[x] {
                        return false;
                    }
                }
            }
        }
    }
    true
}

fn with_colours(colour: Vec<u32>) -> Colouring {
    let count = colour.iter().map(|&k| k as usize + 1).max().unwrap_or(0);
    Colouring {
        colour,
        count,
        order: Order::Natural,
    }
}

// ---------------------------------------------------------------- patterns: tests

#[test]
fn pattern_new_checks_its_invariants() {
    assert!(Pattern::new(2, 3, vec![0, 2, 3], vec![0, 2, 1]).is_ok());
    let bad = [
        Pattern::new(2, 3, vec![0, 2], vec![0, 2]),
        Pattern::new(2, 3, vec![1, 2, 3], vec![0, 2, 1]),
        Pattern::new(2, 3, vec![0, 2, 4], vec![0, 2, 1]),
        Pattern::new(2, 3, vec![0, 2, 1], vec![0, 2]),
        Pattern::new(2, 3, vec![0, 2, 3], vec![2, 0, 1]),
        Pattern::new(2, 3, vec![0, 2, 3], vec![1, 1, 1]),
        Pattern::new(2, 3, vec![0, 2, 3], vec![0, 3, 1]),
    ];
    for (k, b) in bad.iter().enumerate() {
        let e = b.as_ref().expect_err(&format!("case {k} accepted"));
        assert!(e.contains("row") || e.contains("offset"), "case {k}: {e}");
    }
    assert!(Pattern::try_from_rows(2, &[vec![0], vec![2]]).is_err());
}

#[test]
fn from_rows_sorts_and_deduplicates() {
    let p = Pattern::from_rows(4, &[vec![3, 1, 3, 0], vec![], vec![2, 2]]);
    assert_eq!(p.offsets, vec![0, 3, 3, 4]);
    assert_eq!(p.columns, vec![0, 1, 3, 2]);
    assert_eq!((p.nnz(), p.max_row_len()), (4, 3));
    assert_eq!(
        Pattern::new(3, 4, p.offsets.clone(), p.columns.clone()),
        Ok(p)
    );
}

#[test]
fn transpose_and_symmetrised_agree_with_dense() {
    let mut rng = Pcg64::seed_from_u64(1);
    for _ in 0..200 {
        let (m, n, density) = random_size(&mut rng);
        let p = random_pattern(&mut rng, m, n, density);
        let (d, t) = (dense(&p), p.transpose());
        assert_eq!((t.nrows, t.ncols), (n, m));
        let dt = dense(&t);
        assert!((0..m).all(|i| (0..n).all(|j| d[i][j] == dt[j][i])));
        assert_eq!(
            Pattern::new(n, m, t.offsets.clone(), t.columns.clone()),
            Ok(t.clone())
        );
        assert_eq!(t.transpose(), p);
        let q = random_pattern(&mut rng, n, n, density);
        let (dq, s) = (dense(&q), q.symmetrised());
        let ds = dense(&s);
        assert!((0..n).all(|i| (0..n).all(|j| ds[i][j] == (dq[i][j] || dq[j][i]))));
        assert!(s.is_symmetric());
        assert_eq!(q.is_symmetric(), q == s);
    }
}

#[test]
fn seeds_mark_each_colour_class() {
    let c = with_colours(vec![1, 0, 1, 2]);
    let s = seeds(&c, 4);
    let want = [[0., 1., 0., 0.], [1., 0., 1., 0.], [0., 0., 0., 1.]].concat();
    assert_eq!(s, want);
}

// ---------------------------------------------------------------- known colour counts

#[test]
fn tridiagonal_needs_three_column_colours() {
    for n in [3, 4, 10, 101] {
        let p = tridiagonal(n);
        let c = colour_columns(&p);
        check_columns(&p, &c).unwrap();
        assert_eq!(c.count, 3, "n = {n}");
    }
}

#[test]
fn banded_needs_two_b_plus_one_column_colours() {
    for b in 1..=5 {
        for n in [2 * b + 1, 4 * b + 3, 50] {
            let p = banded(n, b);
            let c = colour_columns(&p);
            check_columns(&p, &c).unwrap();
            assert_eq!(c.count, 2 * b + 1, "b = {b}, n = {n}");
            assert_eq!(c.count, p.max_row_len());
        }
    }
}

#[test]
fn five_point_stencil_reaches_five_column_colours() {
    for k in (3..=12).chain([31, 100, 317]) {
        let p = stencil5(k);
        let c = colour_columns(&p);
        check_columns(&p, &c).unwrap();
        assert_eq!(c.count, 5, "k = {k}: {:?}", c.order);
        assert_eq!(c.count, p.max_row_len());
    }
    // Incidence degree reaches the bound on every grid above, smallest-last on most.
    for k in [10, 50, 100] {
        let p = stencil5(k);
        assert_eq!(colour_columns_in(&p, Order::IncidenceDegree).count, 5);
        assert_eq!(colour_columns_in(&p, Order::SmallestLast).count, 5);
    }
}

#[test]
fn arrow_needs_n_colours_by_columns_and_two_by_stars() {
    for n in [2, 3, 10, 200] {
        let p = arrow(n);
        let c = colour_columns(&p);
        check_columns(&p, &c).unwrap();
        assert_eq!(c.count, n);
        let r = colour_rows(&p);
        check_columns(&p.transpose(), &r).unwrap();
        assert_eq!(r.count, n);
        for order in Order::ALL {
            let s = colour_star_in(&p, order);
            check_star(&p, &s).unwrap();
            assert_eq!(s.count, 2, "n = {n}, {order:?}");
        }
    }
}

/// Two dense rows and columns that do not meet (rows 0 and 1, or the last two), plus the
/// diagonal: the complete bipartite graph K(2, n-2).
fn two_hubs(n: usize, first: bool) -> Pattern {
    let (h1, h2) = if first { (0, 1) } else { (n - 2, n - 1) };
    let rows: Vec<Vec<u32>> = (0..n)
        .map(|i| {
            if i == h1 || i == h2 {
                let other = (h1 + h2 - i) as u32;
                (0..n as u32).filter(|&j| j != other).collect()
            } else {
                vec![h1 as u32, h2 as u32, i as u32]
            }
        })
        .collect();
    Pattern::from_rows(n, &rows)
}

#[test]
fn two_dense_rows_that_do_not_meet_need_three_star_colours() {
    for first in [true, false] {
        for n in [4, 10, 20_000] {
            let p = two_hubs(n, first);
            let c = colour_star(&p);
            check_star(&p, &c).unwrap();
            assert_eq!(c.count, 3, "n = {n}, hubs first: {first}");
        }
    }
    // Colouring the two hubs first with one colour costs a colour per other vertex.
    assert_eq!(
        colour_star_in(&two_hubs(100, true), Order::Natural).count,
        99
    );
}

#[test]
fn one_dimensional_laplacian_needs_three_star_colours() {
    for n in [4, 5, 17, 1000] {
        let p = tridiagonal(n);
        let c = colour_star(&p);
        check_star(&p, &c).unwrap();
        assert_eq!(c.count, 3, "n = {n}");
    }
    // Fewer than four vertices: no path on four, two colours do.
    for n in [2, 3] {
        assert_eq!(colour_star(&tridiagonal(n)).count, 2);
    }
}

#[test]
fn two_dimensional_laplacian_star_colours() {
    for k in [4, 10, 30, 100] {
        let p = stencil5(k);
        let c = colour_star(&p);
        check_star(&p, &c).unwrap();
        // 5 is the star chromatic number of large grids; the greedy orders reach 6.
        assert!((5..=6).contains(&c.count), "k = {k}: {} colours", c.count);
    }
}

// ---------------------------------------------------------------- random patterns

#[test]
fn random_column_and_row_colourings_are_valid_and_recover() {
    let mut rng = Pcg64::seed_from_u64(2);
    for _ in 0..300 {
        let (m, n, density) = random_size(&mut rng);
        let p = random_pattern(&mut rng, m, n, density);
        let (a, values) = random_matrix(&mut rng, &p);
        for order in Order::ALL {
            let c = colour_columns_in(&p, order);
            check_columns(&p, &c).unwrap();
            assert!(columns_valid(&p, &c.colour));
            assert!(c.count >= p.max_row_len());
            let got = recover_by_columns(&p, &c, &products_by_columns(&a, n, &c));
            assert_close(&got, &values, "by columns");
        }
        let best = colour_columns(&p);
        assert!(
            Order::ALL
                .iter()
                .all(|&o| colour_columns_in(&p, o).count >= best.count)
        );
        let r = colour_rows(&p);
        check_columns(&p.transpose(), &r).unwrap();
        let got = recover_by_rows(&p, &r, &products_by_rows(&a, n, &r));
        assert_close(&got, &values, "by rows");
    }
}

#[test]
fn random_star_colourings_are_valid_and_recover() {
    let mut rng = Pcg64::seed_from_u64(3);
    for case in 0..300 {
        let n = rng.random_range(0..40);
        let density = [0.03, 0.06, 0.1, 0.2, 0.4][rng.random_range(0..5)];
        // Half symmetric patterns, half not (coloured and read as P or Pᵀ).
        let mut p = random_pattern(&mut rng, n, n, density);
        if case % 2 == 0 {
            p = p.symmetrised();
        }
        let h = random_symmetric(&mut rng, &p);
        let want = values_of(&h, &p);
        for order in Order::ALL {
            let c = colour_star_in(&p, order);
            check_star(&p, &c).unwrap();
            assert!(star_valid(&p, &c.colour), "case {case}, {order:?}");
            let got = recover_star(&p, &c, &products_by_columns(&h, n, &c));
            assert_close(&got, &want, "star");
        }
        let best = colour_star(&p);
        assert!(
            Order::ALL
                .iter()
                .all(|&o| colour_star_in(&p, o).count >= best.count)
        );
    }
}

#[test]
fn larger_random_colourings_pass_the_checkers() {
    let mut rng = Pcg64::seed_from_u64(7);
    for _ in 0..6 {
        let n = rng.random_range(1000..3000);
        let per_row = rng.random_range(1..8);
        // Entries near the diagonal plus a few far ones: many degrees, many colours.
        let rows: Vec<Vec<u32>> = (0..n)
            .map(|i| {
                (0..per_row)
                    .map(|_| {
                        if rng.random_bool(0.8) {
                            (i + rng.random_range(0..20)).min(n - 1) as u32
                        } else {
                            rng.random_range(0..n as u32)
                        }
                    })
                    .collect()
            })
            .collect();
        let p = Pattern::from_rows(n, &rows);
        for order in Order::ALL {
            let c = colour_columns_in(&p, order);
            check_columns(&p, &c).unwrap();
            assert!(c.count >= p.max_row_len());
            let s = colour_star_in(&p, order);
            check_star(&p, &s).unwrap();
        }
        let r = colour_rows(&p);
        check_columns(&p.transpose(), &r).unwrap();
    }
}

#[test]
#[should_panic(expected = "square")]
fn colour_star_refuses_a_pattern_that_is_not_square() {
    colour_star(&Pattern::from_rows(3, &[vec![0, 2], vec![1]]));
}

#[test]
fn empty_patterns_colour_and_recover() {
    for (m, n) in [(0, 0), (0, 3), (3, 0), (4, 4)] {
        let p = Pattern::from_rows(n, &vec![vec![]; m]);
        let c = colour_columns(&p);
        check_columns(&p, &c).unwrap();
        assert!(recover_by_columns(&p, &c, &vec![0.0; c.count * m]).is_empty());
        if m == n {
            let s = colour_star(&p);
            check_star(&p, &s).unwrap();
            assert!(recover_star(&p, &s, &vec![0.0; s.count * n]).is_empty());
        }
    }
}

// ---------------------------------------------------------------- the checkers can fail

#[test]
fn check_columns_agrees_with_the_definition() {
    let mut rng = Pcg64::seed_from_u64(4);
    let (mut rejected, mut accepted) = (0, 0);
    for _ in 0..2000 {
        let (m, n) = (rng.random_range(1..7), rng.random_range(1..7));
        let p = random_pattern(&mut rng, m, n, 0.3);
        let k = rng.random_range(1..=n as u32);
        let c = with_colours((0..n).map(|_| rng.random_range(0..k)).collect());
        let ok = columns_valid(&p, &c.colour);
        assert_eq!(check_columns(&p, &c).is_ok(), ok, "{p:?} {c:?}");
        if ok { accepted += 1 } else { rejected += 1 }
    }
    assert!(accepted > 100 && rejected > 100, "{accepted} {rejected}");
    let p = tridiagonal(4);
    let e = check_columns(&p, &with_colours(vec![0, 1, 2, 1])).unwrap_err();
    assert!(e.contains("share row 2"), "{e}");
    assert!(check_columns(&p, &with_colours(vec![0, 1, 2])).is_err());
    let c = Colouring {
        colour: vec![0, 1, 2, 0],
        count: 2,
        order: Order::Natural,
    };
    assert!(check_columns(&p, &c).is_err());
}

#[test]
fn check_star_agrees_with_the_definition() {
    let mut rng = Pcg64::seed_from_u64(5);
    let (mut rejected, mut accepted) = (0, 0);
    for _ in 0..3000 {
        let n = rng.random_range(1..8);
        let p = random_pattern(&mut rng, n, n, 0.3);
        let k = rng.random_range(1..=n as u32);
        let c = with_colours((0..n).map(|_| rng.random_range(0..k)).collect());
        let ok = star_valid(&p, &c.colour);
        assert_eq!(check_star(&p, &c).is_ok(), ok, "{p:?} {c:?}");
        if ok { accepted += 1 } else { rejected += 1 }
    }
    assert!(accepted > 100 && rejected > 100, "{accepted} {rejected}");
    // A path on four vertices in two alternating colours is a distance-1 colouring but not
    // a star colouring.
    let p = tridiagonal(4);
    let e = check_star(&p, &with_colours(vec![0, 1, 0, 1])).unwrap_err();
    assert!(
        e.contains("0 – 1 – 2 – 3") || e.contains("3 – 2 – 1 – 0"),
        "{e}"
    );
    let e = check_star(&p, &with_colours(vec![0, 0, 1, 2])).unwrap_err();
    assert!(e.contains("adjacent vertices 0 and 1"), "{e}");
    assert!(check_star(&banded(3, 1).transpose(), &with_colours(vec![0, 1])).is_err());
    assert!(
        check_star(
            &Pattern::from_rows(3, &[vec![0, 1]]),
            &with_colours(vec![0])
        )
        .is_err()
    );
}

#[test]
fn random_recolouring_breaks_validity() {
    let mut rng = Pcg64::seed_from_u64(6);
    for _ in 0..200 {
        let n = rng.random_range(2..40);
        // With the diagonal, columns i and j share row i wherever (i, j) is an entry.
        let q = random_pattern(&mut rng, n, n, 0.15).symmetrised();
        let rows: Vec<Vec<u32>> = (0..n).map(|i| [q.row(i), &[i as u32]].concat()).collect();
        let p = Pattern::from_rows(n, &rows);
        // An off-diagonal entry (i, j): give i the colour of j.
        let Some((i, j)) = (0..n).find_map(|i| {
            p.row(i)
                .iter()
                .find(|&&j| j as usize != i)
                .map(|&j| (i, j as usize))
        }) else {
            continue;
        };
        let mut c = colour_columns(&p);
        c.colour[i] = c.colour[j];
        assert!(check_columns(&p, &c).is_err());
        let mut s = colour_star(&p);
        s.colour[i] = s.colour[j];
        assert!(check_star(&p, &s).is_err());
    }
}

#[test]
#[should_panic(expected = "not a star colouring")]
fn recover_star_refuses_a_colouring_that_is_not_a_star_colouring() {
    let p = tridiagonal(4);
    recover_star(&p, &with_colours(vec![0, 1, 0, 1]), &[0.0; 8]);
}

// ---------------------------------------------------------------- timing (not asserted)

/// `cargo test --release -p gradus --test sparse_colour -- --ignored --nocapture`
#[test]
#[ignore]
fn time_five_point_stencil_million() {
    use std::time::Instant;
    let t = Instant::now();
    let p = stencil5(1000);
    println!(
        "pattern: n = {}, nnz = {}, {:.3?}",
        p.ncols,
        p.nnz(),
        t.elapsed()
    );
    let t = Instant::now();
    let c = colour_columns(&p);
    println!(
        "colour_columns (all orders): {} colours by {:?}, {:.3?}",
        c.count,
        c.order,
        t.elapsed()
    );
    for order in Order::ALL {
        let t = Instant::now();
        let c = colour_columns_in(&p, order);
        println!(
            "  columns {order:?}: {} colours, {:.3?}",
            c.count,
            t.elapsed()
        );
    }
    let t = Instant::now();
    check_columns(&p, &c).unwrap();
    println!("check_columns: {:.3?}", t.elapsed());
    let t = Instant::now();
    let s = colour_star(&p);
    println!(
        "colour_star (all orders): {} colours by {:?}, {:.3?}",
        s.count,
        s.order,
        t.elapsed()
    );
    for order in Order::ALL {
        let t = Instant::now();
        let s = colour_star_in(&p, order);
        println!("  star {order:?}: {} colours, {:.3?}", s.count, t.elapsed());
    }
    let t = Instant::now();
    check_star(&p, &s).unwrap();
    println!("check_star: {:.3?}", t.elapsed());
    let t = Instant::now();
    let a = arrow(1_000_000);
    let s = colour_star(&a);
    println!(
        "arrow n = 10^6 colour_star: {} colours, {:.3?}",
        s.count,
        t.elapsed()
    );
}

#[test]
#[ignore]
fn print_stencil_orders() {
    for k in (3..=12).chain([31, 50, 100, 300, 1000]) {
        let p = stencil5(k);
        let c: Vec<usize> = Order::ALL
            .iter()
            .map(|&o| colour_columns_in(&p, o).count)
            .collect();
        let s: Vec<usize> = Order::ALL
            .iter()
            .map(|&o| colour_star_in(&p, o).count)
            .collect();
        println!("k = {k}: columns {c:?} star {s:?}");
    }
}
