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
    /// An array whose dimension `d` (> 0) runs over this process's rows, as a loop's per-row
    /// checkpoints `[iterations][rows]` do: indexing its outer `d` dimensions with replicated
    /// positions gives [`Kind::Rows`]. Not a result: it has no unsharded counterpart.
    InnerRows(u8),
    /// None of the above; the index names the reason (statement and message).
    Mixed(u32),
}

impl Kind {
    /// Whether the value is the same on every process.
    pub(crate) fn is_rep(self) -> bool {
        matches!(self, Kind::Zero | Kind::Rep)
    }

    /// Whether the value holds this process's rows ([`Kind::Rows`] or [`Kind::InnerRows`]).
    pub(crate) fn has_rows(self) -> bool {
        matches!(self, Kind::Rows | Kind::InnerRows(_))
    }

    /// The kind of an array whose rows dimension is `d`.
    pub(crate) fn rows_at(d: usize) -> Kind {
        match d {
            0 => Kind::Rows,
            d => Kind::InnerRows(u8::try_from(d).unwrap_or(u8::MAX)),
        }
    }

    /// The kind of a value that combines `self` and `other` linearly (a branch of an `if`,
    /// a loop's next value, an accumulator's contributions): `None` when they cannot be
    /// combined (rows with anything else). A replicated operand of a partial sum must then
    /// be counted once ([`super::analyse`] masks it on ranks other than 0).
    pub(crate) fn join(self, other: Kind) -> Option<Kind> {
        use Kind::*;
        Some(match (self, other) {
            (Mixed(i), _) | (_, Mixed(i)) => Mixed(i),
            (Zero, k) | (k, Zero) if !k.has_rows() => k,
            (Rows, Rows) => Rows,
            (InnerRows(a), InnerRows(b)) if a == b => InnerRows(a),
            (Rows | InnerRows(_), _) | (_, Rows | InnerRows(_)) => return None,
            (Rep, Rep) => Rep,
            _ => Part,
        })
    }
}
