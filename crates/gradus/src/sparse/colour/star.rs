//! Star colouring of symmetric patterns, its checker, and direct recovery of Hessians.
//!
//! Takes a square pattern, made symmetric (`P or Pᵀ`) where it is not; its graph has an
//! edge `v – w` for every off-diagonal entry. Gives a star colouring: adjacent vertices get
//! different colours, and every path on four vertices uses at least three colours; in other
//! words, the edges between any two colour classes form disjoint stars. That is what direct
//! recovery needs: of the two endpoints of an edge, one (the star's leaf) is the only vertex
//! of its colour next to the other (the hub), so its column sum reads the entry off alone.
//!
//! The greedy algorithm follows the idea of Gebremedhin, Tarafdar, Manne and Pothen (2007):
//! keep the two-coloured stars of the coloured part as explicit structures, and give a
//! vertex `v` a colour `c` only where every star it joins stays a star. For each colour `a`
//! of `v`'s neighbours, with `W` the neighbours of colour `a`:
//!
//! - `|W| = 1`, `W = {w}`: `v` joins the `{a, c}` star of `w`. That stays a star unless `w`
//!   is a leaf of a star of two or more edges, whose hub has colour `c`: forbid the hub
//!   colours of the stars in which `w` is a leaf.
//! - `|W| ≥ 2`: `v` becomes the hub of a new `{a, c}` star with leaves `W`, which needs every
//!   `w` in `W` to have no neighbour of colour `c` yet: forbid the colours of all of `w`'s
//!   stars.
//!
//! Each vertex keeps the list of the stars it belongs to, one per neighbouring colour, in an
//! arena laid out like the pattern's rows (a vertex has at most as many stars as
//! neighbours). Colouring `v` then costs the visits of its neighbours' star lists:
//! `O(nnz · min(d, colours))` in all (`d` the degree), and linear on stencils, bands and
//! arrows, where a dense row and column meet only one star.

use std::borrow::Cow;

use super::super::csr::Pattern;
use super::order::{Incidence, vertex_order};
use super::{Colouring, Order, UNSET, check_products, check_range};

/// The symmetric pattern to colour: `p` itself where it is symmetric.
fn symmetric<'a>(p: &'a Pattern, what: &str) -> Cow<'a, Pattern> {
    assert_eq!(
        p.nrows, p.ncols,
        "{what} needs a square pattern, not {} × {}",
        p.nrows, p.ncols
    );
    if p.is_symmetric() {
        Cow::Borrowed(p)
    } else {
        Cow::Owned(p.symmetrised())
    }
}

/// The orders [`colour_star`] tries, in turn. Smallest-last comes first because it copes
/// with two non-adjacent vertices of high degree: the other orders can give them one colour
/// before their common neighbours are coloured, which then forces a colour of its own on
/// each common neighbour (`n` colours and quadratic time for two dense rows and columns that
/// do not meet). The later orders stop as soon as they are no better, which keeps that cheap.
const STAR_ORDERS: [Order; 4] = [
    Order::SmallestLast,
    Order::Natural,
    Order::LargestFirst,
    Order::IncidenceDegree,
];

/// Star colouring of a square pattern (a Hessian's): a distance-1 colouring in which every
/// path on 4 vertices uses at least 3 colours, so every entry can be recovered directly.
/// Tries every order (smallest-last, natural, largest-first, incidence degree) and keeps the
/// fewest colours (ties: the first); an order is abandoned once it has as many colours as
/// the best before it. A pattern that is not symmetric is coloured as `P or Pᵀ`, which a
/// symmetric matrix's entries fill anyway.
///
/// # Panics
/// If the pattern is not square.
pub fn colour_star(p: &Pattern) -> Colouring {
    let s = symmetric(p, "colour_star");
    let g = Incidence { a: &s, b: None };
    // One colour without edges, else at least two.
    let edges = (0..s.nrows).any(|v| s.row(v).iter().any(|&w| w as usize != v));
    let bound = usize::from(s.nrows > 0) + usize::from(edges);
    let mut best: Option<Colouring> = None;
    for order in STAR_ORDERS {
        // A later order counts only with fewer colours: stop it once it has as many.
        let limit = best
            .as_ref()
            .map_or(usize::MAX, |b| b.count.saturating_sub(1));
        if let Some(c) = star(&s, &vertex_order(&g, order), order, limit) {
            best = Some(c);
        }
        if best.as_ref().is_some_and(|b| b.count <= bound) {
            break;
        }
    }
    best.expect("the first order has no limit")
}

/// Star colouring in one order; see [`colour_star`].
///
/// # Panics
/// If the pattern is not square.
pub fn colour_star_in(p: &Pattern, order: Order) -> Colouring {
    let s = symmetric(p, "colour_star_in");
    let g = Incidence { a: &s, b: None };
    star(&s, &vertex_order(&g, order), order, usize::MAX).expect("no limit")
}

