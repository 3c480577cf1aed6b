//! The program's allocator: the system's, except that on Linux a large block (a model's
//! vertices, faces, morph offsets, additional UVs, a decoded texture) gets memory of its own,
//! mapped on whole 2 MB pages (transparent huge pages, `madvise(MADV_HUGEPAGE)`).
//!
//! Why: a model's big lists are written once, front to back, right after they are allocated,
//! and every fresh page costs the kernel a fault. On these machines a 4 KB fault costs about
//! 1.6 µs: filling 4.4 MB of fresh memory took 1.6 ms on small pages and 0.3 ms on huge ones.
//! Converting a 77 MB model took 24,000 faults, a fifth of its time, before large blocks were
//! advised at all.
//!
//! Why mapped here rather than advised where the system allocator put them: its blocks start
//! anywhere, and only the whole 2 MB pages inside a block can be huge, so a 5.3 MB vertex list
//! had one huge page and 800 small ones. A block mapped here starts on a 2 MB boundary, and
//! its last 2 MB page is taken whole too where the part left unused is at most a quarter of
//! the block, or the block is 1.25-2 MB ([`pages::span`]), so all of it is huge. Blocks from
//! 1 MB on are mapped here ([`pages::WHOLE_FROM`]); smaller ones are the system allocator's.
//!
//! Most desktop kernels give huge pages only where asked
//! (`/sys/kernel/mm/transparent_hugepage/enabled` = `madvise`), hence the advice. It is only
//! advice: where huge pages are off the blocks are ordinary memory. Other systems use the
//! system allocator for everything.

use std::alloc::{GlobalAlloc, Layout, System};

/// The system allocator, with large blocks on huge pages of their own (Linux).
pub struct HugePageAllocator;

// SAFETY: a block is either the system allocator's or a mapping of `pages`, and which is
// decided by `pages::takes` from the layout's size and alignment alone: the size and alignment
// a block is freed or resized with are the ones it was allocated (or last resized) with, so
// every block goes back to where it came from. `realloc` across the line moves the bytes into
// a block of the other kind before freeing the old one.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for HugePageAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if pages::takes(layout.size(), layout.align()) {
            return pages::map(layout.size());
        }
        // SAFETY: the caller's contract for `GlobalAlloc::alloc`, passed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if pages::takes(layout.size(), layout.align()) {
            // A fresh anonymous mapping reads as zeros.
            return pages::map(layout.size());
        }
        // SAFETY: the caller's contract for `GlobalAlloc::alloc_zeroed`, passed on.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if pages::takes(layout.size(), layout.align()) {
            // SAFETY: a block of this size and alignment came from `pages::map` (or
            // `pages::remap`) with this size.
            unsafe { pages::unmap(block, layout.size()) };
            return;
        }
        // SAFETY: the caller's contract for `GlobalAlloc::dealloc`, passed on.
        unsafe { System.dealloc(block, layout) }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let align = layout.align();
        match (
            pages::takes(layout.size(), align),
            pages::takes(new_size, align),
        ) {
            // SAFETY: the caller's contract for `GlobalAlloc::realloc`, passed on.
            (false, false) => unsafe { System.realloc(block, layout, new_size) },
            // SAFETY: the block came from `pages` with `layout.size()`.
            (true, true) => unsafe { pages::remap(block, layout.size(), new_size) },
            _ => {
                // SAFETY: `GlobalAlloc::realloc`'s contract makes `new_size` with this
                // alignment a valid layout.
                let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, align) };
                // SAFETY: a non-zero size (the caller's contract).
                let moved = unsafe { self.alloc(new_layout) };
                if !moved.is_null() {
                    // SAFETY: both blocks hold at least the bytes copied and do not overlap
                    // (the new one is fresh); the old one is then freed with its own layout.
                    unsafe {
                        std::ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                }
                moved
            }
        }
    }
}

/// Large blocks mapped on whole huge pages (Linux).
#[cfg(target_os = "linux")]
mod pages {
    use libc::{
        MADV_HUGEPAGE, MAP_ANONYMOUS, MAP_FAILED, MAP_PRIVATE, MREMAP_FIXED, MREMAP_MAYMOVE,
        PROT_READ, PROT_WRITE, c_void, madvise, mmap, mremap, munmap,
    };

