//! Sparsity patterns in compressed sparse rows.
//!
//! A [`Pattern`] lists, for each row of an `nrows × ncols` matrix, the columns that may hold
//! a non-zero. It is only a structure, with no values: the values of a sparse Jacobian or
//! Hessian come out of the recovery functions of [`super::colour`] in the pattern's order
//! (rows in order, columns ascending within a row).
//!
//! Guarantees: every `Pattern` that this module hands out is well formed (the invariants
//! listed on the type hold); [`Pattern::new`] checks them for patterns built by hand. The
//! operations cost time linear in `nrows + ncols + nnz`.

/// A sparsity pattern in compressed sparse rows: row `i`'s columns are
/// `columns[offsets[i]..offsets[i + 1]]`, strictly ascending, each `< ncols`.
///
/// Invariants: `offsets.len() == nrows + 1`, `offsets[0] == 0`, the offsets never decrease,
/// `offsets[nrows] == columns.len()`, and `nrows` and `ncols` fit in a `u32` (columns are
/// stored as `u32`, and transposition turns rows into columns).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pattern {
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Where each row starts in `columns`; `nrows + 1` entries, the last one `columns.len()`.
    pub offsets: Vec<usize>,
    /// The columns of all rows, row after row, ascending within a row.
    pub columns: Vec<u32>,
}

/// The largest number of rows or columns a pattern may have.
pub const MAX_DIM: usize = u32::MAX as usize;

impl Pattern {
    /// A pattern from its arrays, checked: an `Err` says which invariant fails and where.
    pub fn new(
        nrows: usize,
        ncols: usize,
        offsets: Vec<usize>,
        columns: Vec<u32>,
    ) -> Result<Pattern, String> {
        check_dims(nrows, ncols)?;
        if offsets.len() != nrows + 1 {
            return Err(format!(
                "pattern with {nrows} rows needs {} offsets, got {}",
                nrows + 1,
                offsets.len()
            ));
        }
        if offsets[0] != 0 {
            return Err(format!("pattern offsets start at {}, not 0", offsets[0]));
        }
        if offsets[nrows] != columns.len() {
            return Err(format!(
                "pattern's last offset is {} but it has {} columns",
                offsets[nrows],
                columns.len()
            ));
        }
        for i in 0..nrows {
            let (start, end) = (offsets[i], offsets[i + 1]);
            if end < start {
                return Err(format!(
                    "pattern offsets decrease at row {i}: {start} then {end}"
                ));
            }
            let row = &columns[start..end];
            for (k, &c) in row.iter().enumerate() {
                if c as usize >= ncols {
                    return Err(format!(
                        "row {i} of the pattern has column {c}, out of range for {ncols} columns"
                    ));
                }
                if k > 0 && row[k - 1] >= c {
                    return Err(format!(
                        "row {i} of the pattern is not strictly ascending: {} then {c}",
                        row[k - 1]
                    ));
                }
            }
        }
        Ok(Pattern {
            nrows,
            ncols,
            offsets,
            columns,
        })
    }

    /// A pattern from the columns of each row, in any order and with repeats (sorted and
    /// deduplicated here); `rows.len()` is the number of rows. An `Err` names the first
    /// column out of range.
    pub fn try_from_rows(ncols: usize, rows: &[Vec<u32>]) -> Result<Pattern, String> {
        check_dims(rows.len(), ncols)?;
        let mut offsets = Vec::with_capacity(rows.len() + 1);
        let mut columns = Vec::with_capacity(rows.iter().map(Vec::len).sum());
        offsets.push(0);
        for (i, row) in rows.iter().enumerate() {
            if let Some(&c) = row.iter().find(|&&c| c as usize >= ncols) {
                return Err(format!(
                    "row {i} of the pattern has column {c}, out of range for {ncols} columns"
                ));
            }
            let start = columns.len();
            columns.extend_from_slice(row);
            columns[start..].sort_unstable();
            let mut kept = start;
            for k in start..columns.len() {
                if kept == start || columns[kept - 1] != columns[k] {
                    columns[kept] = columns[k];
                    kept += 1;
                }
            }
            columns.truncate(kept);
            offsets.push(columns.len());
        }
        Ok(Pattern {
            nrows: rows.len(),
            ncols,
            offsets,
            columns,
        })
    }

    /// [`Pattern::try_from_rows`] for rows known to be in range.
    ///
    /// # Panics
    /// If a column is `>= ncols`, or a dimension exceeds [`MAX_DIM`].
    pub fn from_rows(ncols: usize, rows: &[Vec<u32>]) -> Pattern {
        Pattern::try_from_rows(ncols, rows).unwrap_or_else(|e| panic!("Pattern::from_rows: {e}"))
    }

    /// Number of entries.
    pub fn nnz(&self) -> usize {
        self.columns.len()
    }

    /// The columns of row `i`, ascending.
    pub fn row(&self, i: usize) -> &[u32] {
        &self.columns[self.offsets[i]..self.offsets[i + 1]]
    }

    /// The pattern of the transposed matrix, in `O(nrows + ncols + nnz)`.
    pub fn transpose(&self) -> Pattern {
        let mut offsets = vec![0usize; self.ncols + 1];
        for &c in &self.columns {
            offsets[c as usize + 1] += 1;
        }
        for j in 0..self.ncols {
            offsets[j + 1] += offsets[j];
        }
        let mut next = offsets[..self.ncols].to_vec();
        let mut columns = vec![0u32; self.nnz()];
        // Rows are visited in order, so each transposed row comes out ascending.
        for i in 0..self.nrows {
            for &c in self.row(i) {
                columns[next[c as usize]] = i as u32;
                next[c as usize] += 1;
            }
        }
        Pattern {
            nrows: self.ncols,
            ncols: self.nrows,
            offsets,
            columns,
        }
    }

    /// Whether the pattern is square and equal to its transpose.
    pub fn is_symmetric(&self) -> bool {
        self.nrows == self.ncols && *self == self.transpose()
    }

    /// The pattern of `P or Pᵀ` (an entry wherever `P` or its transpose has one), for a
    /// square pattern; the diagonal is kept as it is. Linear time.
    ///
    /// # Panics
    /// If the pattern is not square.
    pub fn symmetrised(&self) -> Pattern {
        assert_eq!(
            self.nrows, self.ncols,
            "Pattern::symmetrised needs a square pattern, not {} × {}",
            self.nrows, self.ncols
        );
        let t = self.transpose();
        let mut offsets = Vec::with_capacity(self.nrows + 1);
        let mut columns = Vec::with_capacity(self.nnz() + t.nnz());
        offsets.push(0);
        for i in 0..self.nrows {
            merge_into(self.row(i), t.row(i), &mut columns);
            offsets.push(columns.len());
        }
        Pattern {
            nrows: self.nrows,
            ncols: self.ncols,
            offsets,
            columns,
        }
    }

    /// The largest number of entries in a row: a lower bound on the colours of any
    /// distance-2 column colouring, since a row's columns need one colour each.
    pub fn max_row_len(&self) -> usize {
        (0..self.nrows)
            .map(|i| self.offsets[i + 1] - self.offsets[i])
            .max()
            .unwrap_or(0)
    }
}

/// Rejects dimensions whose indices would not fit in a `u32`.
fn check_dims(nrows: usize, ncols: usize) -> Result<(), String> {
    if nrows > MAX_DIM || ncols > MAX_DIM {
        return Err(format!(
            "pattern of {nrows} × {ncols} is too large: at most {MAX_DIM} rows and columns"
        ));
    }
    Ok(())
}

/// Appends the union of two ascending lists to `out`, ascending and without repeats.
fn merge_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}
