//! The per-job storage of nodes in compressed-row form (docs/tape.md §Data structures) and the job
//! table.

use crate::id::{JobId, NodeId};

/// One operand of a node: the operand's ID and the partial derivative of the node with respect
/// to it. 16 bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    pub(crate) to: NodeId,
    pub(crate) partial: f64,
}

/// The nodes of one job: node `k`'s edges are `edges[ends[k-1] .. ends[k]]` (`ends[-1] = 0`).
/// A node costs 4 bytes plus 16 per non-constant operand.
#[derive(Default, Debug)]
pub(crate) struct Segment {
    pub(crate) ends: Vec<u32>,
    pub(crate) edges: Vec<Edge>,
}

impl Segment {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn clear(&mut self) {
        self.ends.clear();
        self.edges.clear();
    }

    /// Appends a node whose edges were pushed already; returns its index.
    #[inline(always)]
    pub(crate) fn close_node(&mut self) -> u32 {
        let index = self.ends.len();
        let edges = self.edges.len();
        if index >= u32::MAX as usize || edges > u32::MAX as usize {
            limit_exceeded();
        }
        self.ends.push(edges as u32);
        index as u32
    }

    #[inline(always)]
    pub(crate) fn push1(&mut self, a: NodeId, pa: f64) -> u32 {
        self.edges.push(Edge { to: a, partial: pa });
        self.close_node()
    }

    #[inline(always)]
    pub(crate) fn push2(&mut self, a: NodeId, pa: f64, b: NodeId, pb: f64) -> u32 {
        self.edges.push(Edge { to: a, partial: pa });
        self.edges.push(Edge { to: b, partial: pb });
        self.close_node()
    }

    pub(crate) fn bytes(&self) -> usize {
        self.ends.len() * std::mem::size_of::<u32>()
            + self.edges.len() * std::mem::size_of::<Edge>()
    }
}

#[cold]
#[inline(never)]
fn limit_exceeded() -> ! {
    panic!(
        "gradus-tape: a job exceeded the limit of 2^32 - 1 nodes or 2^32 edges; \
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