    /// Blocks from this size on are mapped here.
    pub const WHOLE_FROM: usize = 1 << 20;

    /// A block's last huge page is taken whole only where the part of it the block does not
    /// use is at most this fraction of the block (or the block is 1.25-2 MB: see [`span`]):
    /// the memory a model's lists take grows by a quarter at the very most (0.7 MB on a 5.3 MB
    /// vertex list; 4 MB, 1.4%, on the 253 MB benchmark model, whose many 2-4 MB morph lists
    /// mostly keep small pages at their ends), or by at most 0.75 MB for a list under 2 MB.
    const MOST_UNUSED: usize = 4;

    /// A multiple of the small page size of every Linux port (4, 16 or 64 KB): the ends of
    /// the mappings fall on page boundaries everywhere.
    const SMALL_PAGES: usize = 64 << 10;

    /// The size (and alignment) of a transparent huge page on x86-64 and most ARM64 kernels.
    const HUGE_PAGE: usize = 2 << 20;

    /// Blocks from this size to [`HUGE_PAGE`] take one huge page whole. Not from 1 MB: a
    /// 512 × 512 texture decoded to RGBA (1 MB, common in MMD models) would take twice its
    /// memory.
    const ONE_PAGE_FROM: usize = HUGE_PAGE / 8 * 5;

    /// Whether a block of `size` bytes aligned to `align` is mapped here.
    pub fn takes(size: usize, align: usize) -> bool {
        size >= WHOLE_FROM && align <= HUGE_PAGE
    }

    /// The bytes mapped for a block of `size` (`None` past the address space): whole huge
    /// pages where the rest of the last one is at most a quarter of the block, else whole
    /// small pages (the end of the block, past its last whole huge page, then stays on small
    /// ones). A block of 1.25-2 MB takes one huge page whole ([`ONE_PAGE_FROM`]): one fault
    /// instead of up to 512, for at most 0.75 MB more (a 4.4 MB model's 1.3 MB face list took
    /// 323 faults, 4% of its convert; the 253 MB model, whose lists are all larger, peaks no
    /// higher). A function of the size alone: freeing and resizing find the same span.
    pub fn span(size: usize) -> Option<usize> {
        let whole = size.checked_next_multiple_of(HUGE_PAGE)?;
        if (whole - size) <= size / MOST_UNUSED || (whole == HUGE_PAGE && size >= ONE_PAGE_FROM) {
            Some(whole)
        } else {
            size.checked_next_multiple_of(SMALL_PAGES)
        }
    }

