//! mimalloc as Rust's global allocator, asking for alignment only when a
//! layout needs more than every mimalloc block has.
//!
//! The `mimalloc` crate sends every allocation through `mi_malloc_aligned`.
//! Its fast path checks the free block's alignment, and a block over 1 KiB
//! whose size is not a power of two takes the over-allocating path. Most of
//! opgraph's allocations are strings and vectors aligned to 1 to 8 bytes,
//! which every mimalloc block is (block sizes are whole words), so they go
//! to plain `mi_malloc`: about 5% of the instructions of loading a
//! 350-node ONNX model.

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};
use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

/// The alignment of every block `mi_malloc` returns (a machine word).
const BLOCK_ALIGN: usize = std::mem::size_of::<usize>();

/// mimalloc, with `mi_malloc` for layouts aligned to at most a word.
pub struct MiMalloc;

// SAFETY: a layout aligned to at most a word gets a `mi_malloc` block,
// which is word aligned; any other goes to mimalloc's aligned functions, as
// the `mimalloc` crate does for all. Blocks are freed by `mi_free`, which
// takes both kinds.
unsafe impl GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi_malloc(layout.size()).cast()
        } else {
            mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi_zalloc(layout.size()).cast()
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi_free(ptr.cast::<c_void>());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= BLOCK_ALIGN {
            mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_have_the_alignment_their_layout_asks_for() {
        // Sizes across mimalloc's small, medium and large bins, alignments
        // below, at and above a word; contents survive growing.
        for align in [1, 2, 4, 8, 16, 64, 4096] {
            for size in [1, 7, 24, 40, 100, 1000, 1500, 70_000, 3 << 20] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = MiMalloc.alloc(layout);
                    assert!(!p.is_null() && p as usize % align == 0, "{size} {align}");
                    p.write_bytes(0xab, size);
                    let q = MiMalloc.realloc(p, layout, size * 3);
                    assert!(!q.is_null() && q as usize % align == 0, "{size} {align}");
                    assert_eq!(*q.add(size - 1), 0xab);
                    MiMalloc.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = MiMalloc.alloc_zeroed(layout);
                    assert!(z as usize % align == 0 && *z.add(size - 1) == 0);
                    MiMalloc.dealloc(z, layout);
                }
            }
        }
    }
}
