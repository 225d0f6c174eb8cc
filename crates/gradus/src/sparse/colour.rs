//! Colourings of sparsity patterns, their checkers, seed matrices and recovery.
//!
//! Takes a [`Pattern`]; gives a [`Colouring`] such that the compressed products named by
//! the colouring determine every entry of the pattern directly (by one read, no solve):
//!
//! - [`colour_columns`]: a distance-2 colouring of the columns, no two columns that share a
//!   row in one colour. Product `k` is `J·s_k` (`jmp` with the seeds of [`seeds`]); entry
//!   `(i, j)` is element `i` of the product of `j`'s colour ([`recover_by_columns`]). The
//!   same colouring of the transposed pattern ([`colour_rows`]) colours the rows: product `k`
//!   is `s_kᵀ·J` (`mjp`), and entry `(i, j)` is element `j` of the product of `i`'s colour
//!   ([`recover_by_rows`]). The largest row ([`Pattern::max_row_len`]) bounds the colours
//!   from below.
//! - [`colour_star`]: a star colouring of a symmetric pattern (Hessians): a distance-1
//!   colouring in which every path on four vertices uses at least three colours. Product `k`
//!   is `H·s_k`; [`recover_star`] reads each entry from the product of one of its two
//!   endpoints' colours, using the symmetry. On an arrow matrix this needs 2 colours where
//!   columns need `n`.
//!
//! All colourings are greedy: the vertices are taken in an [`Order`] and each gets the
//! smallest colour its already coloured neighbours allow. [`colour_columns`] and
//! [`colour_star`] try every order and keep the fewest colours (the first order on ties),
//! skipping what cannot win: the orders after one that reaches a lower bound, and (stars)
//! the rest of an order that already has as many colours as the best.
//! The forbidden colours are an array stamped with the vertex being coloured, so a greedy
//! pass costs the neighbour visits it makes and nothing per colour: `O(Σ_i r_i²)` for columns
//! (`r_i` the length of row `i`), about `O(nnz · min(d, colours))` for stars (`d` a vertex's
//! degree). The checkers ([`check_columns`], [`check_star`]) are independent of the
//! colouring code and cost `O(nnz)` (`O(nnz log d)` for stars).

mod order;
mod star;

pub use star::{check_star, colour_star, colour_star_in, recover_star, star_sources};

use super::csr::Pattern;
use order::{Incidence, vertex_order};

/// The order in which a greedy colouring takes the vertices (columns, or rows of a Hessian).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Order {
    /// Index order.
    Natural,
    /// Decreasing degree (for columns: the sum of the lengths of the column's rows).
    LargestFirst,
    /// Smallest-last: the reverse of removing, one at a time, a vertex of least degree in
    /// what remains (degrees with multiplicity of shared rows).
    SmallestLast,
    /// Incidence degree: next, a vertex with the most neighbours already taken.
    IncidenceDegree,
}

impl Order {
    /// Every order, in the sequence in which [`colour_columns`] tries them ([`colour_star`]
    /// starts with smallest-last).
    pub const ALL: [Order; 4] = [
        Order::Natural,
        Order::LargestFirst,
        Order::SmallestLast,
        Order::IncidenceDegree,
    ];
}

/// A colouring: `colour[v] < count` for every vertex `v`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Colouring {
    /// The colour of each vertex (column, row or Hessian index).
    pub colour: Vec<u32>,
    /// The number of colours: of compressed products to take.
    pub count: usize,
    /// The order that produced it.
    pub order: Order,
}

/// Marks a slot of a stamped array as not yet stamped by any vertex.
const UNSET: u32 = u32::MAX;

/// Greedy colouring of the graph `g` in the given vertex order: each vertex takes the
/// smallest colour that none of its coloured neighbours has.
fn greedy(g: &Incidence, vertices: &[u32], order: Order) -> Colouring {
    let mut colour = vec![UNSET; g.vertices()];
    // forbidden[c] == v: colour c is taken by a neighbour of v.
    let mut forbidden: Vec<u32> = vec![UNSET];
    for &v in vertices {
        g.for_each_neighbour(v as usize, |k| {
            let c = colour[k];
            if c != UNSET {
                forbidden[c as usize] = v;
            }
        });
        let c = forbidden.iter().position(|&f| f != v).unwrap();
        if c + 1 == forbidden.len() {
            forbidden.push(UNSET);
        }
        colour[v as usize] = c as u32;
    }
    Colouring {
        colour,
        count: forbidden.len() - 1,
        order,
    }
}

/// The colouring with the fewest colours, the first on ties. The colourings are made
/// lazily and the search stops at one that reaches `bound`, a lower bound on the count.
fn fewest(mut colourings: impl Iterator<Item = Colouring>, bound: usize) -> Colouring {
    let mut best = colourings.next().expect("at least one order");
    while best.count > bound {
        match colourings.next() {
            Some(c) if c.count < best.count => best = c,
            Some(_) => {}
            None => break,
        }
    }
    best
}