    /// A new block of at least `size` bytes, zeroed, on a huge page boundary and advised to
    /// use huge pages; null when the system has no memory for it.
    pub fn map(size: usize) -> *mut u8 {
        let Some(span) = span(size) else {
            return std::ptr::null_mut();
        };
        let Some(reserved) = span.checked_add(HUGE_PAGE) else {
            return std::ptr::null_mut();
        };
        // SAFETY: a new private anonymous mapping, at an address the kernel chooses.
        #[allow(unsafe_code)]
        let raw = unsafe {
            mmap(
                std::ptr::null_mut(),
                reserved,
                PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if raw == MAP_FAILED {
            return std::ptr::null_mut();
        }
        // A huge page more than needed was reserved: the span starts at the first boundary
        // in it, and what lies before and after it goes back.
        let start = (raw as usize).next_multiple_of(HUGE_PAGE);
        let head = start - raw as usize;
        let tail = reserved - head - span;
        // SAFETY: `raw..raw + reserved` is the mapping just made; the head and tail given
        // back lie inside it, outside `start..start + span`, which the advice covers.
        #[allow(unsafe_code)]
        unsafe {
            if head > 0 {
                munmap(raw, head);
            }
            if tail > 0 {
                munmap((start + span) as *mut c_void, tail);
            }
            madvise(start as *mut c_void, span, MADV_HUGEPAGE);
        }
        start as *mut u8
    }

    /// Gives back a block [`map`] made for `size` bytes.
    ///
    /// # Safety
    /// `block` came from [`map`] or [`remap`] with this `size`, and is not used again.
    #[allow(unsafe_code)]
    pub unsafe fn unmap(block: *mut u8, size: usize) {
        if let Some(span) = span(size) {
            // SAFETY: the caller's: `block..block + span` is the block's whole mapping.
            unsafe { munmap(block.cast(), span) };
        }
    }

    /// The block [`map`] made for `old` bytes, resized to hold `new` (its first bytes kept):
    /// in place where its span stays or shrinks, else moved (its pages, not its bytes: the
    /// kernel moves the page tables). Null, with the old block untouched, when the system has
    /// no memory for it.
    ///
    /// # Safety
    /// `block` came from [`map`] or [`remap`] with `old` bytes; on success it is replaced by
    /// the block returned.
    #[allow(unsafe_code)]
    pub unsafe fn remap(block: *mut u8, old: usize, new: usize) -> *mut u8 {
        let (Some(old_span), Some(new_span)) = (span(old), span(new)) else {
            return std::ptr::null_mut();
        };
        if new_span == old_span {
            return block;
        }
        if new_span < old_span {
            // SAFETY: the pages given back are the block's own, past what it keeps.
            unsafe { munmap(block.add(new_span).cast(), old_span - new_span) };
            return block;
        }
        let moved = map(new);
        if moved.is_null() {
            return moved;
        }
        // SAFETY: the old block's pages move over the start of the new block (which
        // `MREMAP_FIXED` unmaps first); both start on a huge page boundary, so its huge pages
        // stay huge. The rest of the new block stays as `map` made it.
        let remapped = unsafe {
            mremap(
                block.cast(),
                old_span,
                old_span,
                MREMAP_MAYMOVE | MREMAP_FIXED,
                moved.cast::<c_void>(),
            )
        };
        if remapped == MAP_FAILED {
            // SAFETY: both blocks are whole and apart; the old one is given back after its
            // bytes are copied.
            unsafe {
                std::ptr::copy_nonoverlapping(block, moved, old);
                munmap(block.cast(), old_span);
            }
        }
        moved
    }
}

/// Elsewhere every block is the system allocator's.
#[cfg(not(target_os = "linux"))]
mod pages {
    pub fn takes(_size: usize, _align: usize) -> bool {
        false
    }

    pub fn map(_size: usize) -> *mut u8 {
        std::ptr::null_mut()
    }

    #[allow(unsafe_code)]
    pub unsafe fn unmap(_block: *mut u8, _size: usize) {}

    #[allow(unsafe_code)]
    pub unsafe fn remap(_block: *mut u8, _old: usize, _new: usize) -> *mut u8 {
        std::ptr::null_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes a pattern into the `len` bytes at `block`.
    #[allow(unsafe_code)]
    fn fill(block: *mut u8, len: usize, seed: usize) {
        // SAFETY: the tests pass blocks of at least `len` bytes.
        let bytes = unsafe { std::slice::from_raw_parts_mut(block, len) };
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = ((i + seed) % 251) as u8;
        }
    }

    /// Whether the `len` bytes at `block` hold [`fill`]'s pattern.
    #[allow(unsafe_code)]
    fn holds(block: *const u8, len: usize, seed: usize) -> bool {
        // SAFETY: the tests pass blocks of at least `len` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(block, len) };
        bytes
            .iter()
            .enumerate()
            .all(|(i, &byte)| byte == ((i + seed) % 251) as u8)
    }

    #[test]
    fn blocks_keep_their_bytes_through_every_resize_across_and_inside_the_large_sizes() {
        let allocator = HugePageAllocator;
        let mib = 1 << 20;
        // From a small block up through the line, inside the large sizes (the same last huge
        // page, a new one, several), back down inside them and across the line again.
        let sizes = [
            200_000,
            mib + 12_345,
            mib + 700_000,
            5 * mib + 3,
            64 * mib,
            3 * mib + 1,
            3 * mib,
            900_000,
            10,
        ];
        // SAFETY: non-zero layouts; every block is written inside its size, resized and
        // freed with the layout it last had.
        #[allow(unsafe_code)]
        unsafe {
            let mut layout = Layout::from_size_align(sizes[0], 16).unwrap();
            let mut block = allocator.alloc(layout);
            assert!(!block.is_null());
            fill(block, layout.size(), 7);
            for &size in &sizes[1..] {
                let kept = layout.size().min(size);
                block = allocator.realloc(block, layout, size);
                assert!(!block.is_null(), "resized to {size}");
                assert_eq!(block as usize % 16, 0);
                assert!(holds(block, kept, 7), "bytes kept when resized to {size}");
                layout = Layout::from_size_align(size, 16).unwrap();
                fill(block, size, 7);
            }
            allocator.dealloc(block, layout);
        }
    }

    #[test]
    fn large_blocks_are_zeroed_aligned_and_apart() {
        let allocator = HugePageAllocator;
        // SAFETY: non-zero layouts; the blocks are read and written inside their sizes and
        // freed with their layouts.
        #[allow(unsafe_code)]
        unsafe {
            let zeroed_layout = Layout::from_size_align((4 << 20) + 12_345, 16).unwrap();
            let zeroed = allocator.alloc_zeroed(zeroed_layout);
            assert!(!zeroed.is_null());
            let bytes = std::slice::from_raw_parts(zeroed, zeroed_layout.size());
            assert!(bytes.iter().all(|&byte| byte == 0));

            // An alignment past a huge page's is the system allocator's to give.
            let wide = Layout::from_size_align(3 << 20, 4 << 20).unwrap();
            let wide_block = allocator.alloc(wide);
            assert!(!wide_block.is_null());
            assert_eq!(wide_block as usize % (4 << 20), 0);

            let a_layout = Layout::from_size_align(1 << 20, 4096).unwrap();
            let (a, b) = (allocator.alloc(a_layout), allocator.alloc(a_layout));
            assert!(!a.is_null() && !b.is_null());
            assert_eq!(a as usize % 4096, 0);
            fill(a, a_layout.size(), 1);
            fill(b, a_layout.size(), 2);
            fill(wide_block, wide.size(), 3);
            assert!(holds(a, a_layout.size(), 1));
            assert!(holds(b, a_layout.size(), 2));
            assert!(holds(wide_block, wide.size(), 3));
            for (block, layout) in [
                (zeroed, zeroed_layout),
                (wide_block, wide),
                (a, a_layout),
                (b, a_layout),
            ] {
                allocator.dealloc(block, layout);
            }
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_last_huge_page_is_taken_whole_where_a_quarter_of_the_block_or_less_is_left_unused() {
        let mib = 1 << 20;
        // The 60,000-vertex benchmark model's vertices: 0.7 MB of 6 MB unused.
        assert_eq!(pages::span(5_283_840), Some(6 * mib));
        // Its faces: 1.25-2 MB, one huge page whole.
        assert_eq!(pages::span(1_320_000), Some(2 * mib));
        assert_eq!(pages::span(mib / 4 * 5), Some(2 * mib));
        // A 512 x 512 RGBA texture would take twice its memory: small pages.
        assert_eq!(pages::span(mib), Some(mib));
        assert_eq!(pages::span(mib / 4 * 5 - 1), Some(mib / 4 * 5));
        assert_eq!(pages::span(2 * mib - 1), Some(2 * mib));
        // 2.6 MB: 1.4 MB unused of a second huge page is more than a quarter.
        assert_eq!(pages::span(2_600_000), Some(2_621_440));
        assert_eq!(pages::span(2 * mib), Some(2 * mib));
        assert_eq!(pages::span(3 * mib), Some(3 * mib));
        assert_eq!(pages::span(usize::MAX - 5), None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn large_blocks_start_on_a_huge_page() {
        let block = pages::map((1 << 20) + 1);
        assert!(!block.is_null());
        assert_eq!(block as usize % (2 << 20), 0);
        // SAFETY: the block `map` just made, with its size.
        #[allow(unsafe_code)]
        unsafe {
            pages::unmap(block, (1 << 20) + 1)
        };
    }
}
