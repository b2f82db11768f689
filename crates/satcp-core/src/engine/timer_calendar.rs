//! The timers' half of the future-event list (`event_queue.rs`): a
//! calendar queue. With many flows there are thousands of timers (one per
//! endpoint, plus the stale ones a moved deadline leaves behind), and in a
//! binary heap every pop walked a dozen levels, each a cache miss once the
//! other events had evicted the heap (about 12 % of a 1,000-flow run).
//!
//! Timers fall into buckets of 2^20 ns (about 1 ms) by their time; a ring
//! of 4,096 buckets covers the 4.3 s from the earliest timer on, which
//! holds TCP's deadlines (delayed ACK, RTO); later ones wait in a heap
//! (`far`) and move into the ring as it advances. Each bucket is a short
//! unsorted list in a slab; a bitmap finds the next non-empty bucket.
//!
//! The order is exactly the heap's: keys are unique (time, rank), and a
//! pop always takes the smallest key there is. Each bucket of the ring
//! holds one absolute bucket number (the ring spans exactly its length),
//! so the first non-empty bucket from the ring's start holds the smallest
//! times, and its smallest key is the smallest of the ring; every key in
//! `far` is later than every key in the ring.

use super::heap::KeyedHeap;

/// log2 of a bucket's span in ns.
const SHIFT: u32 = 20;
const BUCKETS: usize = 4096;
const WORDS: usize = BUCKETS / 64;
const NIL: u32 = u32::MAX;

fn bucket_of(key: u128) -> u64 {
    ((key >> 64) as u64) >> SHIFT
}

#[derive(Clone, Copy)]
struct Node<E> {
    key: u128,
    event: E,
    next: u32,
}

pub struct TimerCalendar<E> {
    /// The entries of the ring's buckets, linked through `next`; freed
    /// nodes are linked from `free`.
    nodes: Vec<Node<E>>,
    free: u32,
    /// Per bucket, the first node of its list (NIL: empty).
    heads: Vec<u32>,
    /// One bit per non-empty bucket.
    occupied: [u64; WORDS],
    /// The absolute bucket number of the ring's start: every entry in the
    /// ring lies in [base, base + BUCKETS), every entry of `far` after it.
    base: u64,
    in_ring: usize,
    far: KeyedHeap<E>,
    /// The smallest key of all (ring and far), kept up to date.
    min: Option<u128>,
}

impl<E: Copy> TimerCalendar<E> {
    pub fn new() -> Self {
        TimerCalendar {
            nodes: Vec::with_capacity(1024),
            free: NIL,
            heads: vec![NIL; BUCKETS],
            occupied: [0; WORDS],
            base: 0,
            in_ring: 0,
            far: KeyedHeap::with_capacity(64),
            min: None,
        }
    }

    pub fn push(&mut self, key: u128, event: E) {
        let b = bucket_of(key);
        if b < self.base {
            // Before the ring's start (the bucket of the last timer
            // popped): the simulation does not do that (deadlines lie
            // ahead), but the order must hold whatever is pushed.
            self.rebase(b);
        }
        if b < self.base + BUCKETS as u64 {
            self.insert(b, key, event);
        } else {
            self.far.push(key, event);
        }
        self.min = Some(self.min.map_or(key, |m| m.min(key)));
    }

    #[inline]
    pub fn peek_key(&self) -> Option<u128> {
        self.min
    }

    pub fn pop(&mut self) -> Option<(u128, E)> {
        let key = self.min?;
        let b = bucket_of(key);
        let event = if self.in_ring == 0 {
            // Only far timers: the ring restarts at the earliest.
            let (k, e) = self.far.pop().expect("the smallest key is in far");
            debug_assert_eq!(k, key);
            e
        } else {
            self.remove(b, key)
        };
        self.base = b;
        while let Some(k) = self.far.peek_key() {
            if bucket_of(k) >= self.base + BUCKETS as u64 {
                break;
            }
            let (k, e) = self.far.pop().expect("peeked");
            self.insert(bucket_of(k), k, e);
        }
        self.min = self.smallest();
        Some((key, event))
    }

