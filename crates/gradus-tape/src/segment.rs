//! The per-job storage of nodes (docs/tape.md §Data structures) and the job table (§3.3).
//!
//! A job's operations are fixed-size records of two operand slots, written in order:
//! 24 bytes each (two `u32` slot numbers and two `f64` partials), with no per-node offset
//! array, appended through a raw cursor with one bounds test (see the note "The record
//! cursor" at the end of this file). Operands are numbered *within the job*: slot `i + 1` is the job's node `i` (slot 0 is
//! unused). The unused operand of a one-operand record (an output's coefficient, or one that is
//! not finite: most one-operand operations fold into a `Var`'s coefficient instead) names the
//! record's own slot with partial 0, which the reverse sweep skips. A two-operand record
//! whose second slot carries the flag [`FUSED`] stands for two nodes: its operation's and the
//! sum of the node before that and the operation's ([`Segment::push_add`]); records and nodes
//! are therefore counted apart (`nodes`).
//! Operations with more than two operands (`sum`, `mul_add`) are one record that points into
//! side arrays of slots and partials, 12 bytes per operand. A dot product is one record whose
//! two sides are each a dense range of slots (stored as its first slot: 8 bytes per operand,
//! for the partial) or a list of slots (12 bytes per operand); see [`Segment::push_dot`].
//!
//! An operand recorded by another job (a value captured at a fork) is not named in the
//! records: the job gives it a local *proxy* node (a record with no operands) and lists the
//! pair (proxy, foreign node) among its imports. When the reverse sweep reaches the proxy (all
//! its uses in the job are resolved by then), it adds the proxy's adjoint to the foreign node,
//! once. A map from foreign node to proxy makes all uses of one foreign value in a job share
//! one proxy, so the cross-job additions are combined per job (write combining, docs/tape.md §Parallel recording and pullback).
//! The map is exact, not a cache: which uses share a proxy must not depend on the job numbers,
//! which differ between runs, or the sequential reverse pass would not be reproducible. A small
//! direct-mapped cache in front of it holds only entries of the map, so it changes no answer.

use crate::id::{JobId, NodeId};
use crate::var::Var;

/// The first operand slot of a record whose operands lie in the side arrays; its second slot
/// is then the start of its slots there, `pa` holds their number and `pb` the start of their
/// partials (as `f64` bits).
pub(crate) const MANY: u32 = u32::MAX;

/// The first operand slot of a proxy; its second slot is its index among the imports.
pub(crate) const PROXY: u32 = u32::MAX - 1;

/// The first operand slot of a dot product (see [`Segment::push_dot`]): `pa` holds the start
/// of its `2n` partials in the side array and `n` (`start | n << 32`, as `f64` bits), `pb` the
/// descriptions of its two sides (`u | v << 32`).
pub(crate) const DOT: u32 = u32::MAX - 2;

/// The flag of a dot product's side whose operands are the dense range of slots starting at
/// the low bits; without it, the low bits are the start of the side's slots in the side array.
pub(crate) const DENSE: u32 = 1 << 31;

/// The flag on the second slot of a two-operand record that also stands for the *sum node*
/// after it: see [`Segment::push_add`]. Slots, and the `b` fields of wide records, stay below
/// it.
pub(crate) const FUSED: u32 = 1 << 31;

/// The ranges of a [`MANY`] record's slots and partials in the side arrays.
#[inline(always)]
pub(crate) fn many_parts(r: &Rec) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
    let (start, count, pstart) = (
        r.b as usize,
        r.pa.to_bits() as usize,
        r.pb.to_bits() as usize,
    );
    (start..start + count, pstart..pstart + count)
}

/// The side of a dot product whose operands are all constants (a dense range from the sink).
pub(crate) const NO_SIDE: u32 = DENSE;

/// The parts of a [`DOT`] record: the start of its partials, `n`, and its two sides.
#[inline(always)]
pub(crate) fn dot_parts(r: &Rec) -> (usize, usize, u32, u32) {
    let (p, s) = (r.pa.to_bits(), r.pb.to_bits());
    (
        p as u32 as usize,
        (p >> 32) as usize,
        s as u32,
        (s >> 32) as u32,
    )
}

/// One operation: operand slots `a`, `b` (see the module documentation) and the partial
/// derivatives with respect to them. 24 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rec {
    pub(crate) a: u32,
    pub(crate) b: u32,
    pub(crate) pa: f64,
    pub(crate) pb: f64,
}

