//! The per-job storage of nodes (docs/tape.md §Data structures) and the job table (§3.3).
//!
//! A job's operations are fixed-size records of two operand slots, written in order:
//! 24 bytes each (two `u32` slot numbers and two `f64` partials), with no per-node offset
//! array. Operands are numbered *within the job*: slot `i + 1` is the job's node `i` (slot 0 is
//! unused). The unused operand of a unary operation names the record's own slot with partial
//! 0, which the reverse sweep has read already and clears afterwards, so the sweep does the
//! same two multiply-adds for every record, without a branch on the arity and without a chain
//! of dependent updates through one shared dummy slot.
//! Operations with more than two operands (`sum`, `mul_add`, `dot`) are one record that
//! points into a side array of (slot, partial) pairs of 12 bytes.
//!
//! An operand recorded by another job (a value captured at a fork) is not named in the
//! records: the job gives it a local *proxy* node (a record with no operands) and lists the
//! pair (proxy, foreign node) among its imports. When the reverse sweep reaches the proxy (all
//! its uses in the job are resolved by then), it adds the proxy's adjoint to the foreign node,
//! once. A map from foreign node to proxy makes all uses of one foreign value in a job share
//! one proxy, so the cross-job additions are combined per job (write combining, docs/tape.md §Parallel recording and pullback).
//! The map is exact, not a cache: which uses share a proxy must not depend on the job numbers,
//! which differ between runs, or the sequential reverse pass would not be reproducible.

use crate::id::{JobId, NodeId};

/// The first operand slot of a record whose operands lie in the side arrays; its second slot
/// is then the start of its operands there, and `pa` holds their number (as `f64` bits).
pub(crate) const MANY: u32 = u32::MAX;

/// The first operand slot of a proxy; its second slot is its index among the imports.
pub(crate) const PROXY: u32 = u32::MAX - 1;

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
#[derive(Debug, Default)]
pub(crate) struct Segment {
    /// `job << 32`: the node IDs of this job are `base | index`.
    base: u64,
    /// Nodes without a record: the inputs, in the root job; 0 elsewhere.
    pub(crate) first: u32,
    /// The records of nodes `first ..`.
    pub(crate) recs: Vec<Rec>,
    /// What few jobs need, made on first use (boxed, so that a segment stays small to move).
    extra: Option<Box<Extra>>,
}

/// The side arrays of a segment.
#[derive(Debug, Default)]
pub(crate) struct Extra {
    /// Operand slots and partials of the records with more than two operands.
    pub(crate) many_slots: Vec<u32>,
    pub(crate) many_partials: Vec<f64>,
    /// (proxy slot, foreign node) pairs.
    pub(crate) imports: Vec<(u32, NodeId)>,
    /// The proxy slot of each imported foreign node.
    proxies: ProxyMap,
}

impl Segment {
    /// Prepares a cleared segment for `job`, whose first `inputs` nodes have no record.
    pub(crate) fn start(&mut self, job: JobId, inputs: u32) {
        self.base = (job.0 as u64) << 32;
        self.first = inputs;
    }

