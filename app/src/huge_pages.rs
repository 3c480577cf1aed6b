//! The program's allocator: the system's, which on Linux also asks the kernel to back each
//! large block with 2 MB pages (transparent huge pages, `madvise(MADV_HUGEPAGE)`).
//!
//! Why: a model's big lists (vertices, faces, morph offsets, additional UVs) are written
//! once, front to back, right after they are allocated. With 4 KB pages every 4 KB of them
//! costs a page fault; converting a 77 MB model took 24,000 of them, a fifth of the time.
//! With 2 MB pages that is one fault per 2 MB: `convert` of that file went from 109 to 92 ms
//! (whole process, medians of 15 paired runs). Most desktop kernels give huge pages only where
//! asked (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`), hence the advice.
//!
//! The advice is only advice: where huge pages are off, or on other systems, nothing changes.
//! Blocks under 4 MB are left alone: a small block's 2 MB page would be mostly empty.

use advice::advise_huge_pages;
use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with large blocks advised to use huge pages.
pub struct HugePageAllocator;

// SAFETY: every call is the system allocator's, with the caller's own arguments; the advice
// changes how the kernel backs memory the block already owns, never its contents or layout.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for HugePageAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `GlobalAlloc::alloc`, passed on.
        let block = unsafe { System.alloc(layout) };
        advise_huge_pages(block, layout.size());
        block
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`. Fresh huge pages come zeroed as small ones do.
        let block = unsafe { System.alloc_zeroed(layout) };
        advise_huge_pages(block, layout.size());
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract for `GlobalAlloc::dealloc`, passed on.
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract for `GlobalAlloc::realloc`, passed on.
        let moved = unsafe { System.realloc(block, layout, new_size) };
        advise_huge_pages(moved, new_size);
        moved
    }
}

/// Asks the kernel for huge pages under a block (Linux).
#[cfg(target_os = "linux")]
mod advice {
    use libc::{MADV_HUGEPAGE, c_void, madvise};

    /// Blocks from this size on are advised: a 2 MB page in them is at least half used.
    const LARGE: usize = 4 << 20;

    /// The size (and alignment) of a transparent huge page on x86-64 and most ARM64 kernels.
    const HUGE_PAGE: usize = 2 << 20;

    /// Asks for huge pages on the whole 2 MB pages inside the `size` bytes at `block`, when
    /// the block is large. A refusal (huge pages off, an old kernel) leaves small pages.
    pub fn advise_huge_pages(block: *mut u8, size: usize) {
        if block.is_null() || size < LARGE {
            return;
        }
        let start = (block as usize).next_multiple_of(HUGE_PAGE);
        let end = (block as usize).saturating_add(size) & !(HUGE_PAGE - 1);
        if end > start {
            // SAFETY: `start..end` lies inside the block just allocated (rounded inwards to
            // whole huge pages), and `MADV_HUGEPAGE` changes only how the kernel backs it.
            #[allow(unsafe_code)]
            unsafe {
                madvise(start as *mut c_void, end - start, MADV_HUGEPAGE);
            }
        }
    }
}

/// Elsewhere blocks are the system allocator's alone.
#[cfg(not(target_os = "linux"))]
mod advice {
    pub fn advise_huge_pages(_block: *mut u8, _size: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_hold_what_is_written_through_alloc_realloc_and_zeroed() {
        let allocator = HugePageAllocator;
        let layout = Layout::from_size_align((4 << 20) + 12_345, 16).unwrap();
        // SAFETY: a non-zero layout; the block is written and freed with the same layout.
        #[allow(unsafe_code)]
        unsafe {
            let zeroed = allocator.alloc_zeroed(layout);
            assert!(!zeroed.is_null());
            let bytes = std::slice::from_raw_parts(zeroed, layout.size());
            assert!(bytes.iter().all(|&byte| byte == 0));
            allocator.dealloc(zeroed, layout);

            let block = allocator.alloc(layout);
            assert!(!block.is_null());
            for i in 0..layout.size() {
                *block.add(i) = (i % 251) as u8;
            }
            let grown = allocator.realloc(block, layout, 12 << 20);
            assert!(!grown.is_null());
            let bytes = std::slice::from_raw_parts(grown, layout.size());
            assert!(bytes.iter().enumerate().all(|(i, &b)| b == (i % 251) as u8));
            allocator.dealloc(grown, Layout::from_size_align(12 << 20, 16).unwrap());
        }
    }
}