    pub fn len(&self) -> usize {
        self.in_ring + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Moves the ring's start back to bucket `b`: the entries that then
    /// lie beyond the ring go to `far`.
    #[cold]
    fn rebase(&mut self, b: u64) {
        let mut moved = Vec::new();
        for i in 0..BUCKETS {
            let mut n = self.heads[i];
            while n != NIL {
                let node = self.nodes[n as usize];
                moved.push((node.key, node.event));
                n = node.next;
            }
        }
        self.nodes.clear();
        self.free = NIL;
        self.heads.fill(NIL);
        self.occupied = [0; WORDS];
        self.in_ring = 0;
        self.base = b;
        for (key, event) in moved {
            let kb = bucket_of(key);
            if kb < self.base + BUCKETS as u64 {
                self.insert(kb, key, event);
            } else {
                self.far.push(key, event);
            }
        }
    }

    fn insert(&mut self, b: u64, key: u128, event: E) {
        let i = (b % BUCKETS as u64) as usize;
        let node = Node {
            key,
            event,
            next: self.heads[i],
        };
        let n = if self.free != NIL {
            let n = self.free;
            self.free = self.nodes[n as usize].next;
            self.nodes[n as usize] = node;
            n
        } else {
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        };
        self.heads[i] = n;
        self.occupied[i / 64] |= 1 << (i % 64);
        self.in_ring += 1;
    }

    /// Unlinks the node with `key` from bucket `b`'s list.
    fn remove(&mut self, b: u64, key: u128) -> E {
        let i = (b % BUCKETS as u64) as usize;
        let mut prev = NIL;
        let mut n = self.heads[i];
        while self.nodes[n as usize].key != key {
            prev = n;
            n = self.nodes[n as usize].next;
        }
        let Node { event, next, .. } = self.nodes[n as usize];
        if prev == NIL {
            self.heads[i] = next;
            if next == NIL {
                self.occupied[i / 64] &= !(1 << (i % 64));
            }
        } else {
            self.nodes[prev as usize].next = next;
        }
        self.nodes[n as usize].next = self.free;
        self.free = n;
        self.in_ring -= 1;
        event
    }

    /// The smallest key: in the first non-empty bucket from the ring's
    /// start, or, with the ring empty, in `far`.
    fn smallest(&mut self) -> Option<u128> {
        if self.in_ring == 0 {
            return self.far.peek_key();
        }
        let start = (self.base % BUCKETS as u64) as usize;
        let i = self.next_occupied(start);
        let mut n = self.heads[i];
        let mut min = u128::MAX;
        while n != NIL {
            let node = &self.nodes[n as usize];
            min = min.min(node.key);
            n = node.next;
        }
        Some(min)
    }

    /// The first occupied bucket at or after `start`, around the ring
    /// (there is one: the ring is not empty).
    fn next_occupied(&self, start: usize) -> usize {
        let (w0, bit) = (start / 64, start % 64);
        let first = self.occupied[w0] & (!0u64 << bit);
        if first != 0 {
            return w0 * 64 + first.trailing_zeros() as usize;
        }
        for k in 1..=WORDS {
            let w = (w0 + k) % WORDS;
            let bits = if w == w0 {
                // Back at the start word: the bits before `start`.
                self.occupied[w] & !(!0u64 << bit)
            } else {
                self.occupied[w]
            };
            if bits != 0 {
                return w * 64 + bits.trailing_zeros() as usize;
            }
        }
        unreachable!("a non-empty ring has an occupied bucket")
    }
}

impl<E: Copy> Default for TimerCalendar<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a sorted list, with times from the same bucket to far
        /// beyond the ring (the far heap, moving into the ring), and some
        /// before the last pop (the ring moving back).
        #[test]
        fn pops_like_a_sorted_list(
            ops in proptest::collection::vec((0u64..4, 0u64..20_000_000_000, proptest::bool::ANY), 0..600)
        ) {
            let mut c = TimerCalendar::new();
            let mut model: Vec<u128> = Vec::new();
            let mut now = 0u64;
            for (i, (scale, t, pop)) in ops.into_iter().enumerate() {
                if pop {
                    model.sort();
                    let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                    let got = c.pop().map(|(k, e)| {
                        assert_eq!(k & 0xffff_ffff, e as u128);
                        k
                    });
                    prop_assert_eq!(got, want);
                    if let Some(k) = got {
                        now = (k >> 64) as u64;
                    }
                } else {
                    // Near (same bucket), a few buckets, anywhere up to 20 s
                    // ahead, or (which the simulation never does) behind.
                    let at = match scale {
                        0 => now + t % 1_000,
                        1 => now + t % 50_000_000,
                        2 => now + t,
                        _ => now - t % (now + 1),
                    };
                    let key = ((at as u128) << 64) | i as u128;
                    c.push(key, i);
                    model.push(key);
                }
                prop_assert_eq!(c.len(), model.len());
                let mut sorted = model.clone();
                sorted.sort();
                prop_assert_eq!(c.peek_key(), sorted.first().copied());
            }
        }
    }
}