/// The two-coloured stars of the part coloured so far.
struct Stars {
    /// The hub of each star, or `UNSET` while it is a single edge (either end could be).
    hub: Vec<u32>,
    /// `(colour of the other side, star)` for each star of each vertex, vertex `v`'s at
    /// `list[start[v]..start[v] + len[v]]`.
    list: Vec<(u32, u32)>,
    start: Vec<usize>,
    len: Vec<u32>,
}

impl Stars {
    fn of(&self, v: usize) -> &[(u32, u32)] {
        &self.list[self.start[v]..self.start[v] + self.len[v] as usize]
    }

    fn push(&mut self, v: usize, colour: u32, star: u32) {
        self.list[self.start[v] + self.len[v] as usize] = (colour, star);
        self.len[v] += 1;
    }

    fn new_star(&mut self, hub: u32) -> u32 {
        self.hub.push(hub);
        (self.hub.len() - 1) as u32
    }
}

/// Per-colour scratch arrays, stamped with the vertex being coloured.
struct Scratch {
    /// `forbidden[c] == v`: `v` may not take colour `c`.
    forbidden: Vec<u32>,
    /// `seen[a] == v`: `count[a]` is the number of `v`'s neighbours of colour `a`.
    seen: Vec<u32>,
    count: Vec<u32>,
    /// `made[a] == (v, s)`: `v` is the hub of the new star `s` of its `a`-neighbours.
    made: Vec<(u32, u32)>,
}

/// The greedy star colouring of the symmetric pattern `s` in the given vertex order, or
/// `None` as soon as it needs more than `limit` colours.
fn star(s: &Pattern, vertices: &[u32], order: Order, limit: usize) -> Option<Colouring> {
    let n = s.nrows;
    let mut colour = vec![UNSET; n];
    let mut stars = Stars {
        hub: Vec::new(),
        list: vec![(0, 0); s.nnz()],
        start: s.offsets[..n].to_vec(),
        len: vec![0; n],
    };
    let mut sc = Scratch {
        forbidden: vec![UNSET],
        seen: vec![UNSET],
        count: vec![0],
        made: vec![(UNSET, 0)],
    };
    for &v in vertices {
        let v = v as usize;
        let c = choose(s, &colour, &stars, &mut sc, v);
        colour[v] = c;
        if c as usize + 1 == sc.forbidden.len() {
            if sc.forbidden.len() > limit {
                return None;
            }
            sc.forbidden.push(UNSET);
            sc.seen.push(UNSET);
            sc.count.push(0);
            sc.made.push((UNSET, 0));
        }
        join_stars(s, &colour, &mut stars, &mut sc, v);
    }
    Some(Colouring {
        colour,
        count: sc.forbidden.len() - 1,
        order,
    })
}

/// The smallest colour that keeps the colouring a star colouring once `v` has it.
fn choose(s: &Pattern, colour: &[u32], stars: &Stars, sc: &mut Scratch, v: usize) -> u32 {
    let tag = v as u32;
    let neighbours = || s.row(v).iter().map(|&w| w as usize).filter(|&w| w != v);
    for w in neighbours() {
        let a = colour[w] as usize;
        if a == UNSET as usize {
            continue;
        }
        sc.forbidden[a] = tag;
        if sc.seen[a] != tag {
            sc.seen[a] = tag;
            sc.count[a] = 0;
        }
        sc.count[a] += 1;
    }
    for w in neighbours() {
        let a = colour[w];
        if a == UNSET {
            continue;
        }
        let alone = sc.count[a as usize] == 1;
        for &(b, st) in stars.of(w) {
            let hub = stars.hub[st as usize];
            if !alone || (hub != UNSET && hub as usize != w) {
                sc.forbidden[b as usize] = tag;
            }
        }
    }
    sc.forbidden.iter().position(|&f| f != tag).unwrap() as u32
}

/// Records the edges from `v`, just coloured, to its coloured neighbours in the stars.
fn join_stars(s: &Pattern, colour: &[u32], stars: &mut Stars, sc: &mut Scratch, v: usize) {
    let (tag, c) = (v as u32, colour[v]);
    for &w in s.row(v) {
        let w = w as usize;
        let a = colour[w];
        if w == v || a == UNSET {
            continue;
        }
        if sc.count[a as usize] >= 2 {
            // v is the hub of a new star of all its a-neighbours.
            if sc.made[a as usize].0 != tag {
                let st = stars.new_star(tag);
                sc.made[a as usize] = (tag, st);
                stars.push(v, a, st);
            }
            stars.push(w, c, sc.made[a as usize].1);
            continue;
        }
        match stars.of(w).iter().find(|&&(b, _)| b == c) {
            None => {
                let st = stars.new_star(UNSET);
                stars.push(w, c, st);
                stars.push(v, a, st);
            }
            Some(&(_, st)) => {
                let hub = &mut stars.hub[st as usize];
                debug_assert!(*hub == UNSET || *hub as usize == w, "v joins at a leaf");
                *hub = w as u32;
                stars.push(v, a, st);
            }
        }
    }
}