/// A hasher for node IDs (multiply and fold; the keys are not adversarial).
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, x: u64) {
        let m = (self.0 ^ x).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = m ^ (m >> 32);
    }
}

type ProxyMap = std::collections::HashMap<NodeId, u32, std::hash::BuildHasherDefault<IdHasher>>;

/// The nodes of one job.
#[derive(Debug)]
pub(crate) struct Segment {
    /// `job << 32`: the node IDs of this job are `base | index`.
    base: u64,
    /// Nodes without a record: the inputs, in the root job; 0 elsewhere.
    pub(crate) first: u32,
    /// The buffer of the records of nodes `first ..`: one per node, except that a record
    /// flagged [`FUSED`] stands for two (its own node and the sum node after it). Its length
    /// stays 0: the records are those before `cursor` ([`recs`](Self::recs)); see the note
    /// "The record cursor".
    buf: Vec<Rec>,
    /// Where the next record goes: `buf`'s start plus the number of records.
    cursor: *mut Rec,
    /// `push` writes at `cursor` without calling `grow` while `cursor < limit`.
    limit: *mut Rec,
    /// The number of nodes: `first`, one per record, and one more per record flagged
    /// [`FUSED`].
    nodes: u32,
    /// The bits of the ID of the last node if a sum may fold into its record (an operation's
    /// record that stands for no sum yet: see [`Segment::push_add`]); [`NodeId::CONSTANT`]'s
    /// otherwise.
    fusable: u64,
    /// What few jobs need, made on first use (boxed, so that a segment stays small to move).
    extra: Option<Box<Extra>>,
}

// SAFETY: `cursor` and `limit` point into `buf`'s allocation, which the segment owns; they
// are written through only by methods taking `&mut self`, and `&self` methods only read the
// records before `cursor`. So a segment is as `Send` and `Sync` as its `Vec`s.
unsafe impl Send for Segment {}
// SAFETY: as for `Send` above.
unsafe impl Sync for Segment {}

impl Default for Segment {
    fn default() -> Segment {
        let mut buf = Vec::new();
        let cursor = buf.as_mut_ptr();
        Segment {
            base: 0,
            first: 0,
            buf,
            cursor,
            limit: cursor,
            nodes: 0,
            fusable: NodeId::CONSTANT.bits(),
            extra: None,
        }
    }
}

/// Entries of the cache in front of a segment's map of proxies.
const CACHE: usize = 64;

/// An empty entry of the cache (the bits of [`NodeId::CONSTANT`], which is never imported).
const NO_ENTRY: (u64, u32) = (u64::MAX, 0);

/// The side arrays of a segment.
#[derive(Debug)]
pub(crate) struct Extra {
    /// Operand slots and partials of the records with more than two operands.
    pub(crate) many_slots: Vec<u32>,
    pub(crate) many_partials: Vec<f64>,
    /// (proxy slot, foreign node) pairs.
    pub(crate) imports: Vec<(u32, NodeId)>,
    /// The proxy slot of each imported foreign node.
    proxies: ProxyMap,
    /// Recently used (foreign node bits, proxy slot) pairs, direct-mapped: a task that reads a
    /// value of its parent many times finds its proxy here without hashing into `proxies`.
    /// Every entry is an entry of `proxies`, so which uses share a proxy does not change.
    cache: [(u64, u32); CACHE],
}

impl Default for Extra {
    fn default() -> Extra {
        Extra {
            many_slots: Vec::new(),
            many_partials: Vec::new(),
            imports: Vec::new(),
            proxies: ProxyMap::default(),
            cache: [NO_ENTRY; CACHE],
        }
    }
}

