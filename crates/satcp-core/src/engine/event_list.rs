//! The packet events' half of the future-event list (`event_queue.rs`):
//! the events that move packets, a few per busy link.
//!
//! There are few of them at any time: one transmission end per busy link
//! and one arrival per link with packets in propagation (the others wait
//! in the link's FIFO). In the benchmark scenarios a to e, 1,000 flows
//! included, the list holds at most six entries when one is added. So
//! they are kept in a short array sorted by key, the largest first
//! (`near`): taking the smallest is a `pop`, and adding one moves it past
//! the entries with smaller keys, a few copies. A binary heap of five
//! entries spent 78 instructions per event of the thesis FTP's 523,
//! walking and comparing level by level; the array about 40.
//!
//! A topology with hundreds of links busy at once (the benchmark scenario
//! f, 200 GEO paths) would make the array long and each insertion a long
//! walk, so past `MAX_NEAR` entries the list becomes a binary heap
//! (`KeyedHeap`), and an array again when the heap is down to
//! `BACK_TO_NEAR` (the gap keeps a list that hovers at the threshold from
//! switching at every event). Keys are unique, so the order of pops is
//! the same whichever form holds the entries.

use super::heap::KeyedHeap;

/// Above this many entries the list is a heap.
const MAX_NEAR: usize = 32;
/// A heap of this many entries or fewer becomes a sorted array again.
const BACK_TO_NEAR: usize = 8;

#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

pub struct EventList<E> {
    /// The entries sorted by key, the largest first; empty while `large`.
    near: Vec<Entry<E>>,
    /// The entries while `large`; empty otherwise.
    far: KeyedHeap<E>,
    large: bool,
}

impl<E: Copy> EventList<E> {
    pub fn new() -> Self {
        EventList {
            near: Vec::with_capacity(MAX_NEAR + 1),
            far: KeyedHeap::with_capacity(0),
            large: false,
        }
    }

    /// Adds an entry. Key and event come in registers and the entry is
    /// written from them where it belongs, never built in memory and
    /// copied: a copy read back an event just stored in two 4-byte halves
    /// as one 16-byte word, which the processor cannot forward from its
    /// store buffer (`heap.rs`), and a 20-flow run was 9 % slower. For the
    /// same reason no function call takes the entry on either path (the
    /// heap's push is inlined; the switches between forms take none).
    #[inline]
    pub fn push(&mut self, key: u128, event: E) {
        if self.large {
            self.far.push(key, event);
            return;
        }
        let mut hole = self.near.len();
        self.near.push(Entry { key, event });
        let s = self.near.as_mut_slice();
        while hole > 0 && s[hole - 1].key < key {
            s[hole] = s[hole - 1];
            hole -= 1;
        }
        s[hole] = Entry { key, event };
        if self.near.len() > MAX_NEAR {
            self.switch_to_heap();
        }
    }

    /// The smallest key.
    #[inline]
    pub fn peek_key(&mut self) -> Option<u128> {
        if self.large {
            return self.far.peek_key();
        }
        self.near.last().map(|e| e.key)
    }

    /// Removes the entry with the smallest key.
    #[inline]
    pub fn take_min(&mut self) -> Option<(u128, E)> {
        if self.large {
            if self.far.len() > BACK_TO_NEAR {
                // The heap keeps the root's place for the next push.
                return self.far.take_min();
            }
            self.switch_to_array();
        }
        self.near.pop().map(|e| (e.key, e.event))
    }

    pub fn len(&self) -> usize {
        self.near.len() + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[cold]
    #[inline(never)]
    fn switch_to_heap(&mut self) {
        for e in self.near.drain(..) {
            self.far.push(e.key, e.event);
        }
        self.large = true;
    }

    #[cold]
    #[inline(never)]
    fn switch_to_array(&mut self) {
        // Popped smallest first; kept largest first.
        while let Some((key, event)) = self.far.pop() {
            self.near.push(Entry { key, event });
        }
        self.near.reverse();
        self.large = false;
    }
}

impl<E: Copy> Default for EventList<E> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Against a sorted model, with lists that grow past `MAX_NEAR`
        /// and shrink back (bursts of pushes, then of pops; the test below
        /// makes sure the heap is used).
        #[test]
        fn pops_like_a_sorted_list(
            ops in proptest::collection::vec((0u128..60, 0u8..3, 1usize..50), 0..60)
        ) {
            let mut l = EventList::new();
            let mut model: Vec<u128> = Vec::new();
            let mut i: u128 = 0;
            for (k, op, times) in ops {
                for _ in 0..times {
                    model.sort();
                    match op {
                        0 => {
                            let want = if model.is_empty() { None } else { Some(model.remove(0)) };
                            prop_assert_eq!(l.take_min().map(|(k, _)| k), want);
                        }
                        1 => prop_assert_eq!(l.peek_key(), model.first().copied()),
                        _ => {
                            // Unique keys, as the event list makes them.
                            let key = (k << 32) | i;
                            l.push(key, i);
                            model.push(key);
                        }
                    }
                    i += 1;
                    prop_assert_eq!(l.len(), model.len());
                    prop_assert!(l.near.len() <= MAX_NEAR);
                    // One form holds everything.
                    let one_form = if l.large { l.near.is_empty() } else { l.far.is_empty() };
                    prop_assert!(one_form);
                }
            }
        }
    }

    #[test]
    fn many_entries_go_to_the_heap_and_come_back_in_order() {
        let mut l = EventList::new();
        // Keys pushed in a scrambled order.
        let keys: Vec<u128> = (0..100u128).map(|i| (i * 37) % 101).collect();
        for &k in &keys {
            l.push(k, k);
        }
        assert!(l.large);
        let mut popped = vec![];
        while l.len() > BACK_TO_NEAR {
            popped.push(l.take_min().unwrap().0);
        }
        assert!(l.large, "a heap until the next take");
        popped.push(l.take_min().unwrap().0);
        assert!(!l.large, "a sorted array again");
        // A push in between lands in its place in the array.
        l.push(1000, 1000);
        while let Some((k, e)) = l.take_min() {
            assert_eq!(k, e);
            popped.push(k);
        }
        let mut want = keys.clone();
        want.push(1000);
        want.sort();
        assert_eq!(popped, want);
        assert!(l.is_empty());
    }
}
