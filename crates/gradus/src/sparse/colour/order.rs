//! Vertex orders for the greedy colourings, over a graph given by two incidence patterns.
//!
//! The graph's vertices are the rows of a pattern `a`; the neighbours of `v` are reached
//! through `a`'s row `v` and then, for each entry `r` there, through row `r` of a second
//! pattern `b` (or `r` itself when `b` is the identity). With `a` the transposed Jacobian
//! pattern and `b` the pattern, that is the column intersection graph of distance-2 column
//! colouring, each neighbour counted once per shared row; with `a` a symmetric pattern and
//! `b` the identity, it is the adjacency graph of a Hessian. Both are symmetric relations,
//! which the degree updates below rely on.
//!
//! Guarantees: every function returns a permutation of the vertices. Costs: natural `O(n)`,
//! largest-first `O(n log n + nnz)`, smallest-last and incidence-degree `O(n + Σ_v (visits of
//! v's neighbours))`, the same as one greedy colouring, through degree buckets (doubly linked
//! lists indexed by degree) rather than searches over all vertices.

use super::super::csr::Pattern;
use super::Order;

/// No vertex: the end of a bucket's list.
const NIL: u32 = u32::MAX;

/// A graph whose neighbours are reached through one or two patterns (see the module docs).
pub(super) struct Incidence<'a> {
    /// Row `v` lists the first step from vertex `v`.
    pub a: &'a Pattern,
    /// Row `r` lists the vertices reached from `r`; `None` is the identity.
    pub b: Option<&'a Pattern>,
}

impl Incidence<'_> {
    /// Number of vertices.
    pub fn vertices(&self) -> usize {
        self.a.nrows
    }

    /// Calls `f` on every neighbour of `v` other than `v`, with multiplicity.
    #[inline]
    pub fn for_each_neighbour(&self, v: usize, mut f: impl FnMut(usize)) {
        for &r in self.a.row(v) {
            match self.b {
                Some(b) => {
                    for &k in b.row(r as usize) {
                        if k as usize != v {
                            f(k as usize);
                        }
                    }
                }
                None if r as usize != v => f(r as usize),
                None => {}
            }
        }
    }

    /// A cheap degree estimate: the entries reached in two steps, `v` itself included.
    fn reach(&self, v: usize) -> usize {
        match self.b {
            Some(b) => self.a.row(v).iter().map(|&r| b.row(r as usize).len()).sum(),
            None => self.a.row(v).len(),
        }
    }
}

/// The order in which the greedy colouring visits the vertices.
pub(super) fn vertex_order(g: &Incidence, order: Order) -> Vec<u32> {
    match order {
        Order::Natural => (0..g.vertices() as u32).collect(),
        Order::LargestFirst => largest_first(g),
        Order::SmallestLast => smallest_last(g),
        Order::IncidenceDegree => incidence_degree(g),
    }
}

/// Vertices by decreasing [`Incidence::reach`], ties in natural order.
fn largest_first(g: &Incidence) -> Vec<u32> {
    let reach: Vec<usize> = (0..g.vertices()).map(|v| g.reach(v)).collect();
    let mut order: Vec<u32> = (0..g.vertices() as u32).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(reach[v as usize]));
    order
}

/// Vertices grouped by a key into doubly linked lists, one per key value.
struct Buckets {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    key: Vec<usize>,
}

impl Buckets {
    /// Every vertex in the bucket of its key. Within a bucket the head is taken first: the
    /// vertex moved there last, and at the start the highest index, or the lowest where
    /// `lowest_first`.
    fn new(key: Vec<usize>, lowest_first: bool) -> Buckets {
        let top = key.iter().copied().max().unwrap_or(0);
        let n = key.len();
        let mut b = Buckets {
            head: vec![NIL; top + 2],
            next: vec![NIL; n],
            prev: vec![NIL; n],
            key,
        };
        if lowest_first {
            (0..n).rev().for_each(|v| b.push(v));
        } else {
            (0..n).for_each(|v| b.push(v));
        }
        b
    }

    fn push(&mut self, v: usize) {
        let k = self.key[v];
        if k >= self.head.len() {
            self.head.resize(k + 1, NIL);
        }
        let h = self.head[k];
        self.next[v] = h;
        self.prev[v] = NIL;
        if h != NIL {
            self.prev[h as usize] = v as u32;
        }
        self.head[k] = v as u32;
    }

    fn unlink(&mut self, v: usize) {
        let (p, n) = (self.prev[v], self.next[v]);
        if p == NIL {
            self.head[self.key[v]] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NIL {
            self.prev[n as usize] = p;
        }
    }

    /// Moves `v` to the bucket of `key`.
    fn rekey(&mut self, v: usize, key: usize) {
        self.unlink(v);
        self.key[v] = key;
        self.push(v);
    }
}

/// Degrees with multiplicity: the neighbour visits of each vertex.
fn degrees(g: &Incidence) -> Vec<usize> {
    (0..g.vertices())
        .map(|v| {
            let mut d = 0;
            g.for_each_neighbour(v, |_| d += 1);
            d
        })
        .collect()
}

/// Smallest-last (Matula and Beck): repeatedly remove a vertex of least degree in what is
/// left of the graph; colour in the reverse order of removal. Ties go to the vertex whose
/// degree changed last, at the start to the highest index.
fn smallest_last(g: &Incidence) -> Vec<u32> {
    let n = g.vertices();
    let mut buckets = Buckets::new(degrees(g), false);
    let mut removed = vec![false; n];
    let mut order = vec![0u32; n];
    let mut low = 0;
    for pos in (0..n).rev() {
        while buckets.head[low] == NIL {
            low += 1;
        }
        let v = buckets.head[low] as usize;
        buckets.unlink(v);
        removed[v] = true;
        order[pos] = v as u32;
        g.for_each_neighbour(v, |k| {
            if !removed[k] {
                let d = buckets.key[k] - 1;
                buckets.rekey(k, d);
                low = low.min(d);
            }
        });
    }
    order
}

/// Incidence degree: repeatedly take a vertex with the most neighbours already taken
/// (with multiplicity). Ties go to the vertex whose count changed last, at the start to the
/// lowest index: on a grid numbered row by row, this sweeps the grid from its first corner.
fn incidence_degree(g: &Incidence) -> Vec<u32> {
    let n = g.vertices();
    let mut buckets = Buckets::new(vec![0; n], true);
    let mut taken = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut high = 0;
    for _ in 0..n {
        while buckets.head[high] == NIL {
            high -= 1;
        }
        let v = buckets.head[high] as usize;
        buckets.unlink(v);
        taken[v] = true;
        order.push(v as u32);
        g.for_each_neighbour(v, |k| {
            if !taken[k] {
                let d = buckets.key[k] + 1;
                buckets.rekey(k, d);
                high = high.max(d);
            }
        });
    }
    order
}