/// The cache entry of a foreign node.
#[inline(always)]
fn cache_index(id: NodeId) -> usize {
    (id.bits().wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize
}

impl Segment {
    /// Prepares a cleared segment for `job`, whose first `inputs` nodes have no record.
    pub(crate) fn start(&mut self, job: JobId, inputs: u32) {
        self.base = (job.0 as u64) << 32;
        self.first = inputs;
        self.nodes = inputs;
        self.fusable = NodeId::CONSTANT.bits();
        // The room for `first` (see `grow`), so that a recording into a buffer kept from an
        // earlier one does not start with a call of `grow`.
        let n = self.rec_count();
        let safe = (MAX_NODES.saturating_sub(inputs as usize)) / 2;
        let end = self.buf.capacity().min(safe).max(n);
        // SAFETY: `n <= end <= capacity` (`n` records lie in the buffer).
        self.limit = unsafe { self.buf.as_mut_ptr().add(end) };
    }

    /// The number of records.
    #[inline(always)]
    pub(crate) fn rec_count(&self) -> usize {
        (self.cursor.addr() - self.buf.as_ptr().addr()) / std::mem::size_of::<Rec>()
    }

    /// The records, in order.
    #[inline]
    pub(crate) fn recs(&self) -> &[Rec] {
        // SAFETY: the first `rec_count()` elements of `buf`'s capacity were written by `push`
        // (see the note "The record cursor"), and `buf` lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.buf.as_ptr(), self.rec_count()) }
    }

    /// The capacity of the record buffer, in records.
    pub(crate) fn rec_capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// The number of nodes, proxies included (the size of the job's adjoint area less the
    /// sink).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nodes as usize
    }

    /// Whether a record is flagged [`FUSED`].
    #[inline]
    pub(crate) fn has_fused(&self) -> bool {
        self.nodes as usize != self.first as usize + self.rec_count()
    }

    /// The number of nodes the program recorded: inputs and operations, not proxies.
    pub(crate) fn nodes(&self) -> usize {
        self.len() - self.imports().len()
    }

    /// The side arrays (empty ones if the job needed none).
    #[inline]
    pub(crate) fn extra(&self) -> &Extra {
        static EMPTY: Extra = Extra {
            many_slots: Vec::new(),
            many_partials: Vec::new(),
            imports: Vec::new(),
            proxies: ProxyMap::with_hasher(std::hash::BuildHasherDefault::new()),
            cache: [NO_ENTRY; CACHE],
        };
        self.extra.as_deref().unwrap_or(&EMPTY)
    }

    /// (proxy slot, foreign node) pairs.
    pub(crate) fn imports(&self) -> &[(u32, NodeId)] {
        &self.extra().imports
    }

    fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Default::default)
    }

    pub(crate) fn clear(&mut self) {
        self.cursor = self.buf.as_mut_ptr();
        self.limit = self.cursor;
        if let Some(x) = &mut self.extra {
            x.many_slots.clear();
            x.many_partials.clear();
            x.imports.clear();
            x.proxies.clear();
            x.cache = [NO_ENTRY; CACHE];
        }
        self.first = 0;
        self.nodes = 0;
        self.fusable = NodeId::CONSTANT.bits();
    }

    /// The slot of operand `id` (not a constant) in this job.
    #[inline(always)]
    pub(crate) fn slot(&mut self, id: NodeId) -> u32 {
        let rel = id.bits() ^ self.base;
        if rel < self.len() as u64 {
            rel as u32 + 1
        } else {
            if let Some(x) = &self.extra {
                let (bits, slot) = x.cache[cache_index(id)];
                if bits == id.bits() {
                    return slot;
                }
            }
            self.import(id)
        }
    }

    /// The slot of a node of another job: its proxy, made on first use.
    #[cold]
    #[inline(never)]
    fn import(&mut self, id: NodeId) -> u32 {
        let mut x = self.extra.take().unwrap_or_default();
        let slot = self.import_into(&mut x, id);
        self.extra = Some(x);
        slot
    }

    /// [`import`](Self::import) with the side arrays `x` taken out of the segment: finds the
    /// proxy of `id` in the cache or the map, or pushes a new one.
    #[inline(never)]
    fn import_into(&mut self, x: &mut Extra, id: NodeId) -> u32 {
        if id.bits() >> 32 == self.base >> 32 {
            // The current job, but past its end: a node of another recording.
            panic!(
                "gradus-tape: a Var of another recording was used (nested recordings are \
                 independent)"
            );
        }
        let h = cache_index(id);
        let (bits, slot) = x.cache[h];
        if bits == id.bits() {
            return slot;
        }
        if let Some(&slot) = x.proxies.get(&id) {
            x.cache[h] = (id.bits(), slot);
            return slot;
        }
        let b = x.imports.len() as u32;
        let slot = self.push(Rec {
            a: PROXY,
            b,
            pa: 0.0,
            pb: 0.0,
        }) + 1;
        x.imports.push((slot, id));
        x.proxies.insert(id, slot);
        x.cache[h] = (id.bits(), slot);
        slot
    }

    /// Appends a record; returns the new node's index. One test covers both the capacity and
    /// the node limit (see [`grow`](Self::grow)).
    #[inline(always)]
    fn push(&mut self, r: Rec) -> u32 {
        if self.cursor >= self.limit {
            self.grow();
        }
        let index = self.nodes;
        // SAFETY: `cursor < limit`, and `limit` lies within `buf`'s capacity (`grow`), so the
        // slot at `cursor` is allocated; records are `Copy`, so nothing is overwritten that
        // needs dropping.
        unsafe {
            self.cursor.write(r);
            self.cursor = self.cursor.add(1);
        }
        self.nodes = index + 1;
        // Wide records and proxies take no sum; `push_op` sets it for theirs.
        self.fusable = NodeId::CONSTANT.bits();
        index
    }

    /// [`push`](Self::push) of an operation's record, which a sum may fold into.
    #[inline(always)]
    fn push_op(&mut self, r: Rec) -> NodeId {
        let k = self.push(r);
        let id = self.id(k);
        self.fusable = id.bits();
        id
    }

    /// Makes room for one record or more: reallocates a full buffer, and sets `limit` so that
    /// while `cursor < limit` a push keeps the node count below [`MAX_NODES`] (panics if the
    /// next push would not).
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        if self.nodes as usize >= MAX_NODES {
            limit_exceeded();
        }
        let n = self.rec_count();
        if n == self.buf.capacity() {
            // SAFETY: the first `n` elements were written by `push`; the length is set back to
            // 0 below, after `reserve` has copied them.
            unsafe { self.buf.set_len(n) };
            self.buf.reserve(n.max(64));
            // SAFETY: shortening to 0 (`Rec` is `Copy`: nothing to drop).
            unsafe { self.buf.set_len(0) };
        }
        // A record stands for at most two nodes, so nodes = first + records + fused sums <=
        // first + 2 * records: below `safe` records the node count stays below MAX_NODES.
        // Beyond it, every push comes here and is checked above.
        let safe = (MAX_NODES - self.first as usize) / 2;
        let end = self.buf.capacity().min(safe.max(n + 1));
        let start = self.buf.as_mut_ptr();
        // SAFETY: `n <= end <= capacity`, so both pointers lie within (or one past) the
        // allocation.
        unsafe {
            self.cursor = start.add(n);
            self.limit = start.add(end);
        }
    }

    #[inline(always)]
    fn id(&self, index: u32) -> NodeId {
        NodeId::from_bits(self.base | index as u64)
    }

    /// A node with one operand `a` (not a constant) and partial `pa`.
    #[inline(always)]
    pub(crate) fn push1(&mut self, a: NodeId, pa: f64) -> NodeId {
        let a = self.slot(a);
        let own = self.len() as u32 + 1;
        self.push_op(Rec {
            a,
            b: own,
            pa,
            pb: 0.0,
        })
    }

    /// A node with the non-constant operands `a`, `b` and partials `pa`, `pb` (an operation
    /// with one non-constant operand records nothing, or [`push1`](Self::push1)).
    #[inline(always)]
    pub(crate) fn push_pair(&mut self, a: NodeId, pa: f64, b: NodeId, pb: f64) -> NodeId {
        // Slots first: an operand of another job pushes its proxy.
        let a = self.slot(a);
        let b = self.slot(b);
        self.push_op(Rec { a, b, pa, pb })
    }

    /// The sum `a + b` of two non-constant operands with partials `pa`, `pb`. Where both
    /// partials are 1, `b` (or `a`) is the last node, its record is an ordinary two-operand
    /// record, and the other operand is the node just before it — the shape of `acc + u·v`
    /// — the sum records nothing: the last record is flagged [`FUSED`] and stands for the sum
    /// node too, whose operands are implied (the two nodes before it, partials 1). The
    /// product keeps its own node, so later uses of it stay exact. Otherwise an ordinary
    /// record.
    #[inline(always)]
    pub(crate) fn push_add(&mut self, a: NodeId, pa: f64, b: NodeId, pb: f64) -> NodeId {
        let (last, ab, bb) = (self.fusable, a.bits(), b.bits());
        // `last` is never a constant's bits here: `a` and `b` are not constants. One branch
        // decides the common case (no fusion).
        if (ab == last) | (bb == last) {
            let other = if bb == last { ab } else { bb };
            if other == last.wrapping_sub(1) && pa == 1.0 && pb == 1.0 {
                // `last` is the node of the last record, an operation's; the sum is one node
                // more (below `MAX_NODES + 1`: `push` keeps `nodes` below `MAX_NODES`).
                // SAFETY: `fusable` (`last`) is not a constant's bits only from `push_op`,
                // which has just written the record before `cursor`, until the next push,
                // `clear` or `start`; so `cursor - 1` is that record, within `buf`.
                unsafe { (*self.cursor.sub(1)).b |= FUSED };
                self.fusable = NodeId::CONSTANT.bits();
                let index = self.nodes;
                self.nodes = index + 1;
                return self.id(index);
            }
        }
        self.push_pair(a, pa, b, pb)
    }

    /// A node with the operands and partials `ops` (constants skipped).
    #[inline]
    pub(crate) fn push_many(&mut self, ops: impl Iterator<Item = (NodeId, f64)>) -> NodeId {
        let mut x = self.extra.take().unwrap_or_default();
        let start = (x.many_slots.len(), x.many_partials.len());
        for (id, p) in ops {
            self.many_operand(&mut x, id, p);
        }
        self.close_many(x, start)
    }

    /// The sum of `terms` (not all constants) as one record. Where the terms are consecutive
    /// nodes of this job (an elementwise function of a slice of inputs, say, whose
    /// coefficients folded), it is a [`DOT`] record with one dense side and the coefficients
    /// as partials: 8 bytes per term, resolved by one `axpy`. Otherwise a [`MANY`] record of
    /// the non-constant terms (12 bytes each).
    pub(crate) fn push_sum(&mut self, terms: &[Var<'_>]) -> NodeId {
        let n = terms.len();
        let first = terms[0].id().bits();
        if n > 2
            && let Some(side) = self.dense_side(first, n as u64)
            && terms
                .iter()
                .enumerate()
                .all(|(i, t)| t.id().bits() == first.wrapping_add(i as u64))
        {
            let parts = &mut self.extra_mut().many_partials;
            let start = parts.len();
            parts.extend(terms.iter().map(|t| t.scale()));
            return self.push_dot_record(start, n, side, NO_SIDE);
        }
        self.push_many(terms.iter().map(|t| (t.id(), t.scale())))
    }

    /// The sum of the `scales.len()` consecutive nodes from `first`, with the coefficients
    /// `scales`: a dense record as in [`push_sum`](Self::push_sum) if the nodes lie in this
    /// job, otherwise one that lists them (their proxies, for another job's nodes).
    pub(crate) fn push_sum_dense(&mut self, first: NodeId, scales: &[f64]) -> NodeId {
        let n = scales.len() as u64;
        if let Some(side) = self.dense_side(first.bits(), n) {
            let parts = &mut self.extra_mut().many_partials;
            let start = parts.len();
            parts.extend_from_slice(scales);
            return self.push_dot_record(start, n as usize, side, NO_SIDE);
        }
        let ids = (0..n).map(|i| NodeId::from_bits(first.bits().wrapping_add(i)));
        self.push_many(ids.zip(scales.iter().copied()))
    }

    /// The dot product of `u` and `v` (equal lengths, not all constants) as one record of
    /// kind [`DOT`]; returns its value (summed in index order from 0) and ID. The partials (the
    /// values of `v`, then those of `u`) go to the side array of partials; each side's operand
    /// slots are a dense range, stored as its first slot, or listed in the side array of slots
    /// (constants as the sink slot 0), or [`NO_SIDE`] if all its operands are constants.
    pub(crate) fn push_dot(&mut self, u: &[Var<'_>], v: &[Var<'_>]) -> (f64, NodeId) {
        let n = u.len();
        let (value, dense_u, dense_v, start) = self.dot_partials(u, v);
        // Sides next: an operand of another job pushes its proxy.
        let su = self.dot_side(u, dense_u);
        let sv = self.dot_side(v, dense_v);
        (value, self.push_dot_record(start, n, su, sv))
    }

    /// The dot product of `u` (not all constants) with itself, `Σ uᵢ uᵢ`, as one record of kind
    /// [`DOT`] with one side: the partials `2 uᵢ` (times the coefficients), the slots of `u` a
    /// dense range or listed as in [`push_dot`](Self::push_dot). Returns the value (summed in
    /// index order from 0) and the ID.
    pub(crate) fn push_dot_self(&mut self, u: &[Var<'_>]) -> (f64, NodeId) {
        self.push_one_sided_dot(u, std::iter::repeat(()), |x, ()| (x * x, 2.0 * x))
    }

    /// The dot product of `u` (not all constants) with the constant weights `c` (equal
    /// lengths) as one record of kind [`DOT`] whose second side is [`NO_SIDE`]: the `n`
    /// partials `cᵢ` (times the coefficients) go to the side array of partials, the slots of
    /// `u` are a dense range or listed as in [`push_dot`](Self::push_dot). Returns the value
    /// (summed in index order from 0) and the ID.
    pub(crate) fn push_dot_const(&mut self, u: &[Var<'_>], c: &[f64]) -> (f64, NodeId) {
        debug_assert_eq!(u.len(), c.len());
        self.push_one_sided_dot(u, c.iter().copied(), |x, w| (x * w, w))
    }

    /// A record of kind [`DOT`] with one side, `u` (not all constants): `term(uᵢ, wᵢ)` gives
    /// element `i`'s term of the value and its partial (before the coefficient), `wᵢ` the
    /// `i`-th of `weights`. The value is
    /// summed in index order from 0; the slots of `u` are a dense range or listed as in
    /// [`push_dot`](Self::push_dot).
    #[inline(always)]
    fn push_one_sided_dot<W>(
        &mut self,
        u: &[Var<'_>],
        weights: impl Iterator<Item = W>,
        term: impl Fn(f64, W) -> (f64, f64),
    ) -> (f64, NodeId) {
        let n = u.len();
        let parts = &mut self.extra_mut().many_partials;
        let start = parts.len();
        parts.reserve(n);
        let first = u[0].id().bits();
        let (mut value, mut dense) = (0.0, true);
        for (i, (a, w)) in u.iter().zip(weights).enumerate() {
            let (t, partial) = term(a.value(), w);
            value += t;
            parts.push(partial * a.scale());
            dense &= a.id().bits() == first.wrapping_add(i as u64);
        }
        let su = self.dot_side(u, dense);
        (value, self.push_dot_record(start, n, su, NO_SIDE))
    }

    /// The record of kind [`DOT`] of `n` pairs whose partials start at `start` in the side
    /// array, with the sides `su` and `sv` (as [`push_dot`](Self::push_dot) describes them).
    fn push_dot_record(&mut self, start: usize, n: usize, su: u32, sv: u32) -> NodeId {
        if start > u32::MAX as usize || n > u32::MAX as usize {
            limit_exceeded();
        }
        let k = self.push(Rec {
            a: DOT,
            b: 0,
            pa: f64::from_bits(start as u64 | (n as u64) << 32),
            pb: f64::from_bits(su as u64 | (sv as u64) << 32),
        });
        self.id(k)
    }

    /// One pass over a dot product's operands: appends the partials, and returns the value,
    /// whether the IDs of `u` and of `v` are consecutive, and where the partials start.
    fn dot_partials(&mut self, u: &[Var<'_>], v: &[Var<'_>]) -> (f64, bool, bool, usize) {
        let n = u.len();
        let parts = &mut self.extra_mut().many_partials;
        let start = parts.len();
        parts.reserve(2 * n);
        let (pv, pu) = parts.spare_capacity_mut()[..2 * n].split_at_mut(n);
        let (fu, fv) = (u[0].id().bits(), v[0].id().bits());
        let (mut value, mut du, mut dv) = (0.0, true, true);
        for (i, ((a, b), (wv, wu))) in u.iter().zip(v).zip(pv.iter_mut().zip(pu)).enumerate() {
            value += a.value() * b.value();
            wv.write(b.value() * a.scale());
            wu.write(a.value() * b.scale());
            du &= a.id().bits() == fu.wrapping_add(i as u64);
            dv &= b.id().bits() == fv.wrapping_add(i as u64);
        }
        // SAFETY: the loop wrote the `2n` elements after `start` (`pv` and `pu` have `n` each,
        // as `u` and `v` do: `dot` checks the lengths).
        unsafe { parts.set_len(start + 2 * n) };
        (value, du, dv, start)
    }

    /// One side of a dot product: [`NO_SIDE`] if all its operands are constants; [`DENSE`]
    /// with its first slot if `consecutive` IDs lie in this job (all slots below 2³¹);
    /// otherwise the start of its slots in the side array.
    /// The dense case is inline; a listed side is [`listed_side`](Self::listed_side).
    #[inline(always)]
    fn dot_side(&mut self, ops: &[Var<'_>], consecutive: bool) -> u32 {
        if consecutive && let Some(side) = self.dense_side(ops[0].id().bits(), ops.len() as u64) {
            return side;
        }
        self.listed_side(ops)
    }

    /// The side of the `n` consecutive nodes from the ID `first`: [`DENSE`] with the first
    /// slot where they all lie in this job (all slots below 2³¹), `None` otherwise.
    #[inline(always)]
    fn dense_side(&self, first: u64, n: u64) -> Option<u32> {
        let rel = first ^ self.base;
        let len = self.len() as u64;
        (rel < len && n <= len - rel && rel + n < DENSE as u64).then(|| DENSE | (rel as u32 + 1))
    }

    /// A side of [`dot_side`](Self::dot_side) that is not a dense range: [`NO_SIDE`] if all
    /// its operands are constants, otherwise the start of its slots in the side array.
    #[inline(never)]
    fn listed_side(&mut self, ops: &[Var<'_>]) -> u32 {
        if ops.iter().all(|t| t.is_constant()) {
            return NO_SIDE;
        }
        let mut x = self.extra.take().unwrap_or_default();
        let start = x.many_slots.len();
        if start + ops.len() >= DENSE as usize {
            limit_exceeded();
        }
        x.many_slots.reserve(ops.len());
        for t in ops {
            let s = if t.is_constant() {
                0
            } else {
                self.operand_slot(&mut x, t.id())
            };
            x.many_slots.push(s);
        }
        self.extra = Some(x);
        start as u32
    }

    /// The slot of operand `id` (not a constant), with the side arrays `x` taken out of the
    /// segment. An operand of another job is looked up in `x`'s proxies in place: moving the
    /// side arrays back into the segment for it would allocate a fresh `Extra` per operand,
    /// which made `dot_const` of a parent's values in `par_map` several times slower than the
    /// scalar loop.
    #[inline(always)]
    fn operand_slot(&mut self, x: &mut Extra, id: NodeId) -> u32 {
        let rel = id.bits() ^ self.base;
        if rel < self.len() as u64 {
            rel as u32 + 1
        } else {
            // The cache inline, as in `slot`: a side of a parent's values hits it for every
            // operand after the first dot product.
            let (bits, slot) = x.cache[cache_index(id)];
            if bits == id.bits() {
                return slot;
            }
            self.import_into(x, id)
        }
    }

    /// Appends operand `id` (skipped if a constant) with partial `p` to the side arrays `x`,
    /// taken out of the segment while they grow.
    #[inline(always)]
    fn many_operand(&mut self, x: &mut Box<Extra>, id: NodeId, p: f64) {
        if id.is_constant() {
            return;
        }
        let s = self.operand_slot(x, id);
        x.many_slots.push(s);
        x.many_partials.push(p);
    }

    /// Puts the side arrays back and appends the record of the operands from `start`.
    /// `start` is where the record's slots and partials begin in the side arrays.
    fn close_many(&mut self, x: Box<Extra>, (start, pstart): (usize, usize)) -> NodeId {
        let count = x.many_slots.len() - start;
        self.extra = Some(x);
        if start >= FUSED as usize || pstart > u32::MAX as usize {
            limit_exceeded();
        }
        let k = self.push(Rec {
            a: MANY,
            b: start as u32,
            pa: f64::from_bits(count as u64),
            pb: f64::from_bits(pstart as u64),
        });
        self.id(k)
    }

    /// The operands of record `r`, whose own slot is `own`, as (slot, partial): unused slots
    /// (which name `own`, or the sink 0) left out.
    pub(crate) fn operands(&self, r: &Rec, own: u32) -> Vec<(u32, f64)> {
        let x = self.extra();
        let all = match r.a {
            MANY => {
                let (slots, parts) = many_parts(r);
                x.many_slots[slots]
                    .iter()
                    .copied()
                    .zip(x.many_partials[parts].iter().copied())
                    .collect()
            }
            DOT => {
                let (start, n, su, sv) = dot_parts(r);
                let mut all = Vec::with_capacity(2 * n);
                for (side, from) in [(su, start), (sv, start + n)] {
                    if side != NO_SIDE {
                        let p = &x.many_partials[from..from + n];
                        all.extend(self.dot_slots(side, n).zip(p.iter().copied()));
                    }
                }
                all
            }
            PROXY => Vec::new(),
            _ => vec![(r.a, r.pa), (r.b & !FUSED, r.pb)],
        };
        all.into_iter()
            .filter(|&(s, _)| s != own && s != 0)
            .collect()
    }

    /// The `n` operand slots of a dot product's `side`.
    pub(crate) fn dot_slots(&self, side: u32, n: usize) -> impl Iterator<Item = u32> + '_ {
        let (dense, sparse) = if side == NO_SIDE {
            (None, None)
        } else if side & DENSE != 0 {
            let first = side & !DENSE;
            (Some(first..first + n as u32), None)
        } else {
            let start = side as usize;
            (
                None,
                Some(self.extra().many_slots[start..start + n].iter().copied()),
            )
        };
        dense
            .into_iter()
            .flatten()
            .chain(sparse.into_iter().flatten())
    }

    /// Operands recorded (sink slots excluded), and how many of them are proxies.
    pub(crate) fn edge_counts(&self) -> (usize, usize) {
        let proxies: std::collections::HashSet<u32> = self.imports().iter().map(|p| p.0).collect();
        let (mut edges, mut cross) = (0, 0);
        let mut own = self.first + 1;
        for r in self.recs() {
            for (s, _) in self.operands(r, own) {
                edges += 1;
                cross += proxies.contains(&s) as usize;
            }
            if r.a < DOT && r.b >= FUSED {
                // The sum node: the node before the record's and the record's.
                edges += 2;
                cross += proxies.contains(&(own - 1)) as usize + proxies.contains(&own) as usize;
                own += 1;
            }
            own += 1;
        }
        (edges, cross)
    }

    /// Bytes of capacity held.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.buf.capacity() * std::mem::size_of::<Rec>()
            + self.extra.as_ref().map_or(0, |x| {
                x.many_slots.capacity() * 4
                    + x.many_partials.capacity() * 8
                    + x.imports.capacity() * 16
            })
    }

    /// Bytes of storage: 24 per record (none for a fused sum), 12 per operand of a many-operand record (8 on a dense
    /// side of a dot product), 12 per import.
    pub(crate) fn bytes(&self) -> usize {
        self.rec_count() * std::mem::size_of::<Rec>()
            + self.extra().many_slots.len() * 4
            + self.extra().many_partials.len() * 8
            + self.imports().len() * 12
    }
}

/// Nodes per job (slots stay below [`FUSED`]).
pub(crate) const MAX_NODES: usize = FUSED as usize - 4;

#[cold]
#[inline(never)]
fn limit_exceeded() -> ! {
    panic!(
        "gradus-tape: a job exceeded the limit of 2^31 - 4 nodes or 2^31 operands; \
         split the computation with join or par_map"
    )
}

/// What came before a job in the job graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Before {
    /// The first job of a task (or of the recording).
    Start,
    /// `parent` forked; `children` are the last jobs of the tasks it spawned, which joined
    /// into this job.
    Fork { parent: JobId, children: Vec<JobId> },
}

/// A finished job: its nodes and its place in the job graph.
#[derive(Debug)]
pub(crate) struct JobRecord {
    pub(crate) segment: Segment,
    pub(crate) before: Before,
}

// Note [The record cursor]
//
// Recording appends one record per operation, so the append is on the hot path of every
// operation (docs/tape.md §What a node costs). `Vec::push` costs a check of the node limit, a
// load of the length, a comparison with the capacity, a load of the buffer pointer, the
// address computation and a store of the length. The segment instead keeps a raw `cursor`
// (where the next record goes) and a `limit` in `buf`'s allocation: a push compares the two,
// writes at the cursor and advances it; the fused sum flags the record at `cursor - 1`
// without a check of the length. That took the recording of a pair `acc + u·v` from 91 to
// 82 instructions (callgrind, `tape_profile dot1k`).
//
// Invariants:
// 1. `buf`'s length is 0 outside `grow`; the records are the first `rec_count()` elements of
//    its allocation, all written by `push` (`Rec` is `Copy`, so nothing needs dropping).
// 2. `buf.as_ptr() <= cursor <= limit <= buf.as_ptr() + buf.capacity()`, all in (or one past)
//    the allocation; `clear` and `grow` set both pointers, `start` the limit, and only `grow`
//    reallocates, setting the length to the record count first so that the records move.
// 3. While `cursor < limit`, a push keeps the node count below `MAX_NODES` (`grow` sizes
//    `limit` for it, and checks the count itself once past that size).
// 4. `fusable` names a node other than a constant only between `push_op` and the next push,
//    `clear` or `start`, so the record before `cursor` exists when `push_add` flags it.
// Moving a segment moves the `Vec` header, not its allocation, so the pointers stay valid.