    /// The number of nodes, proxies included (the size of the job's adjoint area less the
    /// sink).
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.first as usize + self.recs.len()
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
        self.recs.clear();
        if let Some(x) = &mut self.extra {
            x.many_slots.clear();
            x.many_partials.clear();
            x.imports.clear();
            x.proxies.clear();
        }
        self.first = 0;
    }

    /// The slot of operand `id` (not a constant) in this job.
    #[inline(always)]
    pub(crate) fn slot(&mut self, id: NodeId) -> u32 {
        let rel = id.bits() ^ self.base;
        if rel < self.len() as u64 {
            rel as u32 + 1
        } else {
            self.import(id)
        }
    }

    /// The slot of a node of another job: its proxy, made on first use.
    #[cold]
    #[inline(never)]
    fn import(&mut self, id: NodeId) -> u32 {
        if id.bits() >> 32 == self.base >> 32 {
            // The current job, but past its end: a node of another recording.
            panic!(
                "gradus-tape: a Var of another recording was used (nested recordings are \
                 independent)"
            );
        }
        if let Some(&slot) = self.extra.as_ref().and_then(|x| x.proxies.get(&id)) {
            return slot;
        }
        let b = self.imports().len() as u32;
        let slot = self.push(Rec {
            a: PROXY,
            b,
            pa: 0.0,
            pb: 0.0,
        }) + 1;
        let x = self.extra_mut();
        x.imports.push((slot, id));
        x.proxies.insert(id, slot);
        slot
    }

    /// Appends a record; returns the new node's index.
    #[inline(always)]
    fn push(&mut self, r: Rec) -> u32 {
        let index = self.len();
        if index >= u32::MAX as usize - 2 {
            limit_exceeded();
        }
        self.recs.push(r);
        index as u32
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
        let k = self.push(Rec {
            a,
            b: own,
            pa,
            pb: 0.0,
        });
        self.id(k)
    }

    /// A node with operands `a`, `b` (at most one of them a constant) and partials `pa`, `pb`.
    #[inline(always)]
    pub(crate) fn push2(&mut self, a: NodeId, pa: f64, b: NodeId, pb: f64) -> NodeId {
        let (ca, cb) = (a.is_constant(), b.is_constant());
        // Slots first: an operand of another job pushes its proxy.
        let sa = if ca { 0 } else { self.slot(a) };
        let sb = if cb { 0 } else { self.slot(b) };
        let own = self.len() as u32 + 1;
        let (a, pa) = if ca { (own, 0.0) } else { (sa, pa) };
        let (b, pb) = if cb { (own, 0.0) } else { (sb, pb) };
        let k = self.push(Rec { a, b, pa, pb });
        self.id(k)
    }

    /// A node with the operands and partials `ops` (constants skipped).
    #[inline]
    pub(crate) fn push_many(&mut self, ops: impl Iterator<Item = (NodeId, f64)>) -> NodeId {
        let mut x = self.extra.take().unwrap_or_default();
        let start = x.many_slots.len();
        for (id, p) in ops {
            self.many_operand(&mut x, id, p);
        }
        self.close_many(x, start)
    }

    /// The dot product of `n` pairs: `pair(i)` gives the IDs and values of `uᵢ` and `vᵢ`.
    #[inline]
    pub(crate) fn push_dot(
        &mut self,
        n: usize,
        pair: impl Fn(usize) -> (NodeId, f64, NodeId, f64),
    ) -> NodeId {
        let mut x = self.extra.take().unwrap_or_default();
        let start = x.many_slots.len();
        x.many_slots.reserve(2 * n);
        x.many_partials.reserve(2 * n);
        for i in 0..n {
            let (u, uv, v, vv) = pair(i);
            self.many_operand(&mut x, u, vv);
            self.many_operand(&mut x, v, uv);
        }
        self.close_many(x, start)
    }

    /// Appends operand `id` (skipped if a constant) with partial `p` to the side arrays `x`,
    /// taken out of the segment while they grow (and put back only for an import, which uses
    /// them too).
    #[inline(always)]
    fn many_operand(&mut self, x: &mut Box<Extra>, id: NodeId, p: f64) {
        if id.is_constant() {
            return;
        }
        let rel = id.bits() ^ self.base;
        let s = if rel < self.len() as u64 {
            rel as u32 + 1
        } else {
            self.extra = Some(std::mem::take(x));
            let s = self.import(id);
            *x = self.extra.take().expect("put back above");
            s
        };
        x.many_slots.push(s);
        x.many_partials.push(p);
    }

    /// Puts the side arrays back and appends the record of the operands from `start`.
    fn close_many(&mut self, x: Box<Extra>, start: usize) -> NodeId {
        let count = x.many_slots.len() - start;
        self.extra = Some(x);
        if start > u32::MAX as usize - count {
            limit_exceeded();
        }
        let k = self.push(Rec {
            a: MANY,
            b: start as u32,
            pa: f64::from_bits(count as u64),
            pb: 0.0,
        });
        self.id(k)
    }

    /// The operands of record `r`, whose own slot is `own`, as (slot, partial): unused slots
    /// (which name `own`) left out.
    pub(crate) fn operands(&self, r: &Rec, own: u32) -> Vec<(u32, f64)> {
        let all = match r.a {
            MANY => {
                let range = r.b as usize..r.b as usize + r.pa.to_bits() as usize;
                let x = self.extra();
                x.many_slots[range.clone()]
                    .iter()
                    .copied()
                    .zip(x.many_partials[range].iter().copied())
                    .collect()
            }
            PROXY => Vec::new(),
            _ => vec![(r.a, r.pa), (r.b, r.pb)],
        };
        all.into_iter().filter(|&(s, _)| s != own).collect()
    }

    /// Operands recorded (sink slots excluded), and how many of them are proxies.
    pub(crate) fn edge_counts(&self) -> (usize, usize) {
        let proxies: std::collections::HashSet<u32> = self.imports().iter().map(|p| p.0).collect();
        let (mut edges, mut cross) = (0, 0);
        for (i, r) in self.recs.iter().enumerate() {
            for (s, _) in self.operands(r, (self.first as usize + i + 1) as u32) {
                edges += 1;
                cross += proxies.contains(&s) as usize;
            }
        }
        (edges, cross)
    }

    /// Bytes of capacity held.
    pub(crate) fn capacity_bytes(&self) -> usize {
        self.recs.capacity() * std::mem::size_of::<Rec>()
            + self.extra.as_ref().map_or(0, |x| {
                x.many_slots.capacity() * 4
                    + x.many_partials.capacity() * 8
                    + x.imports.capacity() * 16
            })
    }

    /// Bytes of storage: 24 per record, 12 per operand of a many-operand record, 12 per import.
    pub(crate) fn bytes(&self) -> usize {
        self.recs.len() * std::mem::size_of::<Rec>()
            + self.extra().many_slots.len() * (4 + 8)
            + self.imports().len() * 12
    }
}

#[cold]
#[inline(never)]
fn limit_exceeded() -> ! {
    panic!(
        "gradus-tape: a job exceeded the limit of 2^32 - 2 nodes or 2^32 operands; \
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