/// For each entry of the symmetric pattern `s`, whether its column's colour occurs once
/// among the row's vertex and its neighbours.
fn unique_in_row(s: &Pattern, c: &Colouring) -> Vec<bool> {
    let mut seen = vec![UNSET; c.count];
    let mut count = vec![0u32; c.count];
    let mut unique = Vec::with_capacity(s.nnz());
    for i in 0..s.nrows {
        let mut bump = |k: usize| {
            if seen[k] != i as u32 {
                seen[k] = i as u32;
                count[k] = 0;
            }
            count[k] += 1;
        };
        bump(c.colour[i] as usize);
        for &j in s.row(i) {
            if j as usize != i {
                bump(c.colour[j as usize] as usize);
            }
        }
        unique.extend(
            s.row(i)
                .iter()
                .map(|&j| count[c.colour[j as usize] as usize] == 1),
        );
    }
    unique
}

/// The index in `s.columns` of entry `(i, j)`, which must be there.
fn entry(s: &Pattern, i: usize, j: u32) -> usize {
    let k = s
        .row(i)
        .binary_search(&j)
        .expect("entry of the symmetric pattern");
    s.offsets[i] + k
}

/// Checks a star colouring of a square pattern (of `P or Pᵀ` where `P` is not symmetric):
/// one colour per vertex below the count, adjacent vertices coloured apart, and no path on
/// four vertices in two colours. The `Err` names the offending edge or path.
pub fn check_star(p: &Pattern, c: &Colouring) -> Result<(), String> {
    if p.nrows != p.ncols {
        return Err(format!(
            "star colouring needs a square pattern, not {} × {}",
            p.nrows, p.ncols
        ));
    }
    check_range(c, p.ncols, "vertices")?;
    let s = symmetric(p, "check_star");
    for i in 0..s.nrows {
        if let Some(&j) = s
            .row(i)
            .iter()
            .find(|&&j| j as usize != i && c.colour[j as usize] == c.colour[i])
        {
            return Err(format!(
                "adjacent vertices {i} and {j} both have colour {}",
                c.colour[i]
            ));
        }
    }
    // An edge v – w lies in the middle of a two-coloured path u – v – w – x exactly when v
    // has another neighbour of w's colour and w another of v's.
    let unique = unique_in_row(&s, c);
    for v in 0..s.nrows {
        for (e, &w) in s.row(v).iter().enumerate() {
            let e = s.offsets[v] + e;
            if (w as usize) > v && !unique[e] && !unique[entry(&s, w as usize, v as u32)] {
                let other = |x: usize, y: u32| {
                    *s.row(x)
                        .iter()
                        .find(|&&z| {
                            z != y
                                && z as usize != x
                                && c.colour[z as usize] == c.colour[y as usize]
                        })
                        .unwrap()
                };
                return Err(format!(
                    "path {} – {v} – {w} – {} uses only colours {} and {}",
                    other(v, w),
                    other(w as usize, v as u32),
                    c.colour[w as usize],
                    c.colour[v]
                ));
            }
        }
    }
    Ok(())
}

/// The values of a symmetric matrix's entries in the pattern's order (rows in order,
/// columns ascending) from the products `H·s_k`, row-major `[count][n]`, of a star
/// colouring: `H[i][j]` is element `i` of the product of `j`'s colour where `j` is the only
/// vertex of its colour among `i` and its neighbours, else element `j` of the product of
/// `i`'s colour. A pattern that is not symmetric is read through `P or Pᵀ`. To recover many
/// matrices with one pattern, [`star_sources`] once and a gather per matrix do the same.
///
/// # Panics
/// If the pattern is not square, the lengths do not fit, or the colouring is not a star
/// colouring (an entry that neither rule can read).
pub fn recover_star(p: &Pattern, c: &Colouring, products: &[f64]) -> Vec<f64> {
    let sources = star_sources(p, c);
    check_products(c, p.nrows, p.ncols, products, "recover_star");
    sources.iter().map(|&k| products[k]).collect()
}

/// Where [`recover_star`] reads each entry of the pattern: `values[e] ==
/// products[sources[e]]`, with the products row-major `[count][n]`.
///
/// # Panics
/// If the pattern is not square, the colouring is not one of its `n` vertices, or it is not
/// a star colouring (an entry that neither rule can read).
pub fn star_sources(p: &Pattern, c: &Colouring) -> Vec<usize> {
    let s = symmetric(p, "star_sources");
    let n = s.nrows;
    assert_eq!(
        c.colour.len(),
        n,
        "star_sources: the colouring has {} vertices, the pattern {n}",
        c.colour.len()
    );
    let unique = unique_in_row(&s, c);
    let same = matches!(s, Cow::Borrowed(_));
    let mut sources = Vec::with_capacity(p.nnz());
    for i in 0..n {
        for (e, &j) in p.row(i).iter().enumerate() {
            let e = if same {
                p.offsets[i] + e
            } else {
                entry(&s, i, j)
            };
            let (ci, cj) = (c.colour[i] as usize, c.colour[j as usize] as usize);
            if unique[e] {
                sources.push(cj * n + i);
            } else if unique[entry(&s, j as usize, i as u32)] {
                sources.push(ci * n + j as usize);
            } else {
                panic!("recover_star: not a star colouring, entry ({i}, {j}) cannot be read");
            }
        }
    }
    sources
}
