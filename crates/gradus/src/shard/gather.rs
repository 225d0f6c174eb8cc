//! Gathering the rows results of a sharded call (the cargo feature `mpi`; docs/mpi.md
//! §Combining results): every process's rows, in rank order, into one vector.
//!
//! **Takes** each process's raw elements, borrowed where they lie (the native backend's
//! buffers: a process that only sends copies nothing), and every process's element count.
//! **Guarantees** that the combined vector holds every process's elements in rank order, on
//! every process (`Allgatherv`) or on rank 0 only (`Gatherv`; rank 0's own elements are
//! copied to the front of a vector of the whole size, the others received after them). MPI
//! writes the received elements straight into the vector's spare capacity: nothing is
//! zero-filled first, so each page of a large result is touched once, by the copy that
//! fills it. That capacity is advised to be backed by huge pages where the system allows
//! it (Linux `MADV_HUGEPAGE`), so that faulting in a result of many megabytes takes a few
//! faults per 2 MiB rather than one per 4 KiB.

use crate::huge_pages::advise as advise_huge_pages;
use mpi::Count;
use mpi::datatype::{AsDatatype, BufferMut, Collection, Equivalence, PartitionMut, PointerMut};
use mpi::traits::{Communicator, CommunicatorCollectives, Root};
use std::ffi::c_void;
use std::mem::MaybeUninit;

/// The uninitialised elements an MPI collective receives into: a buffer of `T`'s datatype
/// whose contents MPI only writes, never reads.
struct Spare<'a, T>(&'a mut [MaybeUninit<T>]);

// SAFETY: the pointer is to `self.0.len()` elements of `T`, valid for writes for as long as
// `self` borrows them.
unsafe impl<T> PointerMut for Spare<'_, T> {
    fn pointer_mut(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
}

// SAFETY: the count is the number of elements behind the pointer.
unsafe impl<T> Collection for Spare<'_, T> {
    fn count(&self) -> Count {
        Count::try_from(self.0.len()).expect("the callers check the count")
    }
}

// SAFETY: the elements are of type `T`, whose MPI datatype this is.
unsafe impl<T: Equivalence> AsDatatype for Spare<'_, T> {
    type Out = T::Out;
    fn as_datatype(&self) -> Self::Out {
        T::equivalent_datatype()
    }
}

// SAFETY: the three traits above describe the same memory.
unsafe impl<T: Equivalence> BufferMut for Spare<'_, T> {}

/// The displacement of each process's elements in the gathered vector (an exclusive prefix
/// sum of `counts`).
pub(crate) fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |acc, &c| {
            let d = *acc;
            *acc += c;
            Some(d)
        })
        .collect()
}

/// Every process's `mine` concatenated in rank order, on every process (`Allgatherv`):
/// `counts[r]` is the number of elements of process `r`, this process's among them
/// (`mine.len()`), and all of them together fit in one MPI count.
pub(crate) fn all_gather_vec<C: Communicator, T: Equivalence>(
    comm: &C,
    mine: &[T],
    counts: &[Count],
) -> Vec<T> {
    let total: usize = counts.iter().map(|&c| c as usize).sum();
    let displs = displacements(counts);
    let mut whole: Vec<T> = Vec::with_capacity(total);
    advise_huge_pages(whole.spare_capacity_mut());
    let mut spare = Spare(&mut whole.spare_capacity_mut()[..total]);
    let mut recv = PartitionMut::new(&mut spare, counts, &displs[..]);
    comm.all_gather_varcount_into(mine, &mut recv);
    // SAFETY: `Allgatherv` has written `counts[r]` elements at `displs[r]` for every process
    // `r`; these blocks are adjacent and start at 0, so they cover the first `total` elements.
    // Each is a copy of an initialised element of type `T` sent by a process of the same
    // program (the callers check that the element types agree), so it is a valid `T`.
    unsafe { whole.set_len(total) };
    whole
}

/// Every process's `mine` concatenated in rank order on rank 0 (`Some` there, `None`
/// elsewhere), by `Gatherv`: rank 0 copies its own elements to the front of a vector of the
/// whole size and receives the others after them; the other processes send theirs from
/// where they lie. `counts` as for [`all_gather_vec`].
pub(crate) fn gather_vec_to_root<C: Communicator, T: Equivalence + Copy>(
    comm: &C,
    mine: &[T],
    counts: &[Count],
) -> Option<Vec<T>> {
    let root = comm.process_at_rank(0);
    if comm.rank() != 0 {
        root.gather_varcount_into(mine);
        return None;
    }
    let own = mine.len();
    debug_assert_eq!(own, counts[0] as usize);
    let others: usize = counts[1..].iter().map(|&c| c as usize).sum();
    let mut whole: Vec<T> = Vec::with_capacity(own + others);
    advise_huge_pages(whole.spare_capacity_mut());
    whole.extend_from_slice(mine);
    // Rank 0 receives nothing from itself: its block is empty, and the others' blocks are
    // placed from the start of the spare capacity.
    let mut counts = counts.to_vec();
    counts[0] = 0;
    let displs: Vec<Count> = displacements(&counts);
    // A distinct, real address for rank 0's empty contribution (Open MPI rejects a send
    // buffer that looks like it aliases the receive buffer).
    let nothing = [0u8; 1];
    let mut spare = Spare(&mut whole.spare_capacity_mut()[..others]);
    let mut recv = PartitionMut::new(&mut spare, &counts[..], &displs[..]);
    root.gather_varcount_into_root(&nothing[..0], &mut recv);
    // SAFETY: `Gatherv` has written `counts[r]` elements at `displs[r]` of the spare capacity
    // for every process `r > 0`; these blocks are adjacent and start at 0, so they cover its
    // first `others` elements. Each is a copy of an initialised element of type `T` sent by a
    // process of the same program (the callers check that the element types agree), so it is
    // a valid `T`.
    unsafe { whole.set_len(own + others) };
    Some(whole)
}