/// Distance-2 colouring of the columns (no two columns sharing a row get one colour); tries
/// every order, keeps the fewest colours (ties: the first). The orders after one that
/// reaches the lower bound ([`Pattern::max_row_len`]) are skipped: they could only tie.
pub fn colour_columns(p: &Pattern) -> Colouring {
    let t = p.transpose();
    let g = Incidence { a: &t, b: Some(p) };
    fewest(
        Order::ALL
            .iter()
            .map(|&o| greedy(&g, &vertex_order(&g, o), o)),
        p.max_row_len(),
    )
}

/// Distance-2 colouring of the columns, in one order.
pub fn colour_columns_in(p: &Pattern, order: Order) -> Colouring {
    let t = p.transpose();
    let g = Incidence { a: &t, b: Some(p) };
    greedy(&g, &vertex_order(&g, order), order)
}

/// Distance-2 colouring of the rows (no two rows sharing a column get one colour): the
/// columns of the transposed pattern, for [`recover_by_rows`].
pub fn colour_rows(p: &Pattern) -> Colouring {
    colour_columns(&p.transpose())
}

/// Checks a distance-2 column colouring: one colour per column, each below `count`, and no
/// two columns of one colour in a row. The `Err` names the offending row and columns.
pub fn check_columns(p: &Pattern, c: &Colouring) -> Result<(), String> {
    check_range(c, p.ncols, "columns")?;
    // seen[k] == (i, j): column j of colour k was met in row i.
    let mut seen = vec![(usize::MAX, 0u32); c.count];
    for i in 0..p.nrows {
        for &j in p.row(i) {
            let k = c.colour[j as usize] as usize;
            if seen[k].0 == i {
                return Err(format!(
                    "columns {} and {j} share row {i} but both have colour {k}",
                    seen[k].1
                ));
            }
            seen[k] = (i, j);
        }
    }
    Ok(())
}

/// Checks that a colouring has one colour per vertex, each below its count.
fn check_range(c: &Colouring, n: usize, what: &str) -> Result<(), String> {
    if c.colour.len() != n {
        return Err(format!(
            "colouring has {} colours for {n} {what}",
            c.colour.len()
        ));
    }
    if let Some(v) = c.colour.iter().position(|&k| k as usize >= c.count) {
        return Err(format!(
            "vertex {v} has colour {} but the colouring has {} colours",
            c.colour[v], c.count
        ));
    }
    Ok(())
}

/// The seed matrix row-major `[count][n]`: 1.0 where `colour[j] == k`, else 0.0.
///
/// # Panics
/// If `n` is not the number of coloured vertices.
pub fn seeds(c: &Colouring, n: usize) -> Vec<f64> {
    assert_eq!(
        n,
        c.colour.len(),
        "seeds: {n} columns asked of a colouring of {}",
        c.colour.len()
    );
    let mut s = vec![0.0; c.count * n];
    for (j, &k) in c.colour.iter().enumerate() {
        s[k as usize * n + j] = 1.0;
    }
    s
}

/// Checks the lengths given to a recovery function.
fn check_products(c: &Colouring, vertices: usize, len: usize, products: &[f64], what: &str) {
    assert_eq!(
        c.colour.len(),
        vertices,
        "{what}: the colouring has {} vertices, the pattern {vertices}",
        c.colour.len()
    );
    assert_eq!(
        products.len(),
        c.count * len,
        "{what}: expected {} products of length {len}, got {} values",
        c.count,
        products.len()
    );
}

/// The values of the pattern's entries (rows in order, columns ascending) from the products
/// `J·s_k`, row-major `[count][nrows]`, of a distance-2 column colouring.
///
/// # Panics
/// If the colouring is not one of `p.ncols` columns or `products` is not `count · nrows`
/// long.
pub fn recover_by_columns(p: &Pattern, c: &Colouring, products: &[f64]) -> Vec<f64> {
    check_products(c, p.ncols, p.nrows, products, "recover_by_columns");
    let mut values = Vec::with_capacity(p.nnz());
    for i in 0..p.nrows {
        for &j in p.row(i) {
            values.push(products[c.colour[j as usize] as usize * p.nrows + i]);
        }
    }
    values
}

/// The values of the pattern's entries (rows in order, columns ascending) from the products
/// `s_kᵀ·J`, row-major `[count][ncols]`, of a colouring of the rows (a distance-2 column
/// colouring of `p.transpose()`, as [`colour_rows`] gives).
///
/// # Panics
/// If the colouring is not one of `p.nrows` rows or `products` is not `count · ncols` long.
pub fn recover_by_rows(p: &Pattern, c: &Colouring, products: &[f64]) -> Vec<f64> {
    check_products(c, p.nrows, p.ncols, products, "recover_by_rows");
    let mut values = Vec::with_capacity(p.nnz());
    for i in 0..p.nrows {
        let base = c.colour[i] as usize * p.ncols;
        values.extend(p.row(i).iter().map(|&j| products[base + j as usize]));
    }
    values
}
