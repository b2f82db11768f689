//! A hint to the processor to start loading memory an event a little later
//! will read. With many flows a packet has left the caches by the time it
//! reaches the far end of a 250 ms link or the head of a long queue, and
//! its first read waits for memory; where the next such packet is known
//! one event ahead (the next in a link's propagation FIFO, the next in a
//! queue), a prefetch lets that wait overlap with the events in between.
//! A prefetch only moves memory into a cache: it cannot fault and changes
//! nothing a run computes (on other processors it is left out).

/// Starts loading every 64-byte line of `*value` into the caches.
#[inline(always)]
pub fn prefetch<T>(value: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = value as *const i8;
        let mut offset = 0;
        while offset < std::mem::size_of::<T>() {
            // SAFETY: a prefetch is a hint; it reads nothing and cannot
            // fault, whatever the address (SSE is part of x86_64's base).
            unsafe { _mm_prefetch(start.wrapping_add(offset), _MM_HINT_T0) };
            offset += 64;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
