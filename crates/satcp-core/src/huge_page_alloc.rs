//! The allocator of satcp's programs: the Python extension and the
//! benchmarks declare it their `#[global_allocator]`. It is the system's
//! allocator, with one exception. On Linux, a large block gets a mapping of
//! its own, in whole 2 MB pages, with advice to back it by transparent huge
//! pages.
//!
//! Why: a run's large buffers grow with the flight and are written for
//! the first time while the run is at its busiest. They are the packet
//! pool, a sender's queue of segments in flight and a link's propagation
//! FIFO. With 4 kB pages every new page is a fault. On the project's
//! machine a fault costs about 1.5 us, most of it the fault itself rather
//! than zeroing the page, and the 1 Gb/s benchmark run takes some 800 of
//! them. A huge page is one fault for 512 of them, and one TLB entry.
//! That run is 2-4 % faster (docs/decisions/0015-huge-pages-for-large-buffers.md).
//!
//! Nothing is kept between runs. A freed block is unmapped at once, so a
//! run gains the same whether it is the first in its process or not.
//! Results never depend on the allocator.
//!
//! The price is memory. Once touched, a large block is resident in whole
//! 2 MB pages, so a run's peak resident set grows by up to 2 MB per large
//! block: 1.7 MB for the 1 Gb/s run, 8 MB for 10,000 short flows. Where
//! the system gives no huge pages (transparent huge pages `never`), the
//! mapping is only rounded up and costs nothing more. On other systems
//! this is the system allocator.
//!
//! `SATCP_HUGE_PAGES=off` (or `0`) in the environment makes it the system
//! allocator on Linux too. That is for a host where huge pages cost more
//! than they give: with the kernel's default `defrag` setting, a fault in
//! an advised mapping may wait while the kernel compacts memory to find a
//! free huge page.

use std::alloc::{GlobalAlloc, Layout, System};

/// A transparent huge page on x86-64 (and on arm64 with 4 kB pages).
const HUGE_PAGE: usize = 2 << 20;

/// Blocks of this size or more get their own mapping: a quarter of a huge
/// page, so that rounding up wastes at most three quarters of one. The
/// 1 Gb/s run's pool passes it as it grows to 1.5 MB, its sent queue at
/// 0.6 MB, which then grows inside its page to 1.3 MB. Measured against 128 kB,
/// 256 kB and 1 MB (docs/decisions/0015-huge-pages-for-large-buffers.md): the same speed
/// as the smaller two with less memory, faster than 1 MB.
pub const LARGE: usize = 512 << 10;

/// The global allocator of satcp's programs (module docs).
pub struct HugePageAlloc;

fn is_large(size: usize, align: usize) -> bool {
    cfg!(target_os = "linux") && size >= LARGE && align <= HUGE_PAGE && switched_on()
}

/// Whether `SATCP_HUGE_PAGES` leaves huge pages on. It is read once, so
/// that a block is always freed the way it was made.
fn switched_on() -> bool {
    use std::sync::atomic::{AtomicU8, Ordering};
    const UNREAD: u8 = 0;
    const ON: u8 = 1;
    const OFF: u8 = 2;
    static STATE: AtomicU8 = AtomicU8::new(UNREAD);
    match STATE.load(Ordering::Relaxed) {
        ON => true,
        OFF => false,
        _ => {
            // `std::env` would allocate, inside the allocator.
            let on = !switched_off(mapping::env(c"SATCP_HUGE_PAGES"));
            STATE.store(if on { ON } else { OFF }, Ordering::Relaxed);
            on
        }
    }
}

fn switched_off(value: Option<&[u8]>) -> bool {
    matches!(value, Some(b"off" | b"0"))
}

/// The length of a large block's mapping: whole huge pages.
fn mapped_len(size: usize) -> usize {
    size.div_ceil(HUGE_PAGE) * HUGE_PAGE
}

