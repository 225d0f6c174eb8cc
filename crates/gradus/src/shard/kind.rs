//! The lattice of the sharding analysis: how a value of the per-process entry point relates to
//! the value of the unsharded entry point (docs/mpi.md §How the compiler shards an entry point).

/// What one process holds of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Zero on every process: both replicated and a (trivial) sum.
    Zero,
    /// The same value on every process: the unsharded value.
    Rep,
    /// A partial sum: the unsharded value is the sum of the processes' values.
    Part,
    /// An array whose outer dimension runs over this process's rows: the unsharded value is
    /// the concatenation of the processes' values in rank order.
    Rows,
    /// None of the above; the index names the reason (statement and message).
    Mixed(u32),
}

impl Kind {
    /// Whether the value is the same on every process.
    pub(crate) fn is_rep(self) -> bool {
        matches!(self, Kind::Zero | Kind::Rep)
    }

    /// The kind of a value that combines `self` and `other` linearly (a branch of an `if`,
    /// a loop's next value, an accumulator's contributions): `None` when they cannot be
    /// combined (rows with anything else). A replicated operand of a partial sum must then
    /// be counted once ([`super::analyse`] masks it on ranks other than 0).
    pub(crate) fn join(self, other: Kind) -> Option<Kind> {
        use Kind::*;
        Some(match (self, other) {
            (Mixed(i), _) | (_, Mixed(i)) => Mixed(i),
            (Zero, k) | (k, Zero) if k != Rows => k,
            (Rows, Rows) => Rows,
            (Rows, _) | (_, Rows) => return None,
            (Rep, Rep) => Rep,
            _ => Part,
        })
    }
}
