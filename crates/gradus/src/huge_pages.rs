//! Fresh buffers of many megabytes backed by huge pages where the system allows it.
//!
//! A result copied out of the native backend's buffers, or rows gathered from other MPI
//! processes, land in memory the process has not touched yet. On Linux every 4 KiB page of
//! such memory costs a page fault when it is first written; for a result of 100 MB that is
//! about 25 000 faults, which took as long as computing BA's Jacobian blocks. Advising the
//! kernel to back the memory with transparent huge pages (`MADV_HUGEPAGE`, honoured in the
//! kernel's default `madvise` mode) takes one fault per 2 MiB instead.
//!
//! **Takes** memory not yet written. **Guarantees** nothing about its contents changes; the
//! advice is a hint, and where the system declines it (another OS, huge pages switched off)
//! nothing happens.

use std::mem::MaybeUninit;

/// Buffers smaller than this are left alone: they do not cover a whole huge page twice, and
/// the system call would cost more than the faults it saves.
const MIN_BYTES: usize = 4 << 20;

/// Advises the kernel to back `spare` (memory not yet touched) with huge pages, where it is
/// large enough to hold them.
pub(crate) fn advise<T>(spare: &mut [MaybeUninit<T>]) {
    let bytes = std::mem::size_of_val(spare);
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = spare.as_mut_ptr() as usize;
        let first = start.next_multiple_of(PAGE);
        let last = (start + bytes) / PAGE * PAGE;
        if last > first {
            // SAFETY: `[first, last)` is page-aligned and lies inside `spare`, memory this
            // process owns; `MADV_HUGEPAGE` changes how untouched pages are backed, not their
            // contents, and its failure (a kernel without transparent huge pages) is harmless.
            unsafe {
                libc::madvise(
                    first as *mut std::ffi::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
}

/// A copy of `src` in a new vector, whose memory is advised to huge pages before the copy
/// writes it when it is large.
pub(crate) fn copy_of<T: Copy>(src: &[T]) -> Vec<T> {
    if std::mem::size_of_val(src) < MIN_BYTES {
        return src.to_vec();
    }
    let mut v = Vec::with_capacity(src.len());
    advise(v.spare_capacity_mut());
    v.extend_from_slice(src);
    v
}

#[cfg(test)]
mod tests {
    use super::copy_of;

    #[test]
    fn a_copy_holds_the_same_elements_small_or_large() {
        for n in [0usize, 3, 1 << 20] {
            let src: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 7.0).collect();
            assert_eq!(copy_of(&src), src, "n = {n}");
        }
    }
}