unsafe impl GlobalAlloc for HugePageAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size(), layout.align()) {
            mapping::map(mapped_len(layout.size()))
        } else {
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(layout.size(), layout.align()) {
            // A new anonymous mapping reads as zeros.
            mapping::map(mapped_len(layout.size()))
        } else {
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(layout.size(), layout.align()) {
            unsafe { mapping::unmap(ptr, mapped_len(layout.size())) }
        } else {
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let was_large = is_large(layout.size(), layout.align());
        let will_be_large = is_large(new_size, layout.align());
        if !was_large && !will_be_large {
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        if was_large && will_be_large {
            let (old_len, new_len) = (mapped_len(layout.size()), mapped_len(new_size));
            if new_len == old_len {
                // It still fits its mapping: a buffer that doubles from
                // 640 kB grows in place once.
                return ptr;
            }
            // The pages move, not their contents: no copy, and the old and
            // new blocks are never resident at once.
            if let Some(moved) = unsafe { mapping::remap(ptr, old_len, new_len) } {
                return moved;
            }
        }
        // Across the threshold (or a move refused): a new block and a copy.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let new = unsafe { self.alloc(new_layout) };
        if !new.is_null() {
            unsafe {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
        }
        new
    }
}

#[cfg(target_os = "linux")]
mod mapping {
    use super::HUGE_PAGE;
    use libc::c_void;
    use std::ffi::CStr;

    /// An environment variable's value, read without allocating.
    pub fn env(name: &CStr) -> Option<&'static [u8]> {
        let value = unsafe { libc::getenv(name.as_ptr()) };
        (!value.is_null()).then(|| unsafe { CStr::from_ptr(value) }.to_bytes())
    }

    /// A new mapping of `len` bytes (a multiple of `HUGE_PAGE`), aligned
    /// to `HUGE_PAGE` so that each of its huge pages can be one, and
    /// advised to be. Null if the system has no memory for it.
    pub fn map(len: usize) -> *mut u8 {
        // One huge page more than asked, the ends cut off: the kernel does
        // not promise the alignment otherwise.
        let Some(over) = len.checked_add(HUGE_PAGE) else {
            return std::ptr::null_mut();
        };
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        let base = unsafe { libc::mmap(std::ptr::null_mut(), over, prot, flags, -1, 0) };
        if base == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        let base = base as usize;
        let start = base.next_multiple_of(HUGE_PAGE);
        let tail = base + over - (start + len);
        unsafe {
            if start > base {
                libc::munmap(base as *mut c_void, start - base);
            }
            if tail > 0 {
                libc::munmap((start + len) as *mut c_void, tail);
            }
            // Advice only: where huge pages are off it fails or does
            // nothing, and the mapping is an ordinary one.
            libc::madvise(start as *mut c_void, len, libc::MADV_HUGEPAGE);
        }
        start as *mut u8
    }

    /// The mapping at `ptr` (made by `map`, `old_len` bytes) resized to
    /// `new_len` bytes, its pages moved rather than copied. It shrinks in
    /// place. It grows into a new aligned mapping, which the move replaces.
    /// None if the kernel refuses.
    ///
    /// # Safety
    /// `ptr` and `old_len` are those of a live mapping made by `map`.
    pub unsafe fn remap(ptr: *mut u8, old_len: usize, new_len: usize) -> Option<*mut u8> {
        let ptr = ptr as *mut c_void;
        if new_len < old_len {
            let kept = unsafe { libc::mremap(ptr, old_len, new_len, 0) };
            return (kept != libc::MAP_FAILED).then_some(kept as *mut u8);
        }
        let to = map(new_len);
        if to.is_null() {
            return None;
        }
        let flags = libc::MREMAP_MAYMOVE | libc::MREMAP_FIXED;
        let moved = unsafe { libc::mremap(ptr, old_len, new_len, flags, to as *mut c_void) };
        if moved == libc::MAP_FAILED {
            unsafe { unmap(to, new_len) };
            return None;
        }
        Some(moved as *mut u8)
    }

    /// # Safety
    /// `ptr` and `len` are those of a live mapping made by `map`.
    pub unsafe fn unmap(ptr: *mut u8, len: usize) {
        unsafe { libc::munmap(ptr as *mut c_void, len) };
    }
}

/// Never called: no block is large on other systems (`is_large`).
#[cfg(not(target_os = "linux"))]
mod mapping {
    pub fn env(_name: &std::ffi::CStr) -> Option<&'static [u8]> {
        None
    }
    pub fn map(_len: usize) -> *mut u8 {
        unreachable!("large blocks have a mapping of their own on Linux only")
    }
    pub unsafe fn remap(_ptr: *mut u8, _old_len: usize, _new_len: usize) -> Option<*mut u8> {
        unreachable!("large blocks have a mapping of their own on Linux only")
    }
    pub unsafe fn unmap(_ptr: *mut u8, _len: usize) {
        unreachable!("large blocks have a mapping of their own on Linux only")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The bytes a test writes and checks: every 61st (every page has
    /// some) and the last.
    fn marked(len: usize) -> impl Iterator<Item = usize> {
        (0..len).step_by(61).chain(len.checked_sub(1))
    }

    fn value(i: usize, salt: u8) -> u8 {
        (i as u8).wrapping_mul(31) ^ salt
    }

    fn fill(ptr: *mut u8, len: usize, salt: u8) {
        for i in marked(len) {
            unsafe { *ptr.add(i) = value(i, salt) };
        }
    }

    /// Whether the bytes `fill(_, written, salt)` wrote below `upto` are
    /// there.
    fn holds(ptr: *const u8, written: usize, upto: usize, salt: u8) -> bool {
        marked(written)
            .filter(|&i| i < upto)
            .all(|i| unsafe { *ptr.add(i) } == value(i, salt))
    }

    #[test]
    fn a_large_block_is_a_huge_page_aligned_mapping_and_a_small_one_is_not() {
        let a = HugePageAlloc;
        let small = Layout::from_size_align(LARGE - 1, 8).unwrap();
        let large = Layout::from_size_align(LARGE, 8).unwrap();
        unsafe {
            let s = a.alloc(small);
            let l = a.alloc(large);
            assert!(!s.is_null() && !l.is_null());
            if cfg!(target_os = "linux") && switched_on() {
                assert_eq!(l as usize % HUGE_PAGE, 0);
            }
            fill(l, LARGE, 7);
            assert!(holds(l, LARGE, LARGE, 7));
            a.dealloc(s, small);
            a.dealloc(l, large);
        }
    }

    #[test]
    fn huge_pages_are_switched_off_by_off_or_0_only() {
        assert!(switched_off(Some(b"off")));
        assert!(switched_off(Some(b"0")));
        assert!(!switched_off(None));
        assert!(!switched_off(Some(b"")));
        assert!(!switched_off(Some(b"on")));
    }

    #[test]
    fn a_large_zeroed_block_reads_as_zeros() {
        let a = HugePageAlloc;
        let layout = Layout::from_size_align(3 << 20, 64).unwrap();
        unsafe {
            let p = a.alloc_zeroed(layout);
            assert!((0..layout.size()).step_by(4093).all(|i| *p.add(i) == 0));
            a.dealloc(p, layout);
        }
    }

    /// With transparent huge pages on (`always` or `madvise`), the kernel
    /// lists a large block's mapping as eligible for them: the advice was
    /// given. Where they are `never` (or satcp's are switched off), there
    /// is nothing to check.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_large_block_is_eligible_for_huge_pages_where_the_system_has_them() {
        let Ok(mode) = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
        else {
            return;
        };
        if mode.contains("[never]") || !switched_on() {
            return;
        }
        let a = HugePageAlloc;
        let layout = Layout::from_size_align(LARGE, 8).unwrap();
        let p = unsafe { a.alloc(layout) };
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        // The mapping's header line, then its fields ("Name: value").
        let head = format!("{:x}-", p as usize);
        let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&head));
        let entry: Vec<&str> = lines.next().into_iter().collect();
        let fields: Vec<&str> = lines
            .take_while(|l| {
                l.split_whitespace()
                    .next()
                    .is_some_and(|w| w.ends_with(':'))
            })
            .collect();
        let eligible = fields.iter().find(|l| l.starts_with("THPeligible:"));
        unsafe { a.dealloc(p, layout) };
        assert_eq!(
            eligible.map(|l| l.split_whitespace().nth(1)),
            Some(Some("1")),
            "mapping at {p:?}: {entry:?}"
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// A block resized again and again, across the threshold both
        /// ways and within and across huge pages, keeps its contents (up
        /// to the smaller size) and its alignment.
        #[test]
        fn realloc_keeps_contents_and_alignment(
            sizes in proptest::collection::vec(
                prop_oneof![1usize..4096, LARGE - 64..LARGE + 64, 1usize..(5 << 20)],
                1..8,
            ),
            align_pow in 0u32..13,
        ) {
            let a = HugePageAlloc;
            let align = 1usize << align_pow;
            let mut layout = Layout::from_size_align(sizes[0], align).unwrap();
            let mut p = unsafe { a.alloc(layout) };
            prop_assert!(!p.is_null());
            fill(p, layout.size(), 0);
            for (salt, &size) in sizes.iter().enumerate().skip(1) {
                let q = unsafe { a.realloc(p, layout, size) };
                prop_assert!(!q.is_null());
                prop_assert_eq!(q as usize % align, 0);
                prop_assert!(holds(q, layout.size(), size, salt as u8 - 1));
                layout = Layout::from_size_align(size, align).unwrap();
                p = q;
                fill(p, size, salt as u8);
            }
            unsafe { a.dealloc(p, layout) };
        }
    }
}
