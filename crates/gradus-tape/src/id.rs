//! Compound IDs: a node is named by the job that recorded it and its index within that job.

use std::fmt;

/// The ID of a job (a maximal stretch of sequential execution between forks and joins). The
/// root job of a recording is `JobId(0)`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct JobId(pub u32);

/// The ID of a recorded node: `job << 32 | index`. [`NodeId::CONSTANT`] means "no node".
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(u64);

impl NodeId {
    /// The ID carried by constants: they record nothing and receive no adjoint.
    pub const CONSTANT: NodeId = NodeId(u64::MAX);

    #[inline]
    pub(crate) fn new(job: JobId, index: u32) -> NodeId {
        NodeId(((job.0 as u64) << 32) | index as u64)
    }
    #[inline(always)]
    pub(crate) fn bits(self) -> u64 {
        self.0
    }
    #[inline(always)]
    pub(crate) fn from_bits(bits: u64) -> NodeId {
        NodeId(bits)
    }
    /// The job that recorded this node.
    #[inline]
    pub fn job(self) -> JobId {
        JobId((self.0 >> 32) as u32)
    }
    /// The node's index within its job.
    #[inline]
    pub fn index(self) -> u32 {
        self.0 as u32
    }
    /// Whether this is [`NodeId::CONSTANT`].
    #[inline]
    pub fn is_constant(self) -> bool {
        self.0 == u64::MAX
    }
}

impl fmt::Debug for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_constant() {
            write!(f, "const")
        } else {
            write!(f, "({}, {})", self.job().0, self.index())
        }
    }
}
